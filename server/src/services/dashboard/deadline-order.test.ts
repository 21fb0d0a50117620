import { afterAll, beforeAll, expect, it } from 'vitest';
import { cancelDeletionRequest } from '../../pipeline/commands/cancel';
import { createDeletionRequest } from '../../pipeline/commands/create';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';
import { searchDeletionRequests } from './search-deletion-requests';

/** "Nearest deadline first" is about what is still owed: open requests by deadline, then the finished ones. */
let env: TestEnv;
let org: Awaited<ReturnType<typeof seedOrganization>>;
beforeAll(async () => {
  env = await createTestEnv();
  org = await seedOrganization(env.deps, 'deadline-order');
  // An integration nothing runs: requests stay open until canceled.
  await callerFor(env.deps, { pat: org.pat }).caller.integrations.create({
    workspaceId: org.workspace.id,
    name: 'CRM',
    type: 'WEBHOOK',
    config: { initiate: { url: 'http://127.0.0.1:9/erase' } },
  });
});
afterAll(async () => {
  await env?.close();
});

const create = async (identifier: string, receivedAt: string) =>
  (
    await createDeletionRequest(
      env.deps,
      org.actor,
      { workspace: { id: org.workspace.id }, identifier },
      new Date(receivedAt),
    )
  ).deletionRequest.id;

it('lists open requests by deadline first, then finished ones by deadline, across pages', async () => {
  // GDPR: due a month after receipt. The finished ones have the nearest deadlines of all.
  const closedEarliest = await create('closed-1@example.com', '2026-01-01T00:00:00.000Z');
  const closedLater = await create('closed-2@example.com', '2026-01-05T00:00:00.000Z');
  const openLate = await create('open-3@example.com', '2026-03-01T00:00:00.000Z');
  const openSoon = await create('open-1@example.com', '2026-02-01T00:00:00.000Z');
  const openMiddle = await create('open-2@example.com', '2026-02-15T00:00:00.000Z');
  for (const id of [closedEarliest, closedLater])
    await cancelDeletionRequest(env.deps, org.actor, id, { reason: 'duplicate' });

  const expected = [openSoon, openMiddle, openLate, closedEarliest, closedLater];
  for (const limit of [1, 2, 3, 5]) {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof searchDeletionRequests>> = await searchDeletionRequests(
        env.deps.prisma,
        env.deps.keyring,
        org.actor,
        { filter: {}, sort: 'due', limit, cursor },
        new Date('2026-03-10T00:00:00.000Z'),
      );
      ids.push(...page.items.map((r) => r.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(ids, `pages of ${limit}`).toEqual(expected);
  }
});
