import { describe, expect, it } from 'vitest';
import type { ForeignKey } from '@shared/integrations/foreign-keys';
import type { DiscoveredTable } from '../types';
import { blockingForeignKeyIssues, foreignKeyOrder } from './foreign-keys';
import { actionStatement, pendingCountStatement, type SqlRule } from './rules';
import { postgresDialect } from '../postgres/sql';
import { mysqlDialect } from '../mysql/dialect';

const key = (name: string, column: string, table: string, onDelete: ForeignKey['onDelete']): ForeignKey => ({
  name,
  columns: [column],
  references: { schema: 's', table, columns: ['id'] },
  onDelete,
});
const table = (name: string, foreignKeys: ForeignKey[] = []): DiscoveredTable => ({
  schema: 's',
  table: name,
  columns: [{ name: 'id', dataType: 'bigint', nullable: false }],
  foreignKeys,
});
const rule = (name: string, extra: Partial<SqlRule> = {}): SqlRule => ({
  schema: 's',
  table: name,
  identifierColumns: ['email'],
  match: 'any',
  action: 'delete',
  columns: [],
  ...extra,
});
const through = (column: string, to: string) => [
  { columns: [column], references: { schema: 's', table: to, columns: ['id'] } },
];

describe('the save-time foreign key check', () => {
  // users ← orders (CASCADE) ← order_items (RESTRICT); users.referred_by → users (NO ACTION).
  const tables = [
    table('users', [key('users_referrer', 'referred_by', 'users', 'NO ACTION')]),
    table('orders', [key('orders_user', 'user_id', 'users', 'CASCADE')]),
    table('order_items', [key('items_order', 'order_id', 'orders', 'RESTRICT')]),
  ];

  it('follows ON DELETE CASCADE to the keys that refuse the cascaded deletion', () => {
    const referrer = rule('users', {
      via: through('referred_by', 'users'),
      action: 'set_null',
      columns: ['referred_by'],
    });
    const issues = blockingForeignKeyIssues([rule('users'), referrer], tables);
    expect(issues).toEqual([
      {
        path: ['rules', 0, 'table'],
        message: expect.stringMatching(
          /^Foreign key items_order \(s\.order_items\.order_id → s\.orders, ON DELETE RESTRICT\)/,
        ),
      },
    ]);
    expect(blockingForeignKeyIssues([rule('users'), referrer, rule('order_items')], tables)).toEqual([]);
  });

  it('counts for a self-reference only a rule reached through that key, and says when the table is kept', () => {
    const issues = blockingForeignKeyIssues([rule('users'), rule('order_items')], tables, [
      { schema: 's', table: 'users', reason: 'audit' },
    ]);
    expect(issues.map((i) => i.message)).toEqual([expect.stringContaining('Foreign key users_referrer')]);
    expect(issues[0]!.message).toContain('s.users is marked as kept');
  });

  it("orders rules children first, and a table's rules through longer chains before its own", () => {
    const rules = [
      rule('users'),
      rule('users', { via: through('referred_by', 'users'), action: 'set_null', columns: ['referred_by'] }),
      rule('orders', { via: through('user_id', 'users') }),
      rule('order_items', { via: [...through('order_id', 'orders'), ...through('user_id', 'users')] }),
    ].map((r) => ({ rule: r }));
    expect(foreignKeyOrder(rules, tables).map(({ rule: r }) => `${r.table}/${r.via?.length ?? 0}`)).toEqual([
      'order_items/2',
      'orders/1',
      'users/1',
      'users/0',
    ]);
  });
});

describe('rules matched through a key chain', () => {
  const text = { dataType: 'text', nullable: false };
  const chainRule = rule('order"items', {
    via: [
      { columns: ['order_id', 'line'], references: { schema: 's', table: 'orders', columns: ['id', 'line'] } },
      ...through('user_id', 'users'),
    ],
  });
  const columns = Object.assign(new Map([['order_id', text]]), { anchor: new Map([['email', text]]) });

  it('binds the identifier once, on the last table, and quotes every name (PostgreSQL)', () => {
    const statement = actionStatement(postgresDialect, chainRule, columns, "x' OR 1=1 --", null)!;
    expect(statement).toEqual({
      text: 'DELETE FROM "s"."order""items" WHERE (("order_id", "line") IN (SELECT k1."id", k1."line" FROM "s"."orders" k1 WHERE k1."user_id" IN (SELECT k2."id" FROM "s"."users" k2 WHERE (k2."email" = $1))))',
      values: ["x' OR 1=1 --"],
    });
  });

  it('materializes the outer subquery on MySQL, which refuses one on the table it changes', () => {
    const statement = pendingCountStatement(mysqlDialect, chainRule, columns, 'a@example.com')!;
    expect(statement.text).toMatch(
      /^SELECT COUNT\(\*\) AS n FROM `s`\.`order"items` WHERE \(\(`order_id`, `line`\) IN \(SELECT \* FROM \(SELECT k1\.`id`, k1\.`line` FROM `s`\.`orders` k1 WHERE k1\.`user_id` IN \(SELECT k2\.`id` FROM `s`\.`users` k2 WHERE /,
    );
    expect(statement.text).not.toContain('a@example.com');
    expect(statement.values).toEqual(['a@example.com', 'a@example.com']);
  });
});
