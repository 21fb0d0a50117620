import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Scheduler } from '../../jobs/scheduler';
import { createLogger } from '../../lib/logger';
import { createTestEnv, type TestEnv } from '../../test/harness';
import { sealAuditChain, verifyAuditChain } from './audit-chain';
import { auditMonths, dropAuditMonths, ensureAuditMonths } from './audit-months';

let env: TestEnv;
let a: string;
let b: string;

beforeAll(async () => {
  env = await createTestEnv();
  // Organizations without the entries a signup writes today: their logs start in 2024 and 2025.
  a = 'org_months_a';
  b = 'org_months_b';
  for (const id of [a, b, 'org_months_c'])
    await env.db.pool.query(`INSERT INTO "Organization" (id, name, "updatedAt") VALUES ($1, $1, now())`, [id]);
});
afterAll(() => env?.close());

const db = () => env.db.prisma;
const pool = () => env.db.pool;

/** An entry as written at `createdAt` (a writer stamps its transaction's start). */
async function entryAt(organizationId: string, createdAt: string, summary: string) {
  await pool().query(
    `INSERT INTO "AuditLog" ("organizationId", "actorType", "action", "summary", "details", "createdAt")
     VALUES ($1, 'system', 'test.entry', $2, $3::jsonb, $4::timestamp)`,
    [organizationId, summary, JSON.stringify({ subject: `${summary}@example.com` }), createdAt],
  );
}

const partitionOf = async (summary: string) =>
  (
    await pool().query<{ partition: string }>(
      `SELECT tableoid::regclass::text AS partition FROM "AuditLog" WHERE summary = $1`,
      [summary],
    )
  ).rows[0]?.partition;

const head = (organizationId: string) => db().auditChainHead.findUniqueOrThrow({ where: { organizationId } });

describe('audit log months', () => {
  it('creates this month and the two after it once, and files each entry in its month', async () => {
    const first = await ensureAuditMonths(pool(), new Date('2025-01-20T10:00:00Z'));
    expect(first).toEqual({ created: ['2025-01', '2025-02', '2025-03'], blocked: [] });
    expect(await ensureAuditMonths(pool(), new Date('2025-01-20T10:00:00Z'))).toEqual({ created: [], blocked: [] });
    expect((await auditMonths(pool())).map((m) => m.month).slice(0, 3)).toEqual(['2025-01', '2025-02', '2025-03']);
    await entryAt(b, '2025-01-31 08:00:00', 'b-jan');
    expect(await partitionOf('b-jan')).toBe('"AuditLog_2025_01"');
  });

  it('keeps an entry of a month with no partition in the default one, and names that month when it cannot be created', async () => {
    await entryAt(b, '2024-06-10 12:00:00', 'b-2024-06');
    expect(await partitionOf('b-2024-06')).toBe('"AuditLog_default"');
    expect(await ensureAuditMonths(pool(), new Date('2024-06-01T00:00:00Z'), 0)).toEqual({
      created: [],
      blocked: ['2024-06'],
    });
    expect(await partitionOf('b-2024-06')).toBe('"AuditLog_default"');
  });

  it('refuses a TRUNCATE of a month as of the whole log', async () => {
    await expect(pool().query('TRUNCATE "AuditLog_2025_01"')).rejects.toThrow(/cannot be truncated/);
    await expect(pool().query('TRUNCATE "AuditLog_default"')).rejects.toThrow(/cannot be truncated/);
  });

  it('drops a month whole; each chain starts where the month ended and verifies, across an entry written over the month end', async () => {
    for (let i = 0; i < 5; i++) await entryAt(a, `2025-01-${10 + i} 09:00:00`, `a-jan-${i}`);
    await sealAuditChain(db());
    for (let i = 0; i < 2; i++) await entryAt(a, `2025-02-01 00:00:0${i}`, `a-feb-${i}`);
    await sealAuditChain(db());
    // Its transaction began on January 31st and committed after February's first entries were sealed.
    await entryAt(a, '2025-01-31 23:59:59', 'a-jan-late');
    await sealAuditChain(db());
    await entryAt(a, '2025-02-03 10:00:00', 'a-feb-2');
    await sealAuditChain(db());
    const late = await db().auditLog.findFirstOrThrow({ where: { summary: 'a-jan-late' } });
    expect(late.chainSeq).toBe(8n);
    const before = await verifyAuditChain(db());
    expect(before.ok).toBe(true);

    // March 2025, one whole month kept before it: January goes.
    const outcome = await dropAuditMonths(pool(), 1, new Date('2025-03-10T00:00:00Z'));
    expect(outcome).toEqual({ dropped: [{ month: '2025-01', entries: 7, organizations: 2 }] });
    expect((await auditMonths(pool())).map((m) => m.month)).not.toContain('2025-01');
    expect(await db().auditLog.count({ where: { summary: { startsWith: 'a-jan' } } })).toBe(0);

    // a: positions 1–5 gone before its first kept one (6); 8, dropped after it, passed by its hash.
    expect(await head(a)).toMatchObject({
      startSeq: 5n,
      droppedLinks: { '8': Buffer.from(late.hash!).toString('hex') },
      droppedEntries: 6n,
    });
    // b: its entry of January was the first of its chain; its entry of 2024 (default partition) stays.
    expect(await head(b)).toMatchObject({ startSeq: 1n, droppedLinks: null, droppedEntries: 1n });

    // Each organization's log says what went; sealed, the chains verify from their new starts.
    const notices = await db().auditLog.findMany({ where: { action: 'audit.month_dropped' }, orderBy: { id: 'asc' } });
    expect(notices.map((n) => [n.organizationId, n.summary])).toEqual(
      expect.arrayContaining([
        [
          a,
          '6 audit log entries of 2025-01 dropped by the audit log retention (1 month); the hash chain continues after position 5',
        ],
        [
          b,
          '1 audit log entry of 2025-01 dropped by the audit log retention (1 month); the hash chain continues after position 1',
        ],
      ]),
    );
    await sealAuditChain(db());
    const after = await verifyAuditChain(db());
    expect(after.breaks).toEqual([]);
    expect(after).toMatchObject({ ok: true, droppedEntries: 7 });
    // a: 6, 7, 9 and the notice (10); b: the entry of 2024 in the default month and the notice.
    expect(after.heads[a]).toMatchObject({ chainSeq: '10' });
  });

  it('drops the next month too: the position passed by its hash is behind the new start', async () => {
    const outcome = await dropAuditMonths(pool(), 1, new Date('2025-04-02T00:00:00Z'));
    expect(outcome).toEqual({ dropped: [{ month: '2025-02', entries: 3, organizations: 1 }] });
    expect(await head(a)).toMatchObject({ startSeq: 9n, droppedLinks: null, droppedEntries: 9n });
    await sealAuditChain(db());
    expect(await verifyAuditChain(db())).toMatchObject({ ok: true, breaks: [] });
  });

  it('keeps a month while one of its entries is not sealed, and the next run drops it', async () => {
    await entryAt(a, '2025-03-05 12:00:00', 'a-mar-0');
    const waiting = await dropAuditMonths(pool(), 1, new Date('2025-05-02T00:00:00Z'));
    expect(waiting).toEqual({
      dropped: [],
      stoppedAt: '2025-03',
      reason: 'it still holds entries not sealed into the hash chain',
    });
    expect(await partitionOf('a-mar-0')).toBe('"AuditLog_2025_03"');
    await sealAuditChain(db());
    expect(await dropAuditMonths(pool(), 1, new Date('2025-05-02T00:00:00Z'))).toEqual({
      dropped: [{ month: '2025-03', entries: 1, organizations: 1 }],
    });
  });

  it('a forged start, or an entry deleted from the months kept, still breaks the chain', async () => {
    await sealAuditChain(db());
    const start = await head(a);
    await db().auditChainHead.update({ where: { organizationId: a }, data: { startHash: new Uint8Array(32) } });
    const forged = await verifyAuditChain(db(), { organizationId: a });
    expect(forged.ok).toBe(false);
    expect(forged.breaks[0]).toMatchObject({ chainSeq: (start.startSeq + 1n).toString() });
    expect(forged.breaks[0]!.reason).toMatch(/hash does not match/);
    await db().auditChainHead.update({ where: { organizationId: a }, data: { startHash: start.startHash } });
    expect((await verifyAuditChain(db(), { organizationId: a })).ok).toBe(true);

    // A position the head records as dropped, held by an entry again.
    await db().auditChainHead.update({ where: { organizationId: a }, data: { startSeq: start.startSeq + 1n } });
    const overlap = await verifyAuditChain(db(), { organizationId: a });
    expect(overlap.breaks[0]!.reason).toMatch(/recorded as dropped/);
  });

  it('the daily retention run drops the months past AUDIT_LOG_RETENTION_MONTHS, and only with it set', async () => {
    await ensureAuditMonths(pool(), new Date('2024-01-15T00:00:00Z'), 0);
    await entryAt('org_months_c', '2024-01-10 10:00:00', 'c-2024-01');
    await sealAuditChain(db());
    const log = createLogger('silent');
    await new Scheduler(db(), pool(), log, 30_000).runRetention();
    expect(await partitionOf('c-2024-01')).toBe('"AuditLog_2024_01"');
    await new Scheduler(db(), pool(), log, 30_000, undefined, 24).runRetention();
    expect(await partitionOf('c-2024-01')).toBeUndefined();
    expect((await auditMonths(pool())).map((m) => m.month)).not.toContain('2024-01');
    await sealAuditChain(db());
    expect(await verifyAuditChain(db(), { organizationId: 'org_months_c' })).toMatchObject({
      ok: true,
      droppedEntries: 1,
      verifiedEntries: 1,
    });
  });
});
