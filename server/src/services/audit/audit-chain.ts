import { createHash } from 'node:crypto';
import { ADVISORY_LOCKS } from '../../db/advisory-locks';
import type { Db } from '../../db/client';
import { Prisma } from '../../generated/prisma/client';
import { hashHex } from '../../lib/crypto';

/**
 * Tamper-evident audit log. Writers only append rows (a database trigger keeps the chain
 * fields and the details digest empty), so creating requests never waits on
 * a lock. `sealAuditChain` later links each organization's new rows, in id order, into a
 * hash chain (chainSeq, hash) under one advisory lock, and records the chain's head
 * (AuditChainHead) in the same transaction. Each hash covers the hash of the entry
 * before it (not stored a second time on the entry: it is that entry's `hash`). The chain covers the
 * digest of `details`, not `details` itself, so retention can remove the personal payload
 * and the chain still verifies. The trigger refuses any other change and any delete
 * (except together with the organization). Identical status polls fold into one entry
 * (`repeatCount`, `lastRepeatedAt`, see pipeline/store/finish.ts): those two columns stay
 * outside the hash, so an entry can count more polls after it is sealed; the trigger lets
 * them only grow, and what the entry says and when it was first written stay chained.
 * The three digests are stored as their 32 bytes; what is hashed is their hex text.
 */

const SEAL_LOCK = ADVISORY_LOCKS.auditSeal;
const BATCH = 2_000;

/**
 * The digest of an entry's details as the chain covers it: sha256 of the details' text followed by
 * the compressed rest. Stored (`detailsDigest`) only once the retention policy removed them (the
 * `audit_log_guard` trigger keeps it then); worked out from them while they are there.
 */
const PAYLOAD_DIGEST = Prisma.sql`CASE WHEN a."details" IS NULL AND a."exchanges" IS NULL THEN NULL
  ELSE sha256(convert_to(COALESCE(a."details"::text, ''), 'UTF8') || COALESCE(a."exchanges", ''::bytea)) END`;

/** A digest as the chain hashes it: the hex text of its 32 stored bytes. */
export const digestHex = (digest: Uint8Array | null): string | null => (digest === null ? null : hashHex(digest));

interface ChainRow {
  id: bigint;
  organizationId: string;
  deletionRequestId: string | null;
  integrationRequestId: string | null;
  actorType: string;
  actorId: string | null;
  action: string;
  outcome: string | null;
  summary: string;
  /** Hex, as hashed (stored as bytes). */
  detailsDigest: string | null;
  createdAt: Date;
}

/** The hash of one entry: everything it says, its place in the chain, and the entry before it. */
export function auditEntryHash(row: ChainRow, chainSeq: bigint, prevHash: string | null): string {
  const fields = [
    'audit-v1',
    row.organizationId,
    chainSeq.toString(),
    prevHash ?? '',
    row.id.toString(),
    row.createdAt.toISOString(),
    row.actorType,
    row.actorId,
    row.action,
    row.outcome,
    row.summary,
    row.deletionRequestId,
    row.integrationRequestId,
    row.detailsDigest,
  ];
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex');
}

/**
 * Links every unsealed audit entry into its organization's chain. Safe to call from any
 * number of processes (one sealer at a time holds the lock; others wait). Returns how many
 * entries were sealed. Call it periodically and before verifying.
 */
export async function sealAuditChain(db: Db): Promise<{ sealed: number }> {
  let sealed = 0;
  for (;;) {
    const count = await db.$transaction(
      async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(${SEAL_LOCK})`;
        const pending = await tx.$queryRaw<ChainRow[]>`
          SELECT a."id", a."organizationId", a."deletionRequestId", a."integrationRequestId", a."actorType", a."actorId", a."action",
                 a."outcome", a."summary", encode(COALESCE(a."detailsDigest", ${PAYLOAD_DIGEST}), 'hex') AS "detailsDigest", a."createdAt"
            FROM "AuditLog" a WHERE a."chainSeq" IS NULL ORDER BY a."id" LIMIT ${BATCH}`;
        if (pending.length === 0) return 0;
        const byOrganization = new Map<string, ChainRow[]>();
        for (const row of pending)
          byOrganization.set(row.organizationId, [...(byOrganization.get(row.organizationId) ?? []), row]);
        const organizations: string[] = [];
        const ids: string[] = [];
        const createdAts: Date[] = [];
        const seqs: string[] = [];
        const hashes: string[] = [];
        const heads: { organizationId: string; chainSeq: bigint; entryId: bigint; hash: string }[] = [];
        for (const [organizationId, rows] of byOrganization) {
          const head = await tx.auditChainHead.findUnique({
            where: { organizationId },
            select: { chainSeq: true, hash: true },
          });
          let seq = head?.chainSeq ?? 0n;
          let prev = digestHex(head?.hash ?? null);
          for (const row of rows) {
            seq += 1n;
            const hash = auditEntryHash(row, seq, prev);
            organizations.push(organizationId);
            ids.push(row.id.toString());
            createdAts.push(row.createdAt);
            seqs.push(seq.toString());
            hashes.push(hash);
            prev = hash;
          }
          heads.push({ organizationId, chainSeq: seq, entryId: rows.at(-1)!.id, hash: prev! });
        }
        // By the whole primary key: each entry found in its month's partition alone.
        const updated = await tx.$executeRaw`
          UPDATE "AuditLog" AS a SET "chainSeq" = v.seq, "hash" = decode(v.hash, 'hex')
          FROM unnest(${organizations}::text[], ${ids}::bigint[], ${createdAts.map((d) => d.toISOString())}::timestamp(3)[], ${seqs}::bigint[], ${hashes}::text[])
                 AS v(org, id, created, seq, hash)
          WHERE a."organizationId" = v.org AND a.id = v.id AND a."createdAt" = v.created`;
        // Every entry read is sealed, or none: a head past an entry left unsealed would break the chain.
        if (updated !== ids.length) throw new Error(`sealing matched ${updated} of ${ids.length} audit entries`);
        await tx.$executeRaw`
          INSERT INTO "AuditChainHead" ("organizationId", "chainSeq", "entryId", "hash")
          SELECT org, seq, id, decode(hash, 'hex')
            FROM unnest(${heads.map((h) => h.organizationId)}::text[], ${heads.map((h) => h.chainSeq.toString())}::bigint[],
                        ${heads.map((h) => h.entryId.toString())}::bigint[], ${heads.map((h) => h.hash)}::text[]) AS v(org, seq, id, hash)
          ON CONFLICT ("organizationId") DO UPDATE
            SET "chainSeq" = EXCLUDED."chainSeq", "entryId" = EXCLUDED."entryId", "hash" = EXCLUDED."hash"`;
        return pending.length;
      },
      { timeout: 60_000, maxWait: 30_000 },
    );
    sealed += count;
    if (count < BATCH) return { sealed };
  }
}

export interface ChainBreak {
  organizationId: string;
  /** The audit entry where verification failed (for a missing entry: the one after the gap). */
  entryId: string;
  chainSeq: string;
  reason: string;
}

export interface VerificationReport {
  ok: boolean;
  organizations: number;
  verifiedEntries: number;
  unsealedEntries: number;
  /** Entries the audit log retention dropped with their months (AUDIT_LOG_RETENTION_MONTHS); the chains verify from where they now start. */
  droppedEntries: number;
  /** The first broken link of each organization whose chain is broken. */
  breaks: ChainBreak[];
  /** Last hash of each organization's chain: record it elsewhere to detect truncation of the tail. */
  heads: Record<string, { chainSeq: string; hash: string }>;
}

interface VerifyRow extends Omit<ChainRow, 'detailsDigest'> {
  chainSeq: bigint;
  hash: string | null;
  /** The digest stored when the details were removed (or, for entries written before 2026-11-30, from the start). */
  storedDigest: string | null;
  /** The digest of the details there now. */
  actualDigest: string | null;
  /** Details gone from an entry whose request the retention policy has not hashed or purged. */
  detailsRemoved: boolean;
}

/**
 * Entries sealed after their chain position's predecessors in id order wait at most this many at
 * once: past it, the chain is taken to have a gap where it stopped (a sound chain has a few, those
 * whose transaction committed after the entries written after them were sealed).
 */
const MAX_WAITING = 100_000;

/** Why an entry, at `seq` after an entry hashed `prev`, does not verify; null: it does. */
function brokenLink(row: VerifyRow, seq: bigint, prev: string | null): string | null {
  if (row.actualDigest !== null && row.storedDigest !== null && row.actualDigest !== row.storedDigest)
    return 'details were altered: their digest does not match';
  if (row.detailsRemoved)
    return "details were removed, though the retention policy has not reached this entry's request";
  const detailsDigest = row.storedDigest ?? row.actualDigest;
  if (row.hash !== auditEntryHash({ ...row, id: BigInt(row.id), detailsDigest }, seq, prev))
    return "hash does not match the entry's content and the previous entry's hash (this entry altered, or the one before it altered or reordered)";
  return null;
}

const missing = (from: bigint, to: bigint) => `entries ${from} to ${to} of the chain are missing (deleted)`;

/**
 * One organization's chain, walked by the primary key (organizationId, id). The sealer links
 * entries in id order as their transactions commit, so an entry whose transaction committed late
 * sits further along the chain than its id: it waits until the chain reaches its position. The
 * recorded head (read first) is where the chain must at least reach; entries sealed while the walk
 * runs may lie beyond it and are verified if the walk finds their predecessors.
 */
async function verifyOrganizationChain(
  db: Db,
  organizationId: string,
): Promise<{
  verified: number;
  dropped: number;
  broken: ChainBreak | null;
  head: { chainSeq: string; hash: string } | null;
}> {
  const recorded = await db.auditChainHead.findUnique({ where: { organizationId } });
  const dropped = Number(recorded?.droppedEntries ?? 0n);
  const recordedSeq = recorded?.chainSeq ?? 0n;
  const waiting = new Map<bigint, VerifyRow>();
  // Where the chain starts once the audit log retention dropped its oldest months, and the
  // positions it dropped after a kept one (audit-months.ts): those are passed by their recorded hash.
  const startSeq = recorded?.startSeq ?? 0n;
  let expectedSeq = startSeq + 1n;
  let prev: string | null = digestHex(recorded?.startHash ?? null);
  const droppedLinks = new Map(
    Object.entries((recorded?.droppedLinks ?? {}) as Record<string, string>).map(([seq, hash]) => [BigInt(seq), hash]),
  );
  const passDropped = () => {
    for (let hash = droppedLinks.get(expectedSeq); hash !== undefined; hash = droppedLinks.get(expectedSeq)) {
      prev = hash;
      expectedSeq += 1n;
    }
  };
  passDropped();
  let verified = 0;
  let lastVerified: VerifyRow | null = null;
  const at = (row: { id: bigint | string }, seq: bigint, reason: string) => ({
    verified,
    dropped,
    head: null,
    broken: { organizationId, entryId: String(row.id), chainSeq: seq.toString(), reason },
  });
  /** The first entry waiting within the recorded chain, where a gap ends. */
  const afterGap = () => {
    const seq = [...waiting.keys()]
      .filter((s) => s <= recordedSeq || waiting.size > MAX_WAITING)
      .sort((a, b) => (a < b ? -1 : 1))[0];
    return seq === undefined ? null : at(waiting.get(seq)!, seq, missing(expectedSeq, seq - 1n));
  };
  for (let afterId = 0n; ;) {
    // Details may only be gone where the retention policy removed them: from the entries of a
    // request it hashed or purged. Anywhere else a removal is a change to the record. The
    // digests are read as the hex text they are hashed as.
    const rows = await db.$queryRaw<VerifyRow[]>`
      SELECT a."id", a."organizationId", a."deletionRequestId", a."integrationRequestId", a."actorType", a."actorId", a."action", a."outcome",
             a."summary", encode(a."detailsDigest", 'hex') AS "storedDigest", a."createdAt", a."chainSeq",
             encode(a."hash", 'hex') AS "hash", encode(${PAYLOAD_DIGEST}, 'hex') AS "actualDigest",
             (a."details" IS NULL AND a."exchanges" IS NULL AND a."detailsDigest" IS NOT NULL
              AND NOT COALESCE(dr.hashed OR dr."purgedAt" IS NOT NULL, false)) AS "detailsRemoved"
      FROM "AuditLog" a LEFT JOIN "DeletionRequest" dr ON dr.id = a."deletionRequestId"
      WHERE a."organizationId" = ${organizationId} AND a."id" > ${afterId} AND a."chainSeq" IS NOT NULL
      ORDER BY a."id" ASC
      LIMIT ${BATCH}`;
    for (const row of rows) {
      const seq = BigInt(row.chainSeq);
      if (seq <= startSeq || droppedLinks.has(seq))
        return at(row, seq, `position ${seq} of the chain was recorded as dropped by the audit log retention`);
      if (seq < expectedSeq || waiting.has(seq))
        return at(row, seq, `more than one entry holds position ${seq} of the chain`);
      waiting.set(seq, row);
      for (let next = waiting.get(expectedSeq); next; next = waiting.get(expectedSeq)) {
        waiting.delete(expectedSeq);
        const reason = brokenLink(next, expectedSeq, prev);
        if (reason) return at(next, expectedSeq, reason);
        if (expectedSeq === recordedSeq && next.hash !== digestHex(recorded!.hash))
          return at(next, expectedSeq, "the chain's recorded head is not this entry");
        verified += 1;
        lastVerified = next;
        prev = next.hash;
        expectedSeq += 1n;
        passDropped();
      }
      if (waiting.size > MAX_WAITING) return afterGap()!;
    }
    if (rows.length < BATCH) break;
    afterId = BigInt(rows.at(-1)!.id);
  }
  const gap = afterGap();
  if (gap) return gap;
  if (expectedSeq <= recordedSeq) return at({ id: recorded!.entryId }, recordedSeq, missing(expectedSeq, recordedSeq));
  // No head recorded: either the organization's first seal committed while the walk ran, or the
  // record was removed.
  if (
    !recorded &&
    (prev !== null || waiting.size > 0) &&
    !(await db.auditChainHead.findUnique({ where: { organizationId } }))
  )
    return at(lastVerified ?? waiting.values().next().value!, expectedSeq - 1n, "the chain's head is not recorded");
  return {
    verified,
    dropped,
    broken: null,
    head: prev ? { chainSeq: (expectedSeq - 1n).toString(), hash: prev } : null,
  };
}

/** Walks each organization's chain in order and names the first entry that does not verify. */
export async function verifyAuditChain(db: Db, options: { organizationId?: string } = {}): Promise<VerificationReport> {
  // Those with entries, and those with a recorded head (whose entries may all be gone).
  const organizations = options.organizationId
    ? [options.organizationId]
    : [
        ...new Set(
          [
            ...(await db.auditLog.findMany({ distinct: ['organizationId'], select: { organizationId: true } })),
            ...(await db.auditChainHead.findMany({ select: { organizationId: true } })),
          ].map((r) => r.organizationId),
        ),
      ];
  const report: VerificationReport = {
    ok: true,
    organizations: organizations.length,
    verifiedEntries: 0,
    unsealedEntries: 0,
    droppedEntries: 0,
    breaks: [],
    heads: {},
  };
  report.unsealedEntries = await db.auditLog.count({
    where: { chainSeq: null, ...(options.organizationId ? { organizationId: options.organizationId } : {}) },
  });
  for (const organizationId of organizations) {
    const { verified, dropped, broken, head } = await verifyOrganizationChain(db, organizationId);
    report.verifiedEntries += verified;
    report.droppedEntries += dropped;
    if (broken) {
      report.ok = false;
      report.breaks.push(broken);
    } else if (head) {
      report.heads[organizationId] = head;
    }
  }
  return report;
}
