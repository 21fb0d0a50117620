import { describe, expect, it } from 'vitest';
import { timeTravelNotice, type SnowflakeSchema } from './schema';

const schema = (entries: [string, number, boolean][]): SnowflakeSchema => ({
  tables: [],
  retention: new Map(entries.map(([table, days, failSafe]) => [table, { days, failSafe }])),
});
const rule = (name: string) => ({ schema: name.split('.')[0]!, table: name.split('.')[1]! });

describe('the Time Travel notice', () => {
  it('names the table whose history lasts longest, counting Fail-safe for permanent tables only', () => {
    const notice = timeTravelNotice(
      schema([
        ['PUBLIC.STAGING', 5, false],
        ['PUBLIC.USERS', 1, true],
      ]),
      [rule('PUBLIC.STAGING'), rule('PUBLIC.USERS'), rule('PUBLIC.USERS')],
    );
    // 1 + 7 days (permanent) outlasts 5 + 0 days (transient).
    expect(notice).toMatchObject({
      retentionDays: { 'PUBLIC.STAGING': 5, 'PUBLIC.USERS': 1 },
      longestDays: 1,
      failSafeDays: 7,
    });
    expect(notice.notice).toContain('for up to 1 day(s) (longest: PUBLIC.USERS), then in Fail-safe for 7 more days');
    expect(notice.notice).toContain('after 8 day(s) nothing of them remains');
  });

  it('says no Fail-safe when every changed table is transient', () => {
    const notice = timeTravelNotice(schema([['PUBLIC.STAGING', 0, false]]), [rule('PUBLIC.STAGING')]);
    expect(notice).toMatchObject({ longestDays: 0, failSafeDays: 0 });
    expect(notice.notice).not.toContain('Fail-safe');
  });
});
