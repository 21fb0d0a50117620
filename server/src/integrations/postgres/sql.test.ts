import { describe, expect, it } from 'vitest';
import { postgresRuleSchema } from '@shared/integrations/postgres';
import {
  actionStatement,
  combinedActionStatement,
  matchClause,
  pendingCountStatement,
  quoteIdent,
  rulesOnDistinctTables,
  type TableColumns,
} from './sql';
import { hmacPads } from '../sql/keyed-hash';
import { PermanentError } from '../types';

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
    const statement = actionStatement(
      rule({ identifierColumns: ['email'], action: 'delete' }),
      columns,
      hostile,
      null,
    )!;
    expect(statement.text).toBe('DELETE FROM "public"."users" WHERE ("email" = $1)');
    expect(statement.values).toEqual([hostile]);
  });

  it("combines rules on distinct tables into one statement, numbering each part's parameters after the last", () => {
    const hostile = "a'); DROP TABLE users; --";
    const rules = [
      { rule: rule({ identifierColumns: ['email'], action: 'delete' }), columns },
      { rule: rule({ table: 'orders', identifierColumns: ['id', 'email'], action: 'delete' }), columns },
      {
        rule: rule({
          table: 'events',
          identifierColumns: ['email', 'note'],
          match: 'all',
          action: 'set_null',
          columns: ['note'],
        }),
        columns,
      },
    ];
    expect(rulesOnDistinctTables(rules)).toBe(true);
    expect(rulesOnDistinctTables([...rules, rules[0]!])).toBe(false);
    const statement = combinedActionStatement(rules, hostile, null);
    expect(statement.text).toBe(
      'WITH r0 AS (DELETE FROM "public"."users" WHERE ("email" = $1) RETURNING 1), ' +
        'r1 AS (DELETE FROM "public"."orders" WHERE ("email" = $2) RETURNING 1), ' +
        'r2 AS (UPDATE "public"."events" SET "note" = NULL WHERE ("email" = $3 AND "note" = $4) AND ("note" IS NOT NULL) RETURNING 1) ' +
        'SELECT (SELECT count(*) FROM r0)::int AS r0, (SELECT count(*) FROM r1)::int AS r1, (SELECT count(*) FROM r2)::int AS r2',
    );
    expect(statement.values).toEqual([hostile, hostile, hostile, hostile]);
    // A rule that cannot match (a numeric column, a non-numeric identifier) counts 0 and runs nothing.
    const none = combinedActionStatement(
      [{ rule: rule({ identifierColumns: ['id'], action: 'delete' }), columns }],
      'a@b.c',
      null,
    );
    expect(none).toEqual({ text: 'SELECT 0 AS r0', values: [] });
  });

  it('skips numeric columns a non-numeric identifier cannot equal', () => {
    const any = matchClause(rule({ identifierColumns: ['id', 'email'], action: 'delete' }), columns, 'a@b.c')!;
    expect(any.text).toBe('("email" = $1)');
    expect(
      matchClause(rule({ identifierColumns: ['id', 'email'], match: 'all', action: 'delete' }), columns, 'a@b.c'),
    ).toBeNull();
    expect(matchClause(rule({ identifierColumns: ['id', 'email'], action: 'delete' }), columns, '42')!.text).toBe(
      '("id" = $1 OR "email" = $2)',
    );
  });

  it('compares a numeric column only with a number written one way, that fits the column', () => {
    const narrow: TableColumns = new Map([
      ['id', { dataType: 'integer', nullable: false }],
      ['amount', { dataType: 'numeric', nullable: true }],
      ['email', { dataType: 'text', nullable: false }],
    ]);
    const clause = (identifier: string) =>
      matchClause(rule({ identifierColumns: ['id', 'amount', 'email'], action: 'delete' }), narrow, identifier)!.text;
    // '007' = 7 and '1e3' = 1000 hold in a numeric column: another subject's row. Text only.
    for (const identifier of ['007', '7.0', '1e3', '-0.50']) expect(clause(identifier)).toBe('("email" = $1)');
    // A phone number beyond integer's range, or a fraction, would fail the whole statement in the integer column.
    expect(clause('5551234567')).toBe('("amount" = $1 OR "email" = $2)');
    expect(clause('1.5')).toBe('("amount" = $1 OR "email" = $2)');
    expect(clause('-2147483648')).toBe('("id" = $1 OR "amount" = $2 OR "email" = $3)');
    expect(clause('42')).toBe('("id" = $1 OR "amount" = $2 OR "email" = $3)');
  });

  it('builds each action with its verification query', () => {
    expect(
      actionStatement(
        rule({ identifierColumns: ['email'], action: 'set_null', columns: ['note'] }),
        columns,
        'a',
        null,
      )!.text,
    ).toBe('UPDATE "public"."users" SET "note" = NULL WHERE ("email" = $1) AND ("note" IS NOT NULL)');
    expect(
      actionStatement(
        rule({ identifierColumns: ['email'], action: 'soft_delete', softDeleteColumn: 'deleted' }),
        columns,
        'a',
        null,
      )!.text,
    ).toBe('UPDATE "public"."users" SET "deleted" = TRUE WHERE ("email" = $1) AND "deleted" IS NOT TRUE');
    expect(
      pendingCountStatement(rule({ identifierColumns: ['email'], action: 'mask', columns: ['note'] }), columns, 'a')!
        .text,
    ).toBe(
      `SELECT count(*)::int AS n FROM "public"."users" WHERE ("email" = $1) AND (("note" IS NOT NULL AND "note"::text <> '[masked]'))`,
    );
  });

  it("hashes with the key's padded forms as parameters numbered before the identifier's, never in the text", () => {
    const key = Buffer.alloc(32, 0xab);
    const pads = hmacPads(key);
    const hashing = rule({ identifierColumns: ['email'], action: 'hash', columns: ['note', 'email'] });
    const statement = actionStatement(hashing, columns, 'a@b.c', key, 2)!;
    expect(statement.values).toEqual([pads.outer, pads.inner, pads.outer, pads.inner, 'a@b.c']);
    expect(statement.text).toContain(
      `"note" = CASE WHEN "note" IS NULL OR ("note"::text LIKE 'hmac:%' OR "note"::text LIKE 'sha256:%') THEN "note" ELSE 'hmac:' || encode(sha256(decode($3, 'hex') || sha256(decode($4, 'hex') || convert_to("note"::text, 'UTF8'))), 'hex') END`,
    );
    expect(statement.text).toMatch(/WHERE \("email" = \$7\) AND /);
    for (const form of [key.toString('hex'), pads.inner, pads.outer]) expect(statement.text).not.toContain(form);
    // Without a key, a hash rule refuses to run rather than write an unkeyed hash.
    expect(() => actionStatement(hashing, columns, 'a@b.c', null)).toThrow(PermanentError);
    expect(() => actionStatement(hashing, columns, 'a@b.c', null)).toThrow(/no hash key/);
  });
});
