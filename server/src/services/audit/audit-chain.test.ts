import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma } from '../../generated/prisma/client';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';
import { auditEntryHash, digestHex, sealAuditChain, verifyAuditChain } from './audit-chain';
import { recordAudit } from './record-audit';

let env: TestEnv;
let org: Awaited<ReturnType<typeof seedOrganization>>;
let other: Awaited<ReturnType<typeof seedOrganization>>;

beforeAll(async () => {
  env = await createTestEnv();
  org = await seedOrganization(env.deps, 'audit-a');
  other = await seedOrganization(env.deps, 'audit-b');
});
afterAll(() => env?.close());

const db = () => env.db.prisma;

async function append(
  organizationId: string,
  n: number,
  details: (i: number) => object = (i) => ({ subject: `person${i}@example.com` }),
) {
  await Promise.all(
    Array.from({ length: n }, (_, i) =>
      recordAudit(db(), null, { organizationId, action: 'test.entry', summary: `entry ${i}`, details: details(i) }),
    ),
  );
}

/** Changes a row behind the trigger's back, as someone with superuser rights could. */
async function tamper(sql: string) {
  await db().$transaction(async (tx) => {
    await tx.$executeRawUnsafe(`SET LOCAL session_replication_role = replica`);
    await tx.$executeRawUnsafe(sql);
  });
}

/** The digest the chain covers of an entry's details as they are now (hex), as the sealer works it out. */
async function payloadDigest(id: bigint): Promise<string | null> {
  const [row] = await db().$queryRaw<{ digest: string | null }[]>`
    SELECT CASE WHEN "details" IS NULL AND "exchanges" IS NULL THEN NULL
           ELSE encode(sha256(convert_to(COALESCE("details"::text, ''), 'UTF8') || COALESCE("exchanges", ''::bytea)), 'hex') END AS digest
      FROM "AuditLog" WHERE id = ${id}`;
  return row!.digest;
}

async function nthEntry(organizationId: string, chainSeq: number) {
  return db().auditLog.findFirstOrThrow({ where: { organizationId, chainSeq: BigInt(chainSeq) } });
}

describe('audit hash chain', () => {
  it('appends without chain fields, then the sealer links each organization in order and verification passes', async () => {
    await append(org.organization.id, 25);
    await append(other.organization.id, 5);
    const unsealed = await db().auditLog.findFirstOrThrow({
      where: { organizationId: org.organization.id, action: 'test.entry' },
    });
    expect(unsealed).toMatchObject({ chainSeq: null, hash: null });
    // The digest of the details is stored only once they are removed.
    expect(unsealed.detailsDigest).toBeNull();
    expect((await sealAuditChain(db())).sealed).toBeGreaterThanOrEqual(30);
    expect((await sealAuditChain(db())).sealed).toBe(0);
    const first = await nthEntry(org.organization.id, 1);
    const second = await nthEntry(org.organization.id, 2);
    // The first entry's hash covers no entry before it, the second's covers the first's hash.
    const asHashed = async (row: typeof first) => ({ ...row, detailsDigest: await payloadDigest(row.id) });
    expect(digestHex(first.hash)).toBe(auditEntryHash(await asHashed(first), 1n, null));
    expect(digestHex(second.hash)).toBe(auditEntryHash(await asHashed(second), 2n, digestHex(first.hash)));
    const report = await verifyAuditChain(db());
    expect(report).toMatchObject({ ok: true, breaks: [], unsealedEntries: 0 });
    expect(report.verifiedEntries).toBeGreaterThanOrEqual(30);
    expect(report.heads[org.organization.id]?.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a writer cannot pre-fill chain fields or a digest', async () => {
    await db().auditLog.create({
      data: {
        organizationId: org.organization.id,
        actorType: 'system',
        action: 'forged',
        summary: 'forged',
        details: { a: 1 },
        hash: Buffer.alloc(32, 0xff),
        chainSeq: 999n,
        detailsDigest: Buffer.from('x'),
      },
    });
    const row = await db().auditLog.findFirstOrThrow({ where: { action: 'forged' } });
    expect(row).toMatchObject({ hash: null, chainSeq: null });
    expect(row.detailsDigest).toBeNull();
    await sealAuditChain(db());
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });

  it('the application role cannot change, delete or truncate entries', async () => {
    const row = await nthEntry(org.organization.id, 3);
    await expect(
      db().auditLog.update({
        where: { organizationId_id: { organizationId: row.organizationId, id: row.id } },
        data: { summary: 'rewritten' },
      }),
    ).rejects.toThrow(/append-only/);
    await expect(
      db().auditLog.update({
        where: { organizationId_id: { organizationId: row.organizationId, id: row.id } },
        data: { details: { subject: 'someone else' } },
      }),
    ).rejects.toThrow(/only be removed/);
    await expect(
      db().auditLog.update({
        where: { organizationId_id: { organizationId: row.organizationId, id: row.id } },
        data: { hash: Buffer.alloc(32) },
      }),
    ).rejects.toThrow(/already sealed/);
    await expect(
      db().auditLog.delete({ where: { organizationId_id: { organizationId: row.organizationId, id: row.id } } }),
    ).rejects.toThrow(/cannot be deleted/);
    await expect(db().$executeRawUnsafe('TRUNCATE "AuditLog"')).rejects.toThrow(/cannot be truncated/);
    expect(
      await db().auditLog.findUniqueOrThrow({
        where: { organizationId_id: { organizationId: row.organizationId, id: row.id } },
      }),
    ).toMatchObject({
      summary: row.summary,
      hash: row.hash,
    });
  });

  it('retention removes the personal payload and the chain still verifies; a removal anywhere else is a break', async () => {
    const request = await callerFor(env.deps, { pat: org.pat }).caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'retained@example.com',
    });
    await recordAudit(db(), null, {
      organizationId: org.organization.id,
      deletionRequestId: request.id,
      action: 'test.request_entry',
      summary: 'an entry of a request',
      details: { subject: 'retained@example.com' },
    });
    await sealAuditChain(db());
    const row = await db().auditLog.findFirstOrThrow({
      where: { deletionRequestId: request.id, action: 'test.request_entry' },
    });
    const digestBefore = await payloadDigest(row.id);
    await db().auditLog.update({
      where: { organizationId_id: { organizationId: row.organizationId, id: row.id } },
      data: { details: Prisma.DbNull },
    });
    const after = await db().auditLog.findUniqueOrThrow({
      where: { organizationId_id: { organizationId: row.organizationId, id: row.id } },
    });
    expect(after.details).toBeNull();
    // The digest of what was removed is kept, for the chain.
    expect(row.detailsDigest).toBeNull();
    expect(digestHex(after.detailsDigest)).toBe(digestBefore);
    // Its request was not hashed or purged: nobody but the retention policy removes details.
    const removed = await verifyAuditChain(db(), { organizationId: org.organization.id });
    expect(removed.ok).toBe(false);
    expect(removed.breaks[0]).toMatchObject({
      entryId: String(row.id),
      reason: "details were removed, though the retention policy has not reached this entry's request",
    });
    // As the retention policy leaves it: the request hashed, its payloads gone.
    await db().deletionRequest.update({ where: { id: row.deletionRequestId! }, data: { hashed: true } });
    expect((await verifyAuditChain(db(), { organizationId: org.organization.id })).ok).toBe(true);
  });

  it('names the first broken link when a summary is rewritten in SQL', async () => {
    const row = await nthEntry(org.organization.id, 7);
    await tamper(`UPDATE "AuditLog" SET "summary" = 'nothing happened' WHERE "id" = ${row.id}`);
    const report = await verifyAuditChain(db());
    expect(report.ok).toBe(false);
    expect(report.breaks).toEqual([
      {
        organizationId: org.organization.id,
        entryId: String(row.id),
        chainSeq: '7',
        reason: expect.stringMatching(/hash does not match/),
      },
    ]);
    // The other organization's chain is intact and reported as such.
    expect((await verifyAuditChain(db(), { organizationId: other.organization.id })).ok).toBe(true);
    await tamper(`UPDATE "AuditLog" SET "summary" = ${`'${row.summary.replace(/'/g, "''")}'`} WHERE "id" = ${row.id}`);
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });

  it('names the entry whose details were altered, and the entry after a deleted one', async () => {
    const altered = await nthEntry(org.organization.id, 9);
    await tamper(`UPDATE "AuditLog" SET "details" = '{"subject":"nobody@example.com"}' WHERE "id" = ${altered.id}`);
    let report = await verifyAuditChain(db(), { organizationId: org.organization.id });
    // The hash covers the digest of the details as they were sealed.
    expect(report.breaks[0]).toMatchObject({
      entryId: String(altered.id),
      chainSeq: '9',
      reason: expect.stringMatching(/hash does not match the entry's content/),
    });
    // Details removed leave their digest stored; details put back in their place are named as altered.
    await tamper(`UPDATE "AuditLog" SET "details" = NULL, "exchanges" = NULL WHERE "id" = ${altered.id}`);
    await tamper(`UPDATE "AuditLog" SET "detailsDigest" = sha256('x') WHERE "id" = ${altered.id}`);
    await tamper(`UPDATE "AuditLog" SET "details" = '{"subject":"somebody@example.com"}' WHERE "id" = ${altered.id}`);
    report = await verifyAuditChain(db(), { organizationId: org.organization.id });
    expect(report.breaks[0]).toMatchObject({
      entryId: String(altered.id),
      chainSeq: '9',
      reason: expect.stringMatching(/details were altered/),
    });

    const removed = await nthEntry(org.organization.id, 5);
    const next = await nthEntry(org.organization.id, 6);
    await tamper(`DELETE FROM "AuditLog" WHERE "id" = ${removed.id}`);
    report = await verifyAuditChain(db(), { organizationId: org.organization.id });
    expect(report.breaks[0]).toMatchObject({
      entryId: String(next.id),
      chainSeq: '6',
      reason: expect.stringMatching(/entries 5 to 5 of the chain are missing/),
    });
  });

  it('a forged hash with a consistent rest of the chain is still caught at the forged entry', async () => {
    const row = await nthEntry(other.organization.id, 2);
    await tamper(`UPDATE "AuditLog" SET "hash" = decode('${'a'.repeat(64)}', 'hex') WHERE "id" = ${row.id}`);
    const report = await verifyAuditChain(db(), { organizationId: other.organization.id });
    expect(report.breaks[0]).toMatchObject({ entryId: String(row.id), chainSeq: '2' });
  });

  it('an entry altered and hashed again is caught at the entry after it, whose hash covered the old one', async () => {
    const fresh = await seedOrganization(env.deps, 'audit-rehashed');
    await append(fresh.organization.id, 4);
    await sealAuditChain(db());
    const altered = await nthEntry(fresh.organization.id, 2);
    const before = await nthEntry(fresh.organization.id, 1);
    const next = await nthEntry(fresh.organization.id, 3);
    const rewritten = { ...altered, summary: 'nothing happened', detailsDigest: await payloadDigest(altered.id) };
    const rehashed = auditEntryHash(rewritten, 2n, digestHex(before.hash));
    await tamper(
      `UPDATE "AuditLog" SET "summary" = 'nothing happened', "hash" = decode('${rehashed}', 'hex') WHERE "id" = ${altered.id}`,
    );
    const report = await verifyAuditChain(db(), { organizationId: fresh.organization.id });
    expect(report.breaks).toEqual([
      {
        organizationId: fresh.organization.id,
        entryId: String(next.id),
        chainSeq: '3',
        reason: expect.stringMatching(/previous entry's hash/),
      },
    ]);
  });

  it('an entry whose transaction commits after later entries were sealed verifies further along the chain', async () => {
    const fresh = await seedOrganization(env.deps, 'audit-late');
    await append(fresh.organization.id, 2);
    let releaseLate!: () => void;
    const held = new Promise<void>((resolve) => (releaseLate = resolve));
    let written!: () => void;
    const lateWritten = new Promise<void>((resolve) => (written = resolve));
    // Takes its id now, commits after the entries written after it were sealed.
    const late = db().$transaction(async (tx) => {
      await recordAudit(tx, null, { organizationId: fresh.organization.id, action: 'test.entry', summary: 'late' });
      written();
      await held;
    });
    await lateWritten;
    await append(fresh.organization.id, 3);
    await sealAuditChain(db());
    releaseLate();
    await late;
    await sealAuditChain(db());
    const rows = await db().auditLog.findMany({
      where: { organizationId: fresh.organization.id },
      orderBy: { id: 'asc' },
    });
    const lateRow = rows.find((r) => r.summary === 'late')!;
    // Written before the last three, linked after them.
    expect(rows.filter((r) => r.id > lateRow.id).length).toBeGreaterThanOrEqual(3);
    expect(lateRow.chainSeq).toBe(BigInt(rows.length));
    const report = await verifyAuditChain(db(), { organizationId: fresh.organization.id });
    expect(report).toMatchObject({ ok: true, verifiedEntries: rows.length });
    expect(report.heads[fresh.organization.id]).toEqual({
      chainSeq: String(rows.length),
      hash: digestHex(lateRow.hash),
    });
    expect(
      await db().auditChainHead.findUniqueOrThrow({ where: { organizationId: fresh.organization.id } }),
    ).toMatchObject({ chainSeq: BigInt(rows.length), entryId: lateRow.id });
  });

  it('names a deleted last entry, a position held twice and a head no longer recorded', async () => {
    const fresh = await seedOrganization(env.deps, 'audit-tail');
    await append(fresh.organization.id, 4);
    await sealAuditChain(db());
    const verify = () => verifyAuditChain(db(), { organizationId: fresh.organization.id });
    expect((await verify()).ok).toBe(true);
    const count = await db().auditLog.count({ where: { organizationId: fresh.organization.id } });
    const last = await nthEntry(fresh.organization.id, count);

    await tamper(`DELETE FROM "AuditLog" WHERE "id" = ${last.id}`);
    expect((await verify()).breaks).toEqual([
      {
        organizationId: fresh.organization.id,
        entryId: String(last.id),
        chainSeq: String(count),
        reason: `entries ${count} to ${count} of the chain are missing (deleted)`,
      },
    ]);

    const third = await nthEntry(fresh.organization.id, 3);
    await tamper(`UPDATE "AuditLog" SET "chainSeq" = 2 WHERE "id" = ${third.id}`);
    expect((await verify()).breaks[0]).toMatchObject({
      entryId: String(third.id),
      chainSeq: '2',
      reason: 'more than one entry holds position 2 of the chain',
    });
    await tamper(`UPDATE "AuditLog" SET "chainSeq" = 3 WHERE "id" = ${third.id}`);

    await tamper(`DELETE FROM "AuditChainHead" WHERE "organizationId" = '${fresh.organization.id}'`);
    expect((await verify()).breaks[0]).toMatchObject({ reason: "the chain's head is not recorded" });
  });

  it('names a chain whose every entry was deleted by its recorded head', async () => {
    const emptied = await seedOrganization(env.deps, 'audit-emptied');
    await append(emptied.organization.id, 2);
    await sealAuditChain(db());
    const head = await db().auditChainHead.findUniqueOrThrow({ where: { organizationId: emptied.organization.id } });
    await tamper(`DELETE FROM "AuditLog" WHERE "organizationId" = '${emptied.organization.id}'`);
    const report = await verifyAuditChain(db());
    expect(report.breaks.find((b) => b.organizationId === emptied.organization.id)).toEqual({
      organizationId: emptied.organization.id,
      entryId: String(head.entryId),
      chainSeq: String(head.chainSeq),
      reason: `entries 1 to ${head.chainSeq} of the chain are missing (deleted)`,
    });
  });

  it('entries go away only together with their organization', async () => {
    const doomed = await seedOrganization(env.deps, 'audit-doomed');
    await append(doomed.organization.id, 3);
    await sealAuditChain(db());
    await db().organization.delete({ where: { id: doomed.organization.id } });
    expect(await db().auditLog.count({ where: { organizationId: doomed.organization.id } })).toBe(0);
  });

  it('sealing keeps up with concurrent writers without a lock on the write path', async () => {
    const fresh = await seedOrganization(env.deps, 'audit-busy');
    const writers = append(fresh.organization.id, 200, (i) => ({ i }));
    const sealers = Promise.all([sealAuditChain(db()), sealAuditChain(db()), sealAuditChain(db())]);
    await Promise.all([writers, sealers]);
    await sealAuditChain(db());
    const report = await verifyAuditChain(db(), { organizationId: fresh.organization.id });
    expect(report).toMatchObject({ ok: true, unsealedEntries: 0 });
    expect(report.verifiedEntries).toBe(
      await db().auditLog.count({ where: { organizationId: fresh.organization.id } }),
    );
  });
});
