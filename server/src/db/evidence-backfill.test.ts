import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectCustomerDatabase, createCustomerDatabase, type CustomerDatabase } from '../test/customer-db';
import { startTestWorker, waitForRequest } from '../test/engine';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../test/harness';

const BACKFILL = path.resolve(
  import.meta.dirname,
  '../../../prisma/migrations/20261127090100_integration_evidence_backfill/migration.sql',
);

let env: TestEnv;
let customer: CustomerDatabase;
beforeAll(async () => {
  env = await createTestEnv();
  customer = await createCustomerDatabase();
});
afterAll(async () => {
  await customer?.close();
  await env?.close();
});

it('the evidence backfill copies the last successful step evidence, with the identifier blanked in every string', async () => {
  const org = await seedOrganization(env.deps, 'backfill');
  const caller = callerFor(env.deps, { pat: org.pat }).caller;
  await connectCustomerDatabase(caller, org.workspace.id, customer);
  const ids: Record<string, string> = {};
  for (const identifier of ['Jane.Doe@Example.com', 'ab']) {
    await customer.seedUser(identifier, { orders: 1 });
    const created = await caller.deletionRequests.createInWorkspace({ workspaceId: org.workspace.id, identifier });
    const worker = await startTestWorker(env);
    try {
      expect((await waitForRequest(env, created.id)).status).toBe('SUCCESS');
    } finally {
      await worker.stop();
    }
    const ir = await env.deps.prisma.integrationRequest.findFirstOrThrow({ where: { deletionRequestId: created.id } });
    ids[identifier] = ir.id;
    // As an audit payload recorded before the engine blanked identifiers in evidence, on a row
    // from before the column: the payload is rewritten here, past the append-only guard.
    const old = {
      ids: [identifier, identifier.toLowerCase(), `x-${identifier.toUpperCase()}-y`, 'abc ab', 'cab'],
      rows: 12,
      nested: { value: identifier },
      proof: { [identifier]: 'not found' },
    };
    await env.deps.prisma.$transaction([
      env.deps.prisma.$executeRawUnsafe(`ALTER TABLE "AuditLog" DISABLE TRIGGER USER`),
      env.deps.prisma.$executeRawUnsafe(
        `UPDATE "AuditLog" SET details = jsonb_set(COALESCE(details, '{}'), '{evidence}', $1::jsonb), exchanges = NULL WHERE "integrationRequestId" = $2 AND action = 'deletion.requested'`,
        JSON.stringify(old),
        ir.id,
      ),
      env.deps.prisma.$executeRawUnsafe(`ALTER TABLE "AuditLog" ENABLE TRIGGER USER`),
      env.deps.prisma.$executeRawUnsafe(`UPDATE "IntegrationRequest" SET evidence = NULL WHERE id = $1`, ir.id),
    ]);
  }
  const client = new pg.Client({ connectionString: env.db.url });
  await client.connect();
  try {
    await client.query(fs.readFileSync(BACKFILL, 'utf8'));
  } finally {
    await client.end();
  }
  const evidence = async (id: string) =>
    (await env.deps.prisma.integrationRequest.findUniqueOrThrow({ where: { id } })).evidence;
  expect(await evidence(ids['Jane.Doe@Example.com']!)).toEqual({
    ids: ['[identifier]', '[identifier]', 'x-[identifier]-y', 'abc ab', 'cab'],
    rows: 12,
    nested: { value: '[identifier]' },
    proof: { '[identifier]': 'not found' },
  });
  // A short identifier only where it stands alone: other words keep their letters.
  expect(await evidence(ids['ab']!)).toEqual({
    ids: ['[identifier]', '[identifier]', 'x-[identifier]-y', 'abc [identifier]', 'cab'],
    rows: 12,
    nested: { value: '[identifier]' },
    proof: { '[identifier]': 'not found' },
  });
});
