import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ForeignKey } from '@shared/integrations/foreign-keys';
import type { DiscoveredTable, RuleDraft } from '../../lib/postgres-rules';
import { ForeignKeyPanel } from './foreign-key-panel';

const key = (name: string, columns: string[], table: string, onDelete: ForeignKey['onDelete']): ForeignKey => ({
  name,
  columns,
  references: { schema: 'app', table, columns: ['id'] },
  onDelete,
});
const column = (name: string, nullable = false) => ({ name, dataType: 'bigint', nullable });
const TABLES: DiscoveredTable[] = [
  {
    schema: 'app',
    table: 'users',
    columns: [column('id'), { name: 'email', dataType: 'text', nullable: false }, column('referred_by', true)],
    foreignKeys: [key('users_referrer', ['referred_by'], 'users', 'NO ACTION')],
  },
  {
    schema: 'app',
    table: 'orders',
    columns: [column('id'), column('user_id')],
    foreignKeys: [key('orders_user', ['user_id'], 'users', 'RESTRICT')],
  },
  {
    schema: 'app',
    table: 'order_items',
    columns: [column('order_id')],
    foreignKeys: [key('items_order', ['order_id'], 'orders', 'CASCADE')],
  },
];
const RULE: RuleDraft = {
  schema: 'app',
  table: 'users',
  identifierColumns: ['email'],
  match: 'any',
  action: 'delete',
  columns: [],
};

const render = (rules: RuleDraft[]) =>
  renderToStaticMarkup(
    <ForeignKeyPanel rule={RULE} ruleNumber={1} tables={TABLES} rules={rules} kept={[]} onAdd={() => {}} />,
  );

describe('ForeignKeyPanel', () => {
  it('shows every referencing table, recursively, with its key, ON DELETE behaviour and proposed handling', () => {
    const html = render([RULE]);
    expect(html).toContain('3 foreign keys lead to app.users');
    expect(html).toMatch(/orders_user<\/code> \(user_id → app\.users\.id\), ON DELETE RESTRICT/);
    expect(html).toMatch(/items_order<\/code> \(order_id → app\.orders\.id\), ON DELETE CASCADE/);
    expect(html).toContain('Path: app.order_items → app.orders → app.users');
    // The self-reference is shown once and its link cleared, not followed round again.
    expect(html).toContain('points back into the graph');
    expect(html).toMatch(/<option value="set_null" selected="">Set the key to NULL/);
    expect(html).toContain('Add 3 rules for the referencing tables');
  });

  it('counts a table reached through the same key chain as handled', () => {
    const orders: RuleDraft = {
      ...RULE,
      table: 'orders',
      via: [
        {
          foreignKey: 'orders_user',
          columns: ['user_id'],
          references: { schema: 'app', table: 'users', columns: ['id'] },
        },
      ],
    };
    expect(render([RULE, orders])).toContain('Add 2 rules for the referencing tables');
  });
});
