import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppRouter } from '@api';
import { toDisplayError } from './errors';
import { trpcFetch } from './trpc-fetch';

// The server's tRPC error envelope (server/src/trpc/init.ts): JSON-RPC number, name in data.code.
const serverError = {
  error: {
    code: -32600,
    message: 'Input validation failed',
    issues: [{ path: ['name'], message: 'Required' }],
    data: { code: 'BAD_REQUEST', httpStatus: 400, path: 'workspaces.create' },
  },
};

afterEach(() => vi.unstubAllGlobals());

describe('the dashboard tRPC client', () => {
  it('surfaces the server message and field issues instead of "Unable to transform response"', async () => {
    vi.stubGlobal(
      'fetch',
      async () =>
        new Response(JSON.stringify([serverError]), { status: 400, headers: { 'content-type': 'application/json' } }),
    );
    const client = createTRPCClient<AppRouter>({
      links: [httpBatchLink({ url: 'http://dashboard.test/trpc', fetch: trpcFetch })],
    });
    const failure = await client.workspaces.create.mutate({ name: '' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TRPCClientError);
    expect(toDisplayError(failure)).toEqual({
      code: 'BAD_REQUEST',
      message: 'Input validation failed',
      fieldErrors: { name: 'Required' },
    });
  });

  it('reports an unreachable server as a network problem', async () => {
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('fetch failed');
    });
    const client = createTRPCClient<AppRouter>({
      links: [httpBatchLink({ url: 'http://dashboard.test/trpc', fetch: trpcFetch })],
    });
    const failure = await client.auth.me.query().catch((e: unknown) => e);
    expect(toDisplayError(failure).code).toBe('NETWORK');
  });
});
