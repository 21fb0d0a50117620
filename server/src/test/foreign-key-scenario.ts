import { expect, it } from 'vitest';
import type { PostgresRule } from '@shared/integrations/postgres';
import { waitForRequest } from './engine';
import type { callerFor, TestEnv } from './harness';

/**
 * The schema both SQL dialects build for the foreign-key scenario, with keys named alike:
 * users ← orders (RESTRICT) ← order_items (NO ACTION, composite primary key) ← shipments
 * (composite key, SET NULL); users ← sessions (CASCADE); users.referred_by → users (NO ACTION).
 */
export interface ForeignKeyDatabase {
  type: 'POSTGRES' | 'MYSQL';
  /** The PostgreSQL schema or MySQL database the tables are in. */
  schema: string;
  accountId: string;
  /** Inserts a row; answers its `id` (0 for tables without one). */
  insert(table: string, row: Record<string, string | number | null>): Promise<number>;
  /** A count, with `?` placeholders. */
  count(sql: string, values?: (string | number)[]): Promise<number>;
}

type Caller = ReturnType<typeof callerFor>['caller'];

const SUBJECT = 'jane.fk@example.com';
/** Rows that look like the subject's and must stay: other case, a trailing space, another domain. */
const LOOK_ALIKES = ['JANE.FK@example.com', 'jane.fk@example.com ', 'jane.fk@example.co'];

async function seedPerson(db: ForeignKeyDatabase, email: string, referredBy: number | null = null) {
  const user = await db.insert('users', { email, referred_by: referredBy });
  for (let o = 0; o < 2; o++) {
    const order = await db.insert('orders', { user_id: user, note: `order of ${email}` });
    for (let line = 1; line <= 3; line++) await db.insert('order_items', { order_id: order, line, sku: `sku-${line}` });
    if (o === 0) await db.insert('shipments', { order_id: order, line: 1, carrier: 'post' });
  }
  for (let s = 0; s < 2; s++) await db.insert('sessions', { user_id: user, token: `t-${email}-${s}` });
  return user;
}

const step = (trail: { action: string; details: unknown }[]) =>
  trail.find((e) => e.action === 'deletion.requested')!.details as {
    exchanges: { kind: string; statement: string }[];
    evidence: { changed: Record<string, number>; remaining: Record<string, number> };
  };

/** The graph, the save-time refusal, the dry run and one deletion, on a real database of either dialect. */
export function foreignKeyScenario(
  setup: () => { env: TestEnv; caller: Caller; workspaceId: string; db: ForeignKeyDatabase },
) {
  const root = (db: ForeignKeyDatabase): PostgresRule => ({
    schema: db.schema,
    table: 'users',
    identifierColumns: ['email'],
    match: 'any',
    action: 'delete',
    columns: [],
  });
  /** The chosen rule and one rule per proposal of the graph procedure. */
  async function proposedConfig() {
    const { caller, db } = setup();
    const graph = await caller.integrations.foreignKeyGraph({
      accountId: db.accountId,
      schema: db.schema,
      table: 'users',
    });
    const rules = graph.proposals
      .filter((p) => p.action !== 'keep')
      .map((p) => ({ ...root(db), table: p.table, via: p.via, action: p.action, columns: p.columns }));
    return { graph, rules: [root(db), ...rules] };
  }

  it('proposes every referencing table, recursively, with each key, its ON DELETE behaviour and a rule', async () => {
    const { graph } = await proposedConfig();
    const { db } = setup();
    expect(
      graph.referencing.map((r) => ({
        table: r.table,
        key: r.foreignKey.name,
        onDelete: r.onDelete,
        cycle: r.cycle,
        through: r.via.map((s) => s.references.table),
      })),
    ).toEqual(
      expect.arrayContaining([
        { table: 'orders', key: 'orders_user', onDelete: 'RESTRICT', cycle: false, through: ['users'] },
        { table: 'sessions', key: 'sessions_user', onDelete: 'CASCADE', cycle: false, through: ['users'] },
        {
          table: 'users',
          key: 'users_referrer',
          onDelete: db.type === 'MYSQL' ? 'RESTRICT' : 'NO ACTION',
          cycle: true,
          through: ['users'],
        },
        {
          table: 'order_items',
          key: 'items_order',
          onDelete: db.type === 'MYSQL' ? 'RESTRICT' : 'NO ACTION',
          cycle: false,
          through: ['orders', 'users'],
        },
        {
          table: 'shipments',
          key: 'shipments_item',
          onDelete: 'SET NULL',
          cycle: false,
          through: ['order_items', 'orders', 'users'],
        },
      ]),
    );
    expect(graph.referencing).toHaveLength(5);
    const shipments = graph.referencing.find((r) => r.table === 'shipments')!;
    expect(shipments.foreignKey).toMatchObject({
      columns: ['order_id', 'line'],
      references: { columns: ['order_id', 'line'] },
    });
    expect(Object.fromEntries(graph.proposals.map((p) => [p.table, [p.action, p.columns]]))).toEqual({
      orders: ['delete', []],
      sessions: ['delete', []],
      users: ['set_null', ['referred_by']],
      order_items: ['delete', []],
      shipments: ['set_null', ['order_id', 'line']],
    });
  });

  it('refuses at save a rule a foreign key would block, naming the key, its table and its columns', async () => {
    const { caller, workspaceId, db } = setup();
    const { rules } = await proposedConfig();
    const attempt = (list: unknown[]) =>
      caller.integrations.create({
        workspaceId,
        name: 'blocked',
        type: db.type,
        accountId: db.accountId,
        config: { rules: list },
      });
    await expect(attempt([root(db)])).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(
        new RegExp(
          `^Foreign key orders_user \\(${db.schema}\\.orders\\.user_id → ${db.schema}\\.users, ON DELETE RESTRICT\\) blocks`,
        ),
      ),
    });
    const without = (table: string) => rules.filter((r) => r.table !== table || (table === 'users' && !r.via));
    await expect(attempt(without('order_items'))).rejects.toMatchObject({
      message: expect.stringContaining(
        `Foreign key items_order (${db.schema}.order_items.order_id → ${db.schema}.orders`,
      ),
    });
    // Deleting the subject does nothing for the users who name it as their referrer.
    await expect(attempt(without('users'))).rejects.toMatchObject({
      message: expect.stringContaining(
        `Foreign key users_referrer (${db.schema}.users.referred_by → ${db.schema}.users`,
      ),
    });
    // CASCADE and SET NULL keys need no rule: the database follows them.
    expect(await attempt(without('sessions').filter((r) => r.table !== 'shipments'))).toMatchObject({
      name: 'blocked',
    });
  });

  it('dry-run counts per table match what one request deletes, children first, in one transaction; look-alikes stay', async () => {
    const { env, caller, db } = setup();
    const subject = await seedPerson(db, SUBJECT);
    await seedPerson(db, 'bob.fk@example.com', subject);
    for (const email of LOOK_ALIKES) await seedPerson(db, email);
    const { rules } = await proposedConfig();
    const before = await Promise.all(
      ['users', 'orders', 'order_items', 'sessions'].map((t) => db.count(`SELECT count(*) FROM ${t}`)),
    );

    const dryRun = await caller.integrations.dryRun({
      accountId: db.accountId,
      identifier: SUBJECT,
      config: { rules },
    });
    const counted = dryRun.rules.map((r) => [r.table.split('.')[1], r.action, r.rows]);
    expect(counted).toEqual([
      ['shipments', 'set_null', 1],
      ['order_items', 'delete', 6],
      ['orders', 'delete', 2],
      ['sessions', 'delete', 2],
      ['users', 'set_null', 1],
      ['users', 'delete', 1],
    ]);

    const ws = await caller.workspaces.create({ name: `fk ${Math.random()}` });
    await caller.integrations.create({
      workspaceId: ws.id,
      name: 'db',
      type: db.type,
      accountId: db.accountId,
      config: { rules },
    });
    const created = await caller.deletionRequests.createInWorkspace({ workspaceId: ws.id, identifier: SUBJECT });
    const done = await waitForRequest(env, created.id);
    expect(done.status).toBe('SUCCESS');
    const recorded = step(await caller.deletionRequests.auditTrail({ deletionRequestId: done.id }));
    expect(recorded.evidence.changed).toEqual(Object.fromEntries(dryRun.rules.map((r) => [r.rule, r.rows])));
    expect(Object.values(recorded.evidence.remaining).every((n) => n === 0)).toBe(true);
    // Children first: each statement's table in the dry run's order, then the one verification.
    const tables = recorded.exchanges
      .filter((e) => /^(DELETE|UPDATE)/.test(e.statement))
      .map((e) => /^(?:DELETE FROM|UPDATE) \S+?\.["`]?(\w+)/.exec(e.statement)![1]);
    expect(tables).toEqual(['shipments', 'order_items', 'orders', 'sessions', 'users', 'users']);
    expect(JSON.stringify(recorded)).not.toContain('jane.fk');

    const after = await Promise.all(
      ['users', 'orders', 'order_items', 'sessions'].map((t) => db.count(`SELECT count(*) FROM ${t}`)),
    );
    expect(after).toEqual([before[0]! - 1, before[1]! - 2, before[2]! - 6, before[3]! - 2]);
    expect(await db.count(`SELECT count(*) FROM users WHERE id = ?`, [subject])).toBe(0);
    expect(
      await db.count(`SELECT count(*) FROM users WHERE email = ? AND referred_by IS NULL`, ['bob.fk@example.com']),
    ).toBe(1);
    expect(await db.count(`SELECT count(*) FROM shipments WHERE order_id IS NULL AND line IS NULL`)).toBe(1);
    // Every look-alike keeps its user, orders, items, shipment and sessions.
    for (const email of LOOK_ALIKES) {
      const id = await db.count(
        `SELECT max(id) FROM users WHERE email = ? AND ${db.type === 'MYSQL' ? 'BINARY email = BINARY ?' : 'email = ?'}`,
        [email, email],
      );
      expect(id).toBeGreaterThan(0);
      expect(await db.count(`SELECT count(*) FROM orders WHERE user_id = ?`, [id])).toBe(2);
      expect(
        await db.count(`SELECT count(*) FROM order_items i JOIN orders o ON o.id = i.order_id WHERE o.user_id = ?`, [
          id,
        ]),
      ).toBe(6);
      expect(await db.count(`SELECT count(*) FROM sessions WHERE user_id = ?`, [id])).toBe(2);
      expect(
        await db.count(`SELECT count(*) FROM shipments s JOIN orders o ON o.id = s.order_id WHERE o.user_id = ?`, [id]),
      ).toBe(1);
    }
  });
}
