import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomerDatabase, type CustomerDatabase } from '../../test/customer-db';
import { FAST_ENGINE_CONFIG, startTestWorker, waitForRequest } from '../../test/engine';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';
import { nextWindowOpening } from '../stores/trail';
import { closeSessions, openSessions } from './sessions';

let env: TestEnv;
let customer: CustomerDatabase;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let caller: ReturnType<typeof callerFor>['caller'];
let workspaceId: string;
let accountId: string;

beforeAll(async () => {
  // Five connections a worker for a customer database without a `maxConcurrency`.
  env = await createTestEnv({ ...FAST_ENGINE_CONFIG, CUSTOMER_DB_CONNECTIONS: '5' });
  customer = await createCustomerDatabase();
  worker = await startTestWorker(env);
  const org = await seedOrganization(env.deps);
  caller = callerFor(env.deps, { pat: org.pat }).caller;
  workspaceId = org.workspace.id;
  accountId = (
    await caller.accounts.create({
      name: 'app db',
      integrationType: 'POSTGRES',
      type: 'DATABASE',
      secrets: customer.credentials,
    })
  ).id;
});
afterAll(async () => {
  await worker?.stop();
  await customer?.close();
  await env?.close();
});

/** Runs one request through a workspace whose only integration has `rules` (and these settings). */
async function runWith(rules: unknown[], identifier: string, settings: { maxConcurrency?: number } = {}) {
  const ws = await caller.workspaces.create({ name: `ws ${Math.random()}` });
  await caller.integrations.create({
    workspaceId: ws.id,
    name: 'db',
    type: 'POSTGRES',
    accountId,
    config: { rules },
    ...settings,
  });
  const created = await caller.deletionRequests.createInWorkspace({ workspaceId: ws.id, identifier });
  return waitForRequest(env, created.id);
}

describe('PostgreSQL integration', () => {
  it('discovers tables and columns with nullability, unique keys and length limits', async () => {
    const tables = await caller.integrations.discoverSchema({ accountId });
    const users = tables.find((t) => t.table === 'users')!;
    expect(users.schema).toBe('public');
    expect(users.columns).toEqual(
      expect.arrayContaining([
        { name: 'email', dataType: 'text', nullable: false, unique: true },
        { name: 'alt_email', dataType: 'text', nullable: true },
        { name: 'id', dataType: 'bigint', nullable: false, unique: true },
      ]),
    );
    // A unique index on an expression of one column (case-insensitive addresses) makes it unique too.
    await customer.pool.query(
      `CREATE TABLE IF NOT EXISTS logins (login text, tenant int, note text, handle text, gone boolean);
       CREATE UNIQUE INDEX IF NOT EXISTS logins_lower ON logins (lower(login));
       CREATE UNIQUE INDEX IF NOT EXISTS logins_note ON logins (lower(note || tenant::text));
       CREATE UNIQUE INDEX IF NOT EXISTS logins_handle ON logins (lower(handle)) INCLUDE (tenant) WHERE handle IS NOT NULL AND NOT gone`,
    );
    const logins = (await caller.integrations.discoverSchema({ accountId })).find((t) => t.table === 'logins')!;
    expect(logins.columns).toEqual([
      { name: 'login', dataType: 'text', nullable: true, unique: true },
      { name: 'tenant', dataType: 'integer', nullable: true },
      { name: 'note', dataType: 'text', nullable: true },
      { name: 'handle', dataType: 'text', nullable: true, unique: true },
      { name: 'gone', dataType: 'boolean', nullable: true },
    ]);
    await customer.pool.query(`CREATE TABLE IF NOT EXISTS short_codes (code varchar(12))`);
    const codes = (await caller.integrations.discoverSchema({ accountId })).find((t) => t.table === 'short_codes')!;
    expect(codes.columns).toEqual([{ name: 'code', dataType: 'character varying', nullable: true, maxLength: 12 }]);
    expect(tables.map((t) => t.table)).toEqual(expect.arrayContaining(['orders', 'events', 'Weird "Table"']));
  });

  it('keeps one pool per database between deletions and closes them all on shutdown; the next deletion opens a new one', async () => {
    const rules = [{ table: 'orders', identifierColumns: ['customer_email'], action: 'delete' }];
    await customer.seedUser('pool-1@example.com');
    expect((await runWith(rules, 'pool-1@example.com')).status).toBe('SUCCESS');
    expect(openSessions()).toBe(1);
    await closeSessions();
    expect(openSessions()).toBe(0);
    await customer.seedUser('pool-2@example.com');
    expect((await runWith(rules, 'pool-2@example.com')).status).toBe('SUCCESS');
    expect(openSessions()).toBe(1);
    expect(await customer.count(`SELECT count(*) FROM orders WHERE customer_email LIKE 'pool-%'`)).toBe(0);
  });

  it("keeps the connections of an integration with a maxConcurrency apart, as many as it allows; without one, the worker's CUSTOMER_DB_CONNECTIONS", async () => {
    const rules = [{ table: 'orders', identifierColumns: ['customer_email'], action: 'delete' }];
    await closeSessions();
    await customer.seedUser('limit-1@example.com');
    expect((await runWith(rules, 'limit-1@example.com')).status).toBe('SUCCESS');
    expect(openSessions()).toBe(1);
    // The same account and database: a pool of its own, sized by the limit the step was handed.
    await customer.seedUser('limit-2@example.com');
    expect((await runWith(rules, 'limit-2@example.com', { maxConcurrency: 6 })).status).toBe('SUCCESS');
    expect(openSessions()).toBe(2);
    // A limit of 5 is the size the worker gave the first pool (CUSTOMER_DB_CONNECTIONS): the same pool.
    await customer.seedUser('limit-3@example.com');
    expect((await runWith(rules, 'limit-3@example.com', { maxConcurrency: 5 })).status).toBe('SUCCESS');
    expect(openSessions()).toBe(2);
  });

  it('validates rules against the live schema when saved, naming the field', async () => {
    const attempt = (rules: unknown[]) =>
      caller.integrations.create({ workspaceId, name: 'bad', type: 'POSTGRES', accountId, config: { rules } });
    await expect(attempt([{ table: 'nope', identifierColumns: ['email'], action: 'delete' }])).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringContaining('public.nope does not exist'),
    });
    await expect(attempt([{ table: 'users', identifierColumns: ['mail'], action: 'delete' }])).rejects.toMatchObject({
      message: 'Column mail does not exist',
    });
    await expect(
      attempt([{ table: 'users', identifierColumns: ['email'], action: 'set_null', columns: ['email'] }]),
    ).rejects.toMatchObject({ message: expect.stringContaining('NOT NULL') });
    await expect(
      attempt([{ table: 'orders', identifierColumns: ['customer_email'], action: 'hash', columns: ['total'] }]),
    ).rejects.toMatchObject({ message: expect.stringContaining('only text columns') });
    await expect(
      attempt([{ table: 'users', identifierColumns: ['email'], action: 'soft_delete', softDeleteColumn: 'name' }]),
    ).rejects.toMatchObject({ message: expect.stringContaining('boolean or a timestamp') });
    // Masking gives every row one value: a unique column would refuse the second subject's row.
    await expect(
      attempt([{ table: 'users', identifierColumns: ['email'], action: 'mask', columns: ['email'] }]),
    ).rejects.toMatchObject({
      message:
        'Column email is a primary key or has a unique index of its own, and masking gives every row the same value; hash it instead',
    });
    // Unique together with another column: that column may tell the masked rows apart.
    await customer.pool.query(
      `CREATE TABLE IF NOT EXISTS tenant_handles (tenant int, handle text, UNIQUE (tenant, handle))`,
    );
    expect(
      await attempt([{ table: 'tenant_handles', identifierColumns: ['handle'], action: 'mask', columns: ['handle'] }]),
    ).toMatchObject({ name: 'bad' });
    await customer.pool.query(`CREATE TABLE IF NOT EXISTS short_codes (code varchar(12))`);
    await expect(
      attempt([{ table: 'short_codes', identifierColumns: ['code'], action: 'hash', columns: ['code'] }]),
    ).rejects.toMatchObject({ message: 'Column code holds at most 12 characters; a hash (hmac:…) needs 69' });
    expect(
      await attempt([{ table: 'users', identifierColumns: ['email'], action: 'hash', columns: ['email'] }]),
    ).toMatchObject({ name: 'bad' });
    await expect(attempt([{ table: 'users', identifierColumns: [], action: 'delete' }])).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
  });

  it('dry run counts the rows each rule would change, and changes nothing', async () => {
    await customer.seedUser('dry@example.com', { orders: 3, events: 4 });
    const result = await caller.integrations.dryRun({
      accountId,
      identifier: 'dry@example.com',
      config: {
        rules: [
          { table: 'orders', identifierColumns: ['customer_email'], action: 'delete' },
          {
            table: 'events',
            identifierColumns: ['distinct_id'],
            action: 'soft_delete',
            softDeleteColumn: 'deleted_at',
          },
        ],
      },
    });
    expect(result.rules.map((r) => r.rows)).toEqual([3, 4]);
    expect(await customer.count(`SELECT count(*) FROM orders WHERE customer_email = 'dry@example.com'`)).toBe(3);
  });

  it('set NULL, hash, mask and soft delete, each verified afterwards', async () => {
    await customer.seedUser('multi@example.com', { alt: 'multi-alt@example.com', orders: 1, events: 2 });
    const done = await runWith(
      [
        { table: 'orders', identifierColumns: ['customer_email'], action: 'mask', columns: ['shipping_address'] },
        { table: 'events', identifierColumns: ['distinct_id'], action: 'soft_delete', softDeleteColumn: 'deleted_at' },
        { table: 'users', identifierColumns: ['email'], action: 'set_null', columns: ['alt_email', 'phone'] },
        { table: 'users', identifierColumns: ['email'], action: 'hash', columns: ['name'] },
        { table: 'users', identifierColumns: ['email'], action: 'soft_delete', softDeleteColumn: 'deleted' },
      ],
      'multi@example.com',
    );
    expect(done.status).toBe('SUCCESS');
    const { rows } = await customer.pool.query(
      `SELECT alt_email, phone, name, deleted FROM users WHERE email = 'multi@example.com'`,
    );
    expect(rows[0]).toMatchObject({ alt_email: null, phone: null, deleted: true });
    expect(rows[0].name).toMatch(/^hmac:[0-9a-f]{64}$/);
    expect(
      await customer.count(
        `SELECT count(*) FROM orders WHERE customer_email = 'multi@example.com' AND shipping_address = '[masked]'`,
      ),
    ).toBe(1);
    expect(
      await customer.count(
        `SELECT count(*) FROM events WHERE distinct_id = 'multi@example.com' AND deleted_at IS NOT NULL`,
      ),
    ).toBe(2);
  });

  it('repeating a deletion is harmless (idempotent)', async () => {
    await customer.seedUser('twice@example.com');
    const rules = [
      { table: 'orders', identifierColumns: ['customer_email'], action: 'delete' },
      { table: 'users', identifierColumns: ['email'], action: 'delete' },
    ];
    expect((await runWith(rules, 'twice@example.com')).status).toBe('SUCCESS');
    expect((await runWith(rules, 'twice@example.com')).status).toBe('SUCCESS');
  });

  it('an identifier that looks like SQL only ever matches itself', async () => {
    await customer.seedUser('victim@example.com');
    const before = await customer.count('SELECT count(*) FROM users');
    const hostile = "' OR '1'='1";
    await customer.pool.query(`INSERT INTO users (email) VALUES ($1)`, [hostile]);
    const done = await runWith(
      [
        { table: 'orders', identifierColumns: ['customer_email'], action: 'delete' },
        { table: 'users', identifierColumns: ['email', 'id'], action: 'delete' },
      ],
      hostile,
    );
    expect(done.status).toBe('SUCCESS');
    expect(await customer.count('SELECT count(*) FROM users')).toBe(before);
    expect(await customer.count(`SELECT count(*) FROM users WHERE email = 'victim@example.com'`)).toBe(1);
  });

  it('handles table and column names that need quoting', async () => {
    await customer.pool.query(
      `INSERT INTO "Weird ""Table""" ("E-mail", note) VALUES ('q@example.com', 'x'), ('other@example.com', 'y')`,
    );
    const done = await runWith(
      [{ table: 'Weird "Table"', identifierColumns: ['E-mail'], action: 'delete' }],
      'q@example.com',
    );
    expect(done.status).toBe('SUCCESS');
    expect(await customer.count(`SELECT count(*) FROM "Weird ""Table"""`)).toBe(1);
  });

  it('a foreign key violation fails the whole transaction: nothing is half-deleted', async () => {
    await customer.seedUser('fk@example.com', { orders: 2 });
    // The orders rule satisfies the save-time check but matches none of the subject's orders.
    const done = await runWith(
      [
        { table: 'orders', identifierColumns: ['shipping_address'], action: 'delete' },
        { table: 'users', identifierColumns: ['email'], action: 'delete' },
      ],
      'fk@example.com',
    );
    expect(done.status).toBe('FAILED');
    expect(done.integrationRequests[0]!.lastError).toMatch(/foreign key/);
    expect(done.integrationRequests[0]!.attempts).toBe(1);
    expect(await customer.count(`SELECT count(*) FROM users WHERE email = 'fk@example.com'`)).toBe(1);
  });

  it("an identifier that does not fit a matched column's type is named nowhere: not in the status, the audit trail or the dry run's error", async () => {
    // PostgreSQL's own message quotes the value: `invalid input syntax for type timestamp with time zone: "…"`.
    const identifier = 'not-a-date.subject@example.com';
    const rules = [{ table: 'events', identifierColumns: ['deleted_at'], action: 'delete' }];
    const done = await runWith(rules, identifier);
    expect(done.status).toBe('FAILED');
    const lastError = done.integrationRequests[0]!.lastError ?? '';
    expect(lastError).toMatch(/does not fit a matched column's type \(22007\)/);
    const audit = await env.deps.prisma.auditLog.findMany({ where: { deletionRequestId: done.id } });
    expect(audit.length).toBeGreaterThan(1);
    const recorded = JSON.stringify([lastError, audit.map((entry) => [entry.summary, entry.details])]);
    expect(recorded).toContain('22007');
    expect(recorded).not.toContain(identifier);
    const dryRun = await caller.integrations.dryRun({ accountId, identifier, config: { rules } }).then(
      () => null,
      (error: Error) => error,
    );
    expect(dryRun?.message).toMatch(/does not fit/);
    expect(dryRun?.message).not.toContain(identifier);
  });

  it('rules on different tables run as one statement, so their order does not trip a foreign key', async () => {
    await customer.seedUser('order@example.com', { orders: 2, events: 1 });
    // Users first, although orders reference them: foreign keys are checked at the end of the statement.
    const done = await runWith(
      [
        { table: 'users', identifierColumns: ['email'], action: 'delete' },
        { table: 'orders', identifierColumns: ['customer_email'], action: 'delete' },
        { table: 'events', identifierColumns: ['distinct_id'], action: 'mask', columns: ['kind'] },
      ],
      'order@example.com',
    );
    expect(done.status).toBe('SUCCESS');
    expect(await customer.count(`SELECT count(*) FROM users WHERE email = 'order@example.com'`)).toBe(0);
    expect(await customer.count(`SELECT count(*) FROM orders WHERE customer_email = 'order@example.com'`)).toBe(0);
    expect(
      await customer.count(`SELECT count(*) FROM events WHERE distinct_id = 'order@example.com' AND kind = '[masked]'`),
    ).toBe(1);
    const trail = await caller.deletionRequests.auditTrail({ deletionRequestId: done.id });
    const step = trail.find((e) => e.action === 'deletion.requested')!;
    const details = step.details as {
      exchanges: { kind: string; statement: string }[];
      evidence: { changed: Record<string, number> };
    };
    expect(details.exchanges.filter((x) => x.kind === 'sql').map((x) => x.statement.slice(0, 4))).toEqual([
      'WITH',
      'SELE',
    ]);
    expect(details.evidence.changed).toEqual({
      'delete on public.users': 1,
      'delete on public.orders': 2,
      'mask on public.events': 1,
    });
  });

  it("rules that share a table run one after the other in one transaction, children first, each table's rules in their order", async () => {
    await customer.seedUser('shared@example.com', { orders: 1, events: 0 });
    const done = await runWith(
      [
        { table: 'users', identifierColumns: ['email'], action: 'hash', columns: ['name'] },
        { table: 'users', identifierColumns: ['email'], action: 'set_null', columns: ['phone'] },
        { table: 'orders', identifierColumns: ['customer_email'], action: 'delete' },
      ],
      'shared@example.com',
    );
    expect(done.status).toBe('SUCCESS');
    const trail = await caller.deletionRequests.auditTrail({ deletionRequestId: done.id });
    const step = trail.find((e) => e.action === 'deletion.requested')!;
    const statements = (
      step.details as { exchanges: { kind: string; statement: string; rowCount: number }[] }
    ).exchanges.filter((x) => x.kind === 'sql');
    const head = (statement: string) => statement.split(' ').slice(0, statement.startsWith('DELETE') ? 3 : 2);
    expect(statements.map((x) => [...head(x.statement), x.rowCount])).toEqual([
      ['DELETE', 'FROM', '"public"."orders"', 1],
      ['UPDATE', '"public"."users"', 1],
      ['UPDATE', '"public"."users"', 1],
      ['SELECT', '(SELECT', 1],
    ]);
    expect(statements[1]!.statement).toContain('"name" = CASE');
    expect(statements[2]!.statement).toContain('"phone" = NULL');
  });

  it("falls back to one rule at a time when a trigger of the customer's changes a row another rule changes", async () => {
    await customer.pool.query(`
      CREATE TABLE IF NOT EXISTS profiles (email text PRIMARY KEY, bio text);
      CREATE OR REPLACE FUNCTION forget_profile() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN UPDATE profiles SET bio = 'account closed' WHERE email = OLD.email; RETURN OLD; END $$;
      DROP TRIGGER IF EXISTS users_forget_profile ON users;
      CREATE TRIGGER users_forget_profile BEFORE DELETE ON users FOR EACH ROW EXECUTE FUNCTION forget_profile();
    `);
    try {
      await customer.seedUser('trigger@example.com', { orders: 0, events: 0 });
      await customer.pool.query(`INSERT INTO profiles (email, bio) VALUES ('trigger@example.com', 'likes hiking')`);
      const done = await runWith(
        [
          { table: 'orders', identifierColumns: ['customer_email'], action: 'delete' },
          { table: 'users', identifierColumns: ['email'], action: 'delete' },
          { table: 'profiles', identifierColumns: ['email'], action: 'mask', columns: ['bio'] },
        ],
        'trigger@example.com',
      );
      expect(done.integrationRequests[0]!.lastError).toBeNull();
      expect(done.status).toBe('SUCCESS');
      expect(await customer.count(`SELECT count(*) FROM users WHERE email = 'trigger@example.com'`)).toBe(0);
      expect(
        await customer.count(`SELECT count(*) FROM profiles WHERE email = 'trigger@example.com' AND bio = '[masked]'`),
      ).toBe(1);
      // The trail shows the one statement refused, then the rules one by one, then the verification.
      const trail = await caller.deletionRequests.auditTrail({ deletionRequestId: done.id });
      const step = trail.find((e) => e.action === 'deletion.requested')!;
      const statements = (
        step.details as { exchanges: { kind: string; statement: string; error?: string }[] }
      ).exchanges.filter((x) => x.kind === 'sql');
      expect(statements.map((x) => [x.statement.slice(0, 6), x.error ? 'error' : 'ok'])).toEqual([
        ['WITH r', 'error'],
        ['DELETE', 'ok'],
        ['DELETE', 'ok'],
        ['UPDATE', 'ok'],
        ['SELECT', 'ok'],
      ]);
    } finally {
      await customer.pool.query(`DROP TRIGGER IF EXISTS users_forget_profile ON users`);
    }
  });

  it('a failing rule in a combined statement changes nothing', async () => {
    await customer.seedUser('atomic@example.com', { orders: 1, events: 2 });
    // events are deleted by the first part, but the users part violates the orders foreign key
    // (the orders rule satisfies the save-time check but matches none of the subject's orders).
    const done = await runWith(
      [
        { table: 'events', identifierColumns: ['distinct_id'], action: 'delete' },
        { table: 'orders', identifierColumns: ['shipping_address'], action: 'delete' },
        { table: 'users', identifierColumns: ['email'], action: 'delete' },
      ],
      'atomic@example.com',
    );
    expect(done.status).toBe('FAILED');
    expect(done.integrationRequests[0]!.lastError).toMatch(/foreign key/);
    expect(await customer.count(`SELECT count(*) FROM events WHERE distinct_id = 'atomic@example.com'`)).toBe(2);
    expect(await customer.count(`SELECT count(*) FROM users WHERE email = 'atomic@example.com'`)).toBe(1);
  });

  it('waits for the maintenance window', () => {
    const at = (h: number) => new Date(Date.UTC(2026, 0, 1, h, 30));
    expect(nextWindowOpening({ startHourUtc: 2, endHourUtc: 4 }, at(3))).toBeNull();
    expect(nextWindowOpening({ startHourUtc: 2, endHourUtc: 4 }, at(5))?.toISOString()).toBe(
      '2026-01-02T02:00:00.000Z',
    );
    expect(nextWindowOpening({ startHourUtc: 22, endHourUtc: 2 }, at(23))).toBeNull();
    expect(nextWindowOpening({ startHourUtc: 22, endHourUtc: 2 }, at(12))?.toISOString()).toBe(
      '2026-01-01T22:00:00.000Z',
    );
  });

  it('a request outside the window stays PENDING until it opens', async () => {
    const hour = new Date().getUTCHours();
    const closed = { startHourUtc: (hour + 2) % 24, endHourUtc: (hour + 3) % 24 };
    const ws = await caller.workspaces.create({ name: 'windowed' });
    await caller.integrations.create({
      workspaceId: ws.id,
      name: 'db',
      type: 'POSTGRES',
      accountId,
      config: {
        rules: [
          { table: 'orders', identifierColumns: ['customer_email'], action: 'delete' },
          { table: 'users', identifierColumns: ['email'], action: 'delete' },
        ],
        maintenanceWindow: closed,
      },
    });
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: ws.id,
      identifier: 'later@example.com',
    });
    const pending = await waitForRequest(env, created.id, ['PENDING']);
    expect(pending.integrationRequests[0]).toMatchObject({ status: 'PENDING', attempts: 0 });
    expect(pending.integrationRequests[0]!.nextAttemptAt!.getUTCHours()).toBe(closed.startHourUtc);
  });

  it('test connection reports the server version, or why it cannot connect', async () => {
    const ws = await caller.workspaces.create({ name: 'conn' });
    const integration = await caller.integrations.create({
      workspaceId: ws.id,
      name: 'db',
      type: 'POSTGRES',
      accountId,
      config: { rules: [{ table: 'users', identifierColumns: ['email'], action: 'hash', columns: ['name'] }] },
    });
    expect(await caller.integrations.testConnection({ integrationId: integration.id })).toMatchObject({
      ok: true,
      message: expect.stringContaining('PostgreSQL'),
    });
    await caller.accounts.update({ accountId, secrets: { ...customer.credentials, port: 9 } });
    try {
      expect(await caller.integrations.testConnection({ integrationId: integration.id })).toMatchObject({
        ok: false,
        message: expect.stringContaining('ECONNREFUSED'),
      });
    } finally {
      await caller.accounts.update({ accountId, secrets: customer.credentials });
    }
  });

  it('a window past ASYNC_MAX_AGE_HOURS is still waited for, but a check outside it then FAILS with the reason', async () => {
    const shortEnv = await createTestEnv({ ...FAST_ENGINE_CONFIG, ASYNC_MAX_AGE_HOURS: String(0.4 / 3600) });
    const shortWorker = await startTestWorker(shortEnv);
    try {
      const org = await seedOrganization(shortEnv.deps);
      const { caller: owner } = callerFor(shortEnv.deps, { pat: org.pat });
      const account = await owner.accounts.create({
        name: 'db',
        integrationType: 'POSTGRES',
        type: 'DATABASE',
        secrets: customer.credentials,
      });
      const hour = new Date().getUTCHours();
      await owner.integrations.create({
        workspaceId: org.workspace.id,
        name: 'db',
        type: 'POSTGRES',
        accountId: account.id,
        config: {
          rules: [{ table: 'users', identifierColumns: ['email'], action: 'hash', columns: ['name'] }],
          maintenanceWindow: { startHourUtc: (hour + 2) % 24, endHourUtc: (hour + 3) % 24 },
        },
      });
      const created = await owner.deletionRequests.createInWorkspace({
        workspaceId: org.workspace.id,
        identifier: 'never@example.com',
      });
      await waitForRequest(shortEnv, created.id, ['PENDING']);
      // Past the limit (and the second after it at which a vendor's long wait is cut), the window's
      // wait is kept: the deletion would run when it opens.
      await new Promise((r) => setTimeout(r, 2_000));
      const waiting = await owner.deletionRequests.get({ deletionRequestId: created.id });
      expect(waiting.integrationRequests?.[0]).toMatchObject({ status: 'PENDING', attempts: 0 });
      expect(new Date(waiting.integrationRequests![0]!.nextAttemptAt!).getUTCHours()).toBe((hour + 2) % 24);
      // Checked by hand while the window is still closed, it has waited too long.
      await owner.deletionRequests.checkStatusNow({
        deletionRequestId: created.id,
        integrationRequestId: created.integrationRequests![0]!.id,
      });
      const done = await waitForRequest(shortEnv, created.id);
      expect(done.integrationRequests[0]).toMatchObject({
        status: 'FAILED',
        attempts: 0,
        lastError: expect.stringContaining('Still waiting after'),
      });
    } finally {
      await shortWorker.stop();
      await shortEnv.close();
    }
  });

  it('reports a wrong password as a clear failure', async () => {
    const bad = await caller.accounts.create({
      name: 'bad',
      integrationType: 'POSTGRES',
      type: 'DATABASE',
      secrets: { ...customer.credentials, password: 'wrong' },
    });
    await expect(caller.integrations.discoverSchema({ accountId: bad.id })).rejects.toMatchObject({
      code: 'UNPROCESSABLE_CONTENT',
      message: expect.stringMatching(
        new RegExp(`^${customer.credentials.host}:\\d+: .*password authentication failed`),
      ),
    });
  });
});
