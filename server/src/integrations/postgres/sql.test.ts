import { describe, expect, it } from 'vitest';
import { postgresRuleSchema } from '@shared/integrations/postgres';
import { actionStatement, matchClause, pendingCountStatement, quoteIdent, type TableColumns } from './sql';

const columns: TableColumns = new Map([
  ['id', { dataType: 'bigint', nullable: false }],
  ['email', { dataType: 'text', nullable: false }],
  ['note', { dataType: 'text', nullable: true }],
  ['deleted', { dataType: 'boolean', nullable: false }],
]);
const rule = (r: object) => postgresRuleSchema.parse({ table: 'users', ...r });

describe('PostgreSQL rule statements', () => {
  it('quotes identifiers, doubling embedded quotes', () => {
    expect(quoteIdent('we"ird')).toBe('"we""ird"');
    expect(quoteIdent('users; DROP TABLE x')).toBe('"users; DROP TABLE x"');
  });

  it('passes the identifier only as a parameter, whatever it contains', () => {
    const hostile = "x' OR '1'='1'; DROP TABLE users; --";
    const statement = actionStatement(rule({ identifierColumns: ['email'], action: 'delete' }), columns, hostile)!;
    expect(statement.text).toBe('DELETE FROM "public"."users" WHERE ("email" = $1)');
    expect(statement.values).toEqual([hostile]);
  });

  it('skips numeric columns a non-numeric identifier cannot equal', () => {
    const any = matchClause(rule({ identifierColumns: ['id', 'email'], action: 'delete' }), columns, 'a@b.c')!;
    expect(any.text).toBe('("email" = $1)');
    expect(matchClause(rule({ identifierColumns: ['id', 'email'], match: 'all', action: 'delete' }), columns, 'a@b.c')).toBeNull();
    expect(matchClause(rule({ identifierColumns: ['id', 'email'], action: 'delete' }), columns, '42')!.text).toBe('("id" = $1 OR "email" = $2)');
  });

  it('builds each action with its verification query', () => {
    expect(actionStatement(rule({ identifierColumns: ['email'], action: 'set_null', columns: ['note'] }), columns, 'a')!.text).toBe(
      'UPDATE "public"."users" SET "note" = NULL WHERE ("email" = $1) AND ("note" IS NOT NULL)',
    );
    expect(actionStatement(rule({ identifierColumns: ['email'], action: 'soft_delete', softDeleteColumn: 'deleted' }), columns, 'a')!.text).toBe(
      'UPDATE "public"."users" SET "deleted" = TRUE WHERE ("email" = $1) AND "deleted" IS NOT TRUE',
    );
    expect(pendingCountStatement(rule({ identifierColumns: ['email'], action: 'mask', columns: ['note'] }), columns, 'a')!.text).toBe(
      `SELECT count(*)::int AS n FROM "public"."users" WHERE ("email" = $1) AND (("note" IS NOT NULL AND "note"::text <> '[masked]'))`,
    );
  });
});
