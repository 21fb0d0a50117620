import { describe, expect, it } from 'vitest';
import { collectPages } from './saas';

describe('collectPages (the SaaS searches that read every page)', () => {
  it('reads page after page until there is no next one, keeping each id once', async () => {
    const cursors: (number | undefined)[] = [];
    const ids = await collectPages<number>(5, 'too many', async (cursor) => {
      cursors.push(cursor);
      const page = cursor ?? 1;
      return { ids: [`a${page}`, 'shared'], next: page < 3 ? page + 1 : undefined };
    });
    expect(ids).toEqual(['a1', 'shared', 'a2', 'a3']);
    expect(cursors).toEqual([undefined, 2, 3]);
  });

  it('fails with the given reason, after exactly the allowed pages, when more remain', async () => {
    let read = 0;
    const outcome = await collectPages<number>(4, 'More than 4 pages match', async (cursor) => {
      read++;
      return { ids: [`id${cursor ?? 0}`], next: (cursor ?? 0) + 1 };
    });
    expect(outcome).toEqual({ kind: 'failed', reason: 'More than 4 pages match' });
    expect(read).toBe(4);
    // The last allowed page may be the last one.
    const exact = await collectPages<number>(2, 'too many', async (cursor) => ({
      ids: [String(cursor ?? 0)],
      next: cursor === undefined ? 1 : undefined,
    }));
    expect(exact).toEqual(['0', '1']);
  });

  it("passes a page's failure on, and adds to the ids it is given", async () => {
    const failure = { kind: 'retry' as const, reason: 'HTTP 503' };
    expect(await collectPages(3, 'too many', async () => ({ failure }))).toBe(failure);
    const ids = ['kept'];
    expect(await collectPages(3, 'too many', async () => ({ ids: ['kept', 'new'] }), ids)).toBe(ids);
    expect(ids).toEqual(['kept', 'new']);
  });
});
