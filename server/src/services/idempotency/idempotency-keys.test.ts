import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';
import type { Actor } from '../auth/actor';
import { runIdempotently, type KeepAnswer } from './idempotency-keys';

let env: TestEnv;
let actor: Actor;

beforeAll(async () => {
  env = await createTestEnv();
  const org = await seedOrganization(env.deps, 'idempotency');
  actor = { userId: org.user.id, organizationId: org.organization.id, role: 'OWNER', via: 'pat' };
});
afterAll(async () => {
  await env?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('runIdempotently', () => {
  it('a first call that runs longer than the abandonment time keeps its key: a replay meanwhile is a 409, never a second run', async () => {
    const abandonedMs = 300;
    let runs = 0;
    const request = { key: 'slow-bulk-cancel', operation: 'bulk.cancel', input: { ids: ['a', 'b'] } };
    const action = async () => {
      runs++;
      await sleep(abandonedMs * 4); // a bulk action calling slow vendors
      return { done: runs };
    };
    const first = runIdempotently(env.deps.prisma, actor, request, action, undefined, { abandonedMs });
    await sleep(abandonedMs * 2);
    await expect(
      runIdempotently(env.deps.prisma, actor, request, action, undefined, { abandonedMs }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await first).toEqual({ result: { done: 1 }, replayed: false });
    expect(await runIdempotently(env.deps.prisma, actor, request, action, undefined, { abandonedMs })).toEqual({
      result: { done: 1 },
      replayed: true,
    });
    expect(runs).toBe(1);
  });

  it('a first call whose process died (no heartbeat, no answer) leaves its key to the next call', async () => {
    const abandonedMs = 300;
    const request = { key: 'died', operation: 'callbacks.create', input: { url: 'https://hooks.example.org' } };
    // As a process that died mid-call leaves it: a row without an answer whose heartbeat stopped.
    await env.deps.prisma.idempotencyKey.create({
      data: {
        organizationId: actor.organizationId,
        userId: actor.userId,
        key: request.key,
        operation: request.operation,
        requestHash: 'of the first call',
        createdAt: new Date(Date.now() - 2 * abandonedMs),
        expiresAt: new Date(Date.now() - 2 * abandonedMs + 24 * 3_600_000),
      },
    });
    expect(
      await runIdempotently(env.deps.prisma, actor, request, async () => 'created', undefined, { abandonedMs }),
    ).toEqual({ result: 'created', replayed: false });
  });

  it("an answer kept inside the action's transaction commits with it: however the call ends after that commit, a replay answers it and the action never runs again", async () => {
    const request = { key: 'kept', operation: 'callbacks.rotate', input: { endpointId: 'cbe_1' } };
    let runs = 0;
    const action = async (keep: KeepAnswer<string>): Promise<string> => {
      runs++;
      await env.deps.prisma.$transaction(async (tx) => keep(tx, 'rotated'));
      // As a process that dies here would end it: after the commit, before any answer is written.
      throw new Error('the process died');
    };
    await expect(runIdempotently(env.deps.prisma, actor, request, action)).rejects.toThrow('the process died');
    expect(await runIdempotently(env.deps.prisma, actor, request, action)).toEqual({
      result: 'rotated',
      replayed: true,
    });
    expect(runs).toBe(1);
  });

  it('an answer kept in a transaction that rolls back is not kept: the key can be sent again', async () => {
    const request = { key: 'rolled-back', operation: 'callbacks.create', input: { url: 'https://hooks.example.org' } };
    const failing = (keep: KeepAnswer<string>): Promise<string> =>
      env.deps.prisma.$transaction(async (tx) => {
        await keep(tx, 'created');
        throw new Error('the insert failed');
      });
    await expect(runIdempotently(env.deps.prisma, actor, request, failing)).rejects.toThrow('the insert failed');
    expect(await runIdempotently(env.deps.prisma, actor, request, async () => 'created again')).toEqual({
      result: 'created again',
      replayed: false,
    });
  });

  it('another token of the same user, limited otherwise, cannot replay a key into an answer it could not get', async () => {
    const request = { key: 'limits', operation: 'callbacks.create', input: { workspaceId: 'ws_a' } };
    const wsA: Actor = { ...actor, workspaceIds: ['ws_a'] };
    const wsB: Actor = { ...actor, workspaceIds: ['ws_b'] };
    expect(await runIdempotently(env.deps.prisma, wsA, request, async () => 'secret of ws_a')).toEqual({
      result: 'secret of ws_a',
      replayed: false,
    });
    await expect(runIdempotently(env.deps.prisma, wsB, request, async () => 'never')).rejects.toMatchObject({
      code: 'UNPROCESSABLE_CONTENT',
    });
    expect(await runIdempotently(env.deps.prisma, wsA, request, async () => 'never')).toEqual({
      result: 'secret of ws_a',
      replayed: true,
    });
  });
});
