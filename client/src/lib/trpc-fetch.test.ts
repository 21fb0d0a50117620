import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppRouter } from '../../../server/src/routers/root';
import { toDisplayError } from './errors';
import { normalizeErrorEnvelope, trpcFetch } from './trpc-fetch';

const serverError = {
  error: {
    code: 'BAD_REQUEST',
    message: 'Input validation failed',
    issues: [{ path: ['name'], message: 'Required' }],
    data: { code: 'BAD_REQUEST', httpStatus: 400, path: 'workspaces.create' },
  },
};

afterEach(() => vi.unstubAllGlobals());

describe('normalizeErrorEnvelope', () => {
  it('puts a JSON-RPC number in code and keeps the name in data.code, in batches too', () => {
    const [normalized] = normalizeErrorEnvelope([serverError]) as [{ error: { code: unknown; data: { code: string }; issues: unknown } }];
    expect(normalized.error.code).toBe(-32600);
    expect(normalized.error.data.code).toBe('BAD_REQUEST');
    expect(normalized.error.issues).toEqual(serverError.error.issues);
  });

  it('leaves results and already numeric codes alone', () => {
    const ok = { result: { data: 1 } };
    expect(normalizeErrorEnvelope(ok)).toBe(ok);
    const numeric = { error: { code: -32001, message: 'x', data: { code: 'UNAUTHORIZED' } } };
    expect(normalizeErrorEnvelope(numeric)).toBe(numeric);
  });
});

describe('the dashboard tRPC client', () => {
  it('surfaces the server message and field issues instead of "Unable to transform response"', async () => {
    vi.stubGlobal('fetch', async () => new Response(JSON.stringify([serverError]), { status: 400, headers: { 'content-type': 'application/json' } }));
    const client = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: 'http://dashboard.test/trpc', fetch: trpcFetch })] });
    const failure = await client.workspaces.create.mutate({ name: '' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TRPCClientError);
    expect(toDisplayError(failure)).toEqual({ code: 'BAD_REQUEST', message: 'Input validation failed', fieldErrors: { name: 'Required' } });
  });

  it('reports an unreachable server as a network problem', async () => {
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('fetch failed');
    });
    const client = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: 'http://dashboard.test/trpc', fetch: trpcFetch })] });
    const failure = await client.auth.me.query().catch((e: unknown) => e);
    expect(toDisplayError(failure).code).toBe('NETWORK');
  });
});
