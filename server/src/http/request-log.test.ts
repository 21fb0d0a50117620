import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../lib/logger';
import { createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../test/harness';

let env: TestEnv;
let server: Awaited<ReturnType<typeof startTestServer>>;
let org: Awaited<ReturnType<typeof seedOrganization>>;
const lines: string[] = [];

beforeAll(async () => {
  env = await createTestEnv();
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  server = await startTestServer({ ...env.deps, log: createLogger('info', sink) });
  org = await seedOrganization(env.deps, 'logs');
});
afterAll(async () => {
  await server?.close();
  await env?.close();
});

describe('the request log', () => {
  it('writes one line per request with method, route, path, status and time, never a query string or an unmatched path', async () => {
    const subject = 'logged.subject@example.com';
    const input = encodeURIComponent(JSON.stringify({ filter: { identifier: subject } }));
    await fetch(`${server.baseUrl}/trpc/dashboard.searchRequests?input=${input}`, {
      headers: { 'x-api-key': org.pat },
    });
    await fetch(
      `${server.baseUrl}/api/public/deletion-requests/organization?identifier=${encodeURIComponent(subject)}&limit=5`,
      { headers: { 'x-api-key': org.pat } },
    );
    await fetch(`${server.baseUrl}/invite/dds_inv_secretsecretsecret`);
    await fetch(`${server.baseUrl}/requests/${encodeURIComponent(subject)}`);
    await new Promise((r) => setTimeout(r, 100));
    const text = lines.join('\n');
    expect(text).not.toContain('logged.subject');
    expect(text).not.toContain('logged.subject%40');
    expect(text).not.toContain('secretsecret');
    expect(text).not.toContain('?');
    const requestLines = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
    expect(requestLines.length).toBeGreaterThanOrEqual(4);
    expect(requestLines).toContainEqual(
      expect.objectContaining({
        method: 'GET',
        route: '/trpc/dashboard.searchRequests',
        path: '/trpc/dashboard.searchRequests',
        status: 400,
      }),
    );
    expect(requestLines).toContainEqual(
      expect.objectContaining({
        method: 'GET',
        route: '/api/public/deletion-requests/organization',
        path: '/api/public/deletion-requests/organization',
        status: 200,
      }),
    );
    expect(requestLines.filter((l) => l.route === 'unmatched').every((l) => l.path === undefined)).toBe(true);
  });
});
