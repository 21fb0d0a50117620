import type pg from 'pg';
import { ADVISORY_LOCKS } from '../../db/advisory-locks';
import { checkOut } from '../../db/connections';
import { NOW_UTC } from '../../db/query';

/**
 * The audit log is partitioned by month of `createdAt` ("AuditLog_YYYY_MM", and "AuditLog_default"
 * for an entry no month holds). Worker processes create the coming months ahead of time; with
 * AUDIT_LOG_RETENTION_MONTHS set, the retention run drops whole months older than that instead of
 * deleting rows. Dropping a month takes the oldest positions of each organization's hash chain
 * with it, so before the partition goes, the chain's new start is recorded on its head
 * (`AuditChainHead.startSeq`/`startHash`): the verifier starts there. An entry written across the
 * month's end (its transaction began in the month, committed after entries of the next one were
 * sealed) can leave a dropped position after a kept one; its hash is recorded too
 * (`droppedLinks`), so the entries after it still verify. Each organization's log gets an entry
 * saying how many of its entries were dropped and where its chain now starts.
 */

const MONTH_PARTITION = /^AuditLog_(\d{4})_(\d{2})$/;

/** "YYYY-MM" of a date (UTC). */
const monthOf = (date: Date) => date.toISOString().slice(0, 7);

/** The first instant (UTC) of the month `months` after `date`'s. */
function monthStart(date: Date, months = 0): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1));
}

const LOCK_NOT_AVAILABLE = '55P03';
const counted = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const isCheckViolation = (error: unknown) => (error as { code?: unknown }).code === '23514';

/**
 * Creates the partitions of this month and the `ahead` months after it where missing. A month
 * whose entries already sit in the default partition (written while it did not exist) is left
 * there and named in `blocked`: its entries are safe, only not in a month of their own.
 */
export async function ensureAuditMonths(
  pool: pg.Pool,
  now = new Date(),
  ahead = 2,
): Promise<{ created: string[]; blocked: string[] }> {
  const created: string[] = [];
  const blocked: string[] = [];
  for (let i = 0; i <= ahead; i++) {
    const month = monthStart(now, i);
    try {
      const { rows } = await pool.query<{ created: boolean }>(
        'SELECT "audit_log_add_month"($1::timestamp) AS created',
        [month.toISOString()],
      );
      if (rows[0]?.created) created.push(monthOf(month));
    } catch (error) {
      if (!isCheckViolation(error)) throw error;
      blocked.push(monthOf(month));
    }
  }
  return { created, blocked };
}

/** The month partitions, oldest first. */
export async function auditMonths(pool: pg.Pool): Promise<{ table: string; month: string }[]> {
  const { rows } = await pool.query<{ table: string }>(
    `SELECT c.relname AS table FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = '"AuditLog"'::regclass`,
  );
  return rows
    .flatMap(({ table }) => {
      const match = MONTH_PARTITION.exec(table);
      return match ? [{ table, month: `${match[1]}-${match[2]}` }] : [];
    })
    .sort((a, b) => a.month.localeCompare(b.month));
}

export interface DroppedMonth {
  month: string;
  entries: number;
  organizations: number;
}

export type DropOutcome = { dropped: DroppedMonth[] } | { dropped: DroppedMonth[]; stoppedAt: string; reason: string };

interface OrganizationInMonth {
  organizationId: string;
  entries: string;
  firstKept: string | null;
  chainSeq: string | null;
  startSeq: string | null;
  startHash: string | null;
  droppedLinks: Record<string, string> | null;
}

/**
 * Drops the months older than the current month and the `retentionMonths` before it, oldest
 * first, each in its own transaction. Stops at a month that still holds an entry not sealed yet
 * (the next run drops it) or whose chain does not reach where the month ends (named in `reason`:
 * the month stays, and `npm run audit:verify` names the break).
 */
export async function dropAuditMonths(pool: pg.Pool, retentionMonths: number, now = new Date()): Promise<DropOutcome> {
  const keepFrom = monthOf(monthStart(now, -retentionMonths));
  const dropped: DroppedMonth[] = [];
  for (const { table, month } of await auditMonths(pool)) {
    if (month >= keepFrom) break;
    const outcome = await dropMonth(pool, table, month, retentionMonths);
    if ('reason' in outcome) return { dropped, stoppedAt: month, reason: outcome.reason };
    dropped.push(outcome);
  }
  return { dropped };
}

async function dropMonth(
  pool: pg.Pool,
  table: string,
  month: string,
  retentionMonths: number,
): Promise<DroppedMonth | { reason: string }> {
  const held = await checkOut(pool);
  const { client } = held;
  const partition = `"${table}"`;
  try {
    await client.query('BEGIN');
    // No entry is sealed while the month's chain positions are read and its start moved.
    await client.query('SELECT pg_advisory_xact_lock($1)', [ADVISORY_LOCKS.auditSeal]);
    const { rows: unsealed } = await client.query(`SELECT 1 FROM ${partition} WHERE "chainSeq" IS NULL LIMIT 1`);
    if (unsealed.length) {
      await client.query('ROLLBACK');
      return { reason: 'it still holds entries not sealed into the hash chain' };
    }
    // For each organization with entries in the month: how many, the first position it keeps in
    // the other months (everything before it is gone once this month is), and its recorded chain.
    const { rows: organizations } = await client.query<OrganizationInMonth>(
      `SELECT m."organizationId", m.entries,
              (SELECT min(k."chainSeq") FROM "AuditLog" k
                WHERE k."organizationId" = m."organizationId" AND k.tableoid <> '${partition}'::regclass) AS "firstKept",
              h."chainSeq", h."startSeq", encode(h."startHash", 'hex') AS "startHash", h."droppedLinks"
         FROM (SELECT "organizationId", count(*) AS entries FROM ${partition} GROUP BY 1) m
         LEFT JOIN "AuditChainHead" h ON h."organizationId" = m."organizationId"`,
    );
    let entries = 0;
    for (const org of organizations) {
      if (org.chainSeq === null) {
        await client.query('ROLLBACK');
        return { reason: 'an organization with entries in it has no recorded chain head' };
      }
      // Every position up to `cut` is dropped once this month is: the chain starts after it.
      const cut = org.firstKept === null ? BigInt(org.chainSeq) : BigInt(org.firstKept) - 1n;
      const { rows: after } = await client.query<{ chainSeq: string; hash: string }>(
        `SELECT "chainSeq", encode("hash", 'hex') AS hash FROM ${partition}
          WHERE "organizationId" = $1 AND "chainSeq" >= $2`,
        [org.organizationId, cut.toString()],
      );
      const links = new Map<bigint, string>(
        Object.entries(org.droppedLinks ?? {}).map(([seq, hash]) => [BigInt(seq), hash] as const),
      );
      for (const row of after) links.set(BigInt(row.chainSeq), row.hash);
      const startHash = cut === BigInt(org.startSeq ?? 0) ? org.startHash : links.get(cut);
      if (cut > 0n && !startHash) {
        await client.query('ROLLBACK');
        return { reason: `the chain of organization ${org.organizationId} has no entry at position ${cut}` };
      }
      const kept = [...links].filter(([seq]) => seq > cut);
      await client.query(
        `UPDATE "AuditChainHead"
            SET "startSeq" = $2, "startHash" = decode($3, 'hex'), "droppedLinks" = $4::jsonb,
                "droppedEntries" = "droppedEntries" + $5
          WHERE "organizationId" = $1`,
        [
          org.organizationId,
          cut.toString(),
          startHash ?? null,
          kept.length ? JSON.stringify(Object.fromEntries(kept.map(([seq, hash]) => [seq.toString(), hash]))) : null,
          org.entries,
        ],
      );
      await client.query(
        `INSERT INTO "AuditLog" ("organizationId", "actorType", "action", "outcome", "summary", "details", "createdAt")
         VALUES ($1, 'system', 'audit.month_dropped', 'success', $2, $3::jsonb, ${NOW_UTC})`,
        [
          org.organizationId,
          `${counted(Number(org.entries), 'audit log entry', 'audit log entries')} of ${month} dropped by the audit log retention (${counted(retentionMonths, 'month', 'months')}); the hash chain continues after position ${cut}`,
          JSON.stringify({ month, entries: Number(org.entries), startSeq: cut.toString(), startHash, retentionMonths }),
        ],
      );
      entries += Number(org.entries);
    }
    // Writers hold the parent table open: wait for them briefly rather than queue them all behind
    // the drop, and give up before a deadlock check (1 s) could abort one of theirs instead; the
    // next run tries again.
    await client.query(`SET LOCAL lock_timeout = '500ms'`);
    await client.query(`DROP TABLE ${partition}`);
    await client.query('COMMIT');
    return { month, entries, organizations: organizations.length };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    if ((error as { code?: unknown }).code === LOCK_NOT_AVAILABLE)
      return { reason: 'writers held the audit log longer than the drop waits' };
    throw error;
  } finally {
    held.release();
  }
}
