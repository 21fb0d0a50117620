import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../test/harness';

/**
 * Regression tests for inputs that used to answer 500 or a body other than the documented
 * `{ code, message, issues? }`: deep JSON, NUL and lone surrogates, forged cursors,
 * malformed percent-encoding, HEAD answers with a body, tRPC errors under HTTP 200.
 */

let env: TestEnv;
let server: Awaited<ReturnType<typeof startTestServer>>;
let org: Awaited<ReturnType<typeof seedOrganization>>;
let cookie: string;

beforeAll(async () => {
  env = await createTestEnv();
  server = await startTestServer(env.deps);
  org = await seedOrganization(env.deps, 'guards');
  const signIn = await fetch(`${server.baseUrl}/trpc/auth.signIn`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: org.email, password: 'correct horse battery staple' }),
  });
  cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
});
afterAll(async () => {
  await server?.close();
  await env?.close();
});

const json = { 'content-type': 'application/json' };

async function expectDocumented400(response: Response) {
  const text = await response.text();
  expect(response.status, text).toBe(400);
  const body = JSON.parse(text);
  expect(body.code).toBe('BAD_REQUEST');
  expect(typeof body.message).toBe('string');
  expect(
    Object.keys(body).every((k) => ['code', 'message', 'issues'].includes(k)),
    text,
  ).toBe(true);
  return body;
}

async function expectTrpc400(response: Response) {
  const text = await response.text();
  expect(response.status, text).toBe(400);
  expect(JSON.parse(text).error.data.code).toBe('BAD_REQUEST');
}

const trpcGet = (path: string, input: unknown) =>
  fetch(`${server.baseUrl}/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers: { cookie } });
const trpcPost = (path: string, body: string) =>
  fetch(`${server.baseUrl}/trpc/${path}`, { method: 'POST', headers: { cookie, ...json }, body });
const forge = (text: string) => Buffer.from(text).toString('base64url');

describe('input guards', () => {
  it('routes a tRPC batch whose procedure names are longer than 100 characters (the audit log screen asks for five at once)', async () => {
    const procedures = [
      'dashboard.verifyAuditChain',
      'dashboard.auditLog',
      'dashboard.auditLogActions',
      'dashboard.members',
      'workspaces.list',
    ];
    expect(procedures.join(',').length).toBeGreaterThan(100);
    const input = encodeURIComponent(JSON.stringify({ 1: { limit: 50, filter: {} } }));
    const response = await fetch(`${server.baseUrl}/trpc/${procedures.join(',')}?batch=1&input=${input}`, {
      headers: { cookie },
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(JSON.parse(text)).toHaveLength(procedures.length);
  });

  it('refuses JSON nested thousands of levels deep on the REST API and tRPC with 400', async () => {
    const deep = '['.repeat(4500) + ']'.repeat(4500);
    const rest = await fetch(`${server.baseUrl}/api/public/deletion-requests`, {
      method: 'POST',
      headers: { ...json, 'x-api-key': org.pat },
      body: `{"workspaceApiKey":${deep},"identifier":"x"}`,
    });
    await expectDocumented400(rest);
    await expectTrpc400(await trpcPost('workspaces.create', `{"name":${deep}}`));
    await expectTrpc400(await trpcGet('accounts.get', JSON.parse('['.repeat(40) + ']'.repeat(40))));
  });

  it('refuses NUL and lone surrogates in any string, in values and in keys, before the database', async () => {
    await expectTrpc400(await trpcPost('workspaces.create', JSON.stringify({ name: 'a\u0000b' })));
    await expectTrpc400(await trpcGet('accounts.get', { accountId: 'acc_\u0000' }));
    await expectTrpc400(await trpcPost('workspaces.create', '{"name":"lone \\ud800 surrogate"}'));
    await expectTrpc400(await trpcPost('workspaces.create', '{"name":"ok","\\udfff":1}'));
    const rest = await fetch(`${server.baseUrl}/api/public/deletion-requests`, {
      method: 'POST',
      headers: { ...json, 'x-api-key': org.pat },
      body: `{"workspaceApiKey":"${org.workspaceApiKey}","identifier":"jane\\udc00@example.com"}`,
    });
    const body = await expectDocumented400(rest);
    expect(body.issues[0].path).toEqual(['body', 'identifier']);
    await expectDocumented400(
      await fetch(`${server.baseUrl}/api/public/workspaces/ws_%00abc`, { headers: { 'x-api-key': org.pat } }),
    );
    expect(await env.db.prisma.deletionRequest.count()).toBe(0);
  });

  it('refuses forged cursors: NUL in the id, years PostgreSQL cannot store, anything not written by us', async () => {
    const forged = [
      forge('2020-01-01T00:00:00.000Z|dr_a\u0000b'),
      forge('+275760-09-13T00:00:00.000Z|dr_abcdefghjkmnpqrs'),
      forge('-271821-04-20T00:00:00.000Z|dr_abcdefghjkmnpqrs'),
      forge('2020-02-31T00:00:00.000Z|dr_abcdefghjkmnpqrs'),
      forge('2020-01-01T00:00:00.000Z|dr_x|y'),
      '%%%',
    ];
    for (const cursor of forged) {
      await expectDocumented400(
        await fetch(
          `${server.baseUrl}/api/public/deletion-requests/organization?cursor=${encodeURIComponent(cursor)}`,
          { headers: { 'x-api-key': org.pat } },
        ),
      );
      await expectTrpc400(await trpcGet('dashboard.searchRequests', { cursor }));
    }
    await expectTrpc400(await trpcGet('dashboard.auditLog', { cursor: '9999999999999999999' }));
    expect((await trpcGet('dashboard.auditLog', { cursor: '9223372036854775807' })).status).toBe(200);
  });

  it('answers malformed percent-encoding in a path with the documented body', async () => {
    for (const path of ['/api/public/deletion-requests/%E0%A4%A', '/trpc/%E0%A4%A', '/%']) {
      await expectDocumented400(await fetch(`${server.baseUrl}${path}`, { headers: { 'x-api-key': org.pat } }));
    }
  });

  it('never reports a tRPC error under HTTP 200, even when a streamed answer is asked for', async () => {
    const response = await fetch(
      `${server.baseUrl}/trpc/accounts.get?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: { accountId: 'acc_missing' } }))}`,
      {
        headers: { cookie, 'trpc-accept': 'application/jsonl' },
      },
    );
    expect(response.status).toBe(404);
    expect((await response.json())[0].error.data.code).toBe('NOT_FOUND');
  });

  it('answers HEAD with headers and no body, also when Node refuses the request', async () => {
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(new URL(server.baseUrl).port), '127.0.0.1');
        let data = '';
        socket.on('data', (chunk) => (data += chunk.toString('latin1')));
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
        socket.end(request);
      });
    const huge = await raw(
      `HEAD /api/public/deletion-requests/organization HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\nConnection: close\r\n\r\n`,
    );
    expect(huge).toMatch(/^HTTP\/1\.1 431/);
    expect(huge.split('\r\n\r\n')[1]).toBe('');
    for (const path of [
      '/api/public/deletion-requests/organization',
      '/api/public/nothing',
      '/trpc/workspaces.list',
      '/healthz',
    ]) {
      const answer = await raw(`HEAD ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(answer, path).toMatch(/^HTTP\/1\.1 \d{3}/);
      expect(answer.split('\r\n\r\n')[1], path).toBe('');
    }
  });
});
