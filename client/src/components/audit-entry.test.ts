import { describe, expect, it } from 'vitest';
import { sqlText } from './audit-entry';

describe('SQL in the audit trail', () => {
  it('reads recorded statements as SQL with rows and time as comments', () => {
    const text = sqlText([
      {
        kind: 'sql',
        statement: 'DELETE FROM "public"."orders" WHERE ("user_email" = $1)',
        rowCount: 2,
        durationMs: 10,
      },
      {
        kind: 'sql',
        statement: 'DELETE FROM "public"."users" WHERE ("email" = $1)',
        error: 'violates foreign key',
        durationMs: 1,
      },
    ]);
    expect(text).toBe(
      'DELETE FROM "public"."orders" WHERE ("user_email" = $1);\n-- 2 row(s), 10 ms\n\nDELETE FROM "public"."users" WHERE ("email" = $1);\n-- 1 ms, error: violates foreign key',
    );
  });

  it('leaves HTTP exchanges and mixed lists to the JSON view', () => {
    expect(sqlText([{ kind: 'http', request: {} }])).toBeNull();
    expect(sqlText([])).toBeNull();
    expect(sqlText('text')).toBeNull();
  });
});
