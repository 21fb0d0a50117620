import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { workspaceWithWebhooks } from '../../test/engine';
import { createTestEnv, type TestEnv } from '../../test/harness';
import { claimDueStepsInTurn, unmarkUnlimitedRows } from './claim';
import { requeueForRetry } from './reschedule';
import { pgQuery } from './sql';

/**
 * The `limited` mark of integration requests: the running rows of an integration with a
 * `maxConcurrency` or a `maxRequestsPerSecond`, which a claim reads per integration. The mark
 * follows the integration's limits; a claim reads marked rows only through those limits.
 */
let env: TestEnv;
let pool: pg.Pool;

beforeAll(async () => {
  env = await createTestEnv();
  pool = new pg.Pool({ connectionString: env.db.url, max: 2 });
});
afterAll(async () => {
  await pool?.end();
  await env?.close();
});

async function workspaceWith(destinations: { name: string; maxConcurrency?: number }[], subjects: number) {
  const workspace = await workspaceWithWebhooks(
    env,
    destinations.map((d) => ({ ...d, url: 'http://127.0.0.1:9' })),
  );
  await workspace.importSubjects(subjects, 'limited');
  return { org: workspace.org, ids: workspace.integrations.map((i) => i.id) };
}

/** Each integration's rows as `limited` marks, by integration id (null: deleted), in request order. */
async function marks(organizationId: string) {
  const { rows } = await pool.query<{ integrationId: string | null; id: string; limited: boolean; status: string }>(
    `SELECT ir."integrationId", ir.id, ir."limited", ir.status::text AS status
       FROM "IntegrationRequest" ir JOIN "DeletionRequest" dr ON dr.id = ir."deletionRequestId"
      WHERE dr."organizationId" = $1 ORDER BY ir."createdAt", ir.id`,
    [organizationId],
  );
  return rows;
}

const claim = async (limit: number) => (await claimDueStepsInTurn(pool, 'worker-limited', 60_000, limit)).steps;

it('marks the running rows of an integration with limits, and follows its limits as they come and go', async () => {
  const { org, ids } = await workspaceWith([{ name: 'Slow CRM', maxConcurrency: 2 }, { name: 'Fast CRM' }], 3);
  const [slow, fast] = ids as [string, string];
  let rows = await marks(org.organization.id);
  expect(rows.filter((r) => r.integrationId === slow).map((r) => r.limited)).toEqual([true, true, true]);
  expect(rows.filter((r) => r.integrationId === fast).map((r) => r.limited)).toEqual([false, false, false]);

  // One row of each ended: the mark of an ended row is not followed (it is in no claim's index).
  const ended = rows.filter((r) => r.integrationId === slow)[0]!.id;
  await pool.query(`UPDATE "IntegrationRequest" SET status = 'FAILED' WHERE id = $1`, [ended]);
  await env.db.prisma.integration.update({ where: { id: slow }, data: { maxConcurrency: null } });
  await env.db.prisma.integration.update({ where: { id: fast }, data: { maxRequestsPerSecond: 5 } });
  rows = await marks(org.organization.id);
  expect(rows.filter((r) => r.integrationId === slow).map((r) => r.limited)).toEqual([true, false, false]);
  expect(rows.filter((r) => r.integrationId === fast).map((r) => r.limited)).toEqual([true, true, true]);

  // A retry runs the ended row again, marked by what its integration has now (no limits).
  expect(await requeueForRetry(pgQuery(pool), ended, 'FAILED')).toBe(true);
  rows = await marks(org.organization.id);
  expect(rows.find((r) => r.id === ended)).toMatchObject({ status: 'STAGING', limited: false });
});

it("claims a limited integration's rows up to its free slots, and the others' beside them", async () => {
  const { org, ids } = await workspaceWith([{ name: 'Slow CRM', maxConcurrency: 2 }, { name: 'Fast CRM' }], 4);
  const [slow, fast] = ids as [string, string];
  const first = await claim(20);
  const mine = first.filter((s) => s.organizationId === org.organization.id);
  expect(mine.filter((s) => s.integration?.id === slow)).toHaveLength(2);
  // Each step knows its integration's limit (a database driver sizes its connections to it).
  expect(mine.map((s) => [s.integration?.id, s.integration?.maxConcurrency])).toEqual(
    expect.arrayContaining([
      [slow, 2],
      [fast, null],
    ]),
  );
  expect(mine.filter((s) => s.integration?.id === fast)).toHaveLength(4);
  // At its limit: its two other due rows wait, and nothing else is left.
  expect((await claim(20)).filter((s) => s.organizationId === org.organization.id)).toHaveLength(0);

  // Its integration deleted, a marked row has no limit any more and is claimed.
  await env.db.prisma.integration.delete({ where: { id: slow } });
  const orphans = (await claim(20)).filter((s) => s.organizationId === org.organization.id);
  expect(orphans.map((s) => s.integration)).toEqual([null, null]);
});

it('claims a row marked while its integration lost its limits once the sweep has unmarked it', async () => {
  const { org, ids } = await workspaceWith([{ name: 'Fast CRM' }], 2);
  // The mark a fan-out under way would have kept, its integration's limits removed meanwhile.
  await pool.query(`UPDATE "IntegrationRequest" SET "limited" = true WHERE "integrationId" = $1`, [ids[0]]);
  expect((await claim(20)).filter((s) => s.organizationId === org.organization.id)).toHaveLength(0);
  expect(await unmarkUnlimitedRows(pgQuery(pool))).toBeGreaterThanOrEqual(2);
  expect((await claim(20)).filter((s) => s.organizationId === org.organization.id)).toHaveLength(2);
});
