import { postgresConfigSchema } from '@shared/integrations/postgres';
import { describe, expect, it } from 'vitest';
import {
  describeRule,
  eligibleColumns,
  moveItem,
  newRule,
  normalizeRule,
  softDeleteColumns,
  type DiscoveredTable,
} from './postgres-rules';

const users: DiscoveredTable = {
  schema: 'public',
  table: 'users',
  columns: [
    { name: 'id', dataType: 'integer', nullable: false },
    { name: 'email', dataType: 'text', nullable: false },
    { name: 'phone', dataType: 'character varying', nullable: true },
    { name: 'handle', dataType: 'character varying', nullable: true, unique: true, maxLength: 64 },
    { name: 'code', dataType: 'character varying', nullable: true, maxLength: 6 },
    { name: 'age', dataType: 'integer', nullable: true },
    { name: 'deleted', dataType: 'boolean', nullable: false },
    { name: 'deleted_at', dataType: 'timestamp with time zone', nullable: true },
  ],
};

describe('the PostgreSQL rule builder', () => {
  it('offers only nullable columns for set_null and only text columns the value fits for hash and mask', () => {
    expect(eligibleColumns('set_null', users.columns).map((c) => c.name)).toEqual([
      'phone',
      'handle',
      'code',
      'age',
      'deleted_at',
    ]);
    // A hash needs 71 characters; the mask needs 8, and a column outside any unique key.
    expect(eligibleColumns('hash', users.columns).map((c) => c.name)).toEqual(['email', 'phone']);
    expect(eligibleColumns('mask', users.columns).map((c) => c.name)).toEqual(['email', 'phone']);
    expect(eligibleColumns('delete', users.columns)).toEqual([]);
    expect(softDeleteColumns(users.columns).map((c) => c.name)).toEqual(['deleted', 'deleted_at']);
  });

  it('guesses the identifier column and produces a rule the server schema accepts', () => {
    const rule = newRule(users);
    expect(rule).toMatchObject({ schema: 'public', table: 'users', identifierColumns: ['email'], action: 'delete' });
    expect(postgresConfigSchema.safeParse({ rules: [rule] }).success).toBe(true);
  });

  it('drops columns that no longer fit after the action changes', () => {
    const hashing = { ...newRule(users), action: 'hash' as const, columns: ['email', 'phone'] };
    const nulling = normalizeRule({ ...hashing, action: 'set_null' }, users);
    expect(nulling.columns).toEqual(['phone']);
    expect(
      normalizeRule({ ...hashing, action: 'soft_delete', softDeleteColumn: 'email' }, users).softDeleteColumn,
    ).toBeUndefined();
  });

  it('reads each rule as a sentence and reorders rules', () => {
    expect(describeRule({ ...newRule(users), identifierColumns: ['email', 'phone'], match: 'all' })).toBe(
      'Delete rows of public.users where email and phone = identifier',
    );
    expect(moveItem(['users', 'orders'], 1, 0)).toEqual(['orders', 'users']);
    expect(moveItem(['users', 'orders'], 0, -1)).toEqual(['users', 'orders']);
  });
});
