import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountTypeSchema, integrationTypeSchema } from '@shared/statuses';
import { createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../test/harness';
import { freePort } from '../test/stores/free-port';
import { badString, oddString, procedureInputs, setAt } from './hostile-inputs';

/**
 * The hostile inputs that once answered 500 (npm run test:fuzz; CI runs it): JSON nested
 * far too deep on every REST operation, NUL and lone surrogates in every string field of
 * every tRPC procedure (found by walking each procedure's zod input schema), forged
 * pagination cursors, and account secrets made of odd code points. Invariants: never a 5xx,
 * never a stack trace or an internal path in a body, and the documented error body.
 * FUZZ_SCALE multiplies the runs; at 1 the run sends at least MIN_CASES requests.
 */

const SCALE = Number(process.env.FUZZ_SCALE ?? 1);
const MIN_CASES = Math.round(10_000 * SCALE);
const runs = (n: number) => Math.max(1, Math.round(n * SCALE));

let env: TestEnv;
let server: Awaited<ReturnType<typeof startTestServer>>;
let org: Awaited<ReturnType<typeof seedOrganization>>;
let cookie = '';
let document: any;
let cases = 0;

beforeAll(async () => {
  env = await createTestEnv({
    API_RATE_LIMIT_PER_TOKEN: '0',
    API_RATE_LIMIT_PER_IP: '0',
    SIGN_IN_LIMIT_PER_EMAIL: '0',
    SIGN_IN_LIMIT_PER_IP: '0',
  });
  server = await startTestServer(env.deps);
  org = await seedOrganization(env.deps, 'hostile');
  const signIn = await fetch(`${server.baseUrl}/trpc/auth.signIn`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: org.email, password: 'correct horse battery staple' }),
  });
  cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
  document = await (await fetch(`${server.baseUrl}/api/openapi.json`)).json();
}, 60_000);
afterAll(async () => {
  console.log(`hostile-input fuzz: ${cases} requests`);
  await server?.close();
  await env?.close();
});

const STACK_OR_INTERNALS =
  /\bat [^\n]*\.(ts|js|mjs|cjs):\d+|node_modules|server\/src\/|\/work\/|PrismaClient|Invalid `prisma|URIError|RangeError|TypeError/;

async function send(method: string, url: string, init: { headers?: Record<string, string>; body?: string } = {}) {
  const response = await fetch(url, { method, headers: init.headers, body: init.body });
  const text = await response.text();
  const what = `${method} ${url.slice(0, 160)} ${init.body?.slice(0, 160) ?? ''}`;
  cases += 1;
  expect(response.status, `${what} -> ${text.slice(0, 300)}`).toBeLessThan(500);
  expect(text, what).not.toMatch(STACK_OR_INTERNALS);
  if (response.status >= 400 && method !== 'HEAD') {
    const body = JSON.parse(text);
    const error = url.includes('/trpc/') ? (Array.isArray(body) ? body[0].error : (body.error ?? body)) : body;
    expect(typeof error.message, `${what}: ${text.slice(0, 200)}`).toBe('string');
  }
  return { status: response.status, text };
}

const trpc = (path: string, type: string, input: unknown) => {
  const headers = { cookie, 'content-type': 'application/json' };
  // JSON.stringify writes lone surrogates as \ud800 escapes, so they survive the URL.
  const encoded = JSON.stringify(input) ?? 'null';
  if (type === 'query')
    return send('GET', `${server.baseUrl}/trpc/${path}?input=${encodeURIComponent(encoded)}`, { headers });
  return send('POST', `${server.baseUrl}/trpc/${path}`, { headers, body: encoded });
};

// ---- The suites -------------------------------------------------------------------------

describe('hostile input fuzz', () => {
  it('refuses JSON nested too deep on every REST operation with 400, never 500', async () => {
    const deepJson = fc
      .tuple(fc.integer({ min: 33, max: 6000 }), fc.constantFrom('[', '{"a":'))
      .map(([depth, open]) => {
        const close = open === '[' ? ']' : '}';
        return open.repeat(depth) + '1' + close.repeat(depth);
      });
    for (const [template, item] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
      for (const method of Object.keys(item)) {
        const path = template.replace(/\{\w+\}/g, org.workspace.id);
        await fc.assert(
          fc.asyncProperty(deepJson, fc.constantFrom('body', 'field'), async (deep, where) => {
            const url = `${server.baseUrl}/api/public${path}`;
            const headers = { 'x-api-key': org.pat, 'content-type': 'application/json' };
            if (method === 'get' || method === 'delete') {
              await send(method.toUpperCase(), `${url}?input=${encodeURIComponent(deep.slice(0, 3000))}`, {
                headers: { 'x-api-key': org.pat },
              });
              return;
            }
            const body = where === 'body' ? deep : `{"identifier":${deep},"workspaceApiKey":"${org.workspaceApiKey}"}`;
            const { status } = await send(method.toUpperCase(), url, { headers, body });
            expect(status).toBe(400);
          }),
          { numRuns: runs(80) },
        );
      }
    }
  }, 600_000);

  it('refuses NUL and lone surrogates in every string field of every procedure with 400', async () => {
    const inputs = procedureInputs();
    expect(inputs.length).toBeGreaterThan(30);
    for (const procedure of inputs) {
      const targets = procedure.strings.length ? procedure.strings : [[]];
      for (const target of targets) {
        await fc.assert(
          fc.asyncProperty(badString, fc.boolean(), async (bad, asKey) => {
            // The bad string as the field's value, or as the name of an extra field next to it
            // (inside an object: an array has no field names that JSON would carry).
            const input =
              asKey && typeof target[target.length - 1] === 'string'
                ? setAt(procedure.sample, [...target.slice(0, -1), bad], 'x')
                : setAt(procedure.sample, target, bad);
            const { status, text } = await trpc(procedure.path, procedure.type, input);
            expect(status, `${procedure.path} ${JSON.stringify(target)}: ${text.slice(0, 200)}`).toBe(400);
          }),
          { numRuns: runs(20) },
        );
      }
    }
  }, 600_000);

  it('refuses forged pagination cursors with 400 (or pages nothing), never 500', async () => {
    const forgedDate = fc.oneof(
      fc.constantFrom(
        '+275760-09-13T00:00:00.000Z',
        '-271821-04-20T00:00:00.000Z',
        '+010000-01-01T00:00:00.000Z',
        '0000-00-00T00:00:00.000Z',
        '2020-02-30T00:00:00.000Z',
        '',
        'NaN',
        'Infinity',
      ),
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      fc.integer().map(String),
      fc.string({ maxLength: 30 }),
    );
    const forgedId = fc.oneof(
      fc.constantFrom('dr_\u0000', 'dr_a\u0000b', '\ud800', "dr_' OR 1=1 --", 'dr_' + 'z'.repeat(300), ''),
      fc.string({ unit: 'binary', maxLength: 40 }),
    );
    const cursor = fc.oneof(
      {
        weight: 4,
        arbitrary: fc
          .tuple(forgedDate, forgedId, fc.constantFrom('|', '||', ''))
          .map(([d, id, sep]) => Buffer.from(`${d}${sep}${id}`).toString('base64url')),
      },
      fc.string({ maxLength: 60 }),
      fc.uint8Array({ maxLength: 60 }).map((b) => Buffer.from(b).toString('base64url')),
      fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String),
    );
    const restLists = Object.entries(document.paths as Record<string, Record<string, any>>)
      .filter(([, item]) => (item.get?.parameters ?? []).some((p: any) => p.in === 'query' && p.name === 'cursor'))
      .map(([template]) => template.replace(/\{\w+\}/g, org.workspace.id));
    expect(restLists.length).toBeGreaterThan(0);
    const trpcLists = procedureInputs().filter((p) => p.strings.some((s) => s[s.length - 1] === 'cursor'));
    expect(trpcLists.map((p) => p.path)).toEqual(
      expect.arrayContaining(['dashboard.searchRequests', 'dashboard.auditLog']),
    );
    for (const path of restLists) {
      await fc.assert(
        fc.asyncProperty(
          cursor,
          async (c) =>
            void (await send(
              'GET',
              `${server.baseUrl}/api/public${path}?cursor=${encodeURIComponent(c.replace(/[\ud800-\udfff]/g, ''))}`,
              { headers: { 'x-api-key': org.pat } },
            )),
        ),
        { numRuns: runs(800) },
      );
    }
    for (const procedure of trpcLists) {
      const target = procedure.strings.find((s) => s[s.length - 1] === 'cursor')!;
      await fc.assert(
        fc.asyncProperty(
          cursor,
          async (c) => void (await trpc(procedure.path, procedure.type, setAt(procedure.sample, target, c))),
        ),
        { numRuns: runs(800) },
      );
    }
  }, 600_000);

  it('takes account secrets made of odd code points without a 500; refuses the ones that are not text', async () => {
    const secretKeys = fc.constantFrom(
      'token',
      'apiKey',
      'user',
      'password',
      'secret',
      'host',
      'database',
      'serviceAccountJson',
      'clientSecret',
      'a\u0000',
      '\ud800',
    );
    const secrets = fc.oneof(
      { weight: 4, arbitrary: fc.dictionary(secretKeys, oddString, { minKeys: 1, maxKeys: 4 }) },
      oddString,
    );
    const account = fc.oneof(
      // A webhook's key-value account takes any keys: the odd values reach storage.
      {
        weight: 2,
        arbitrary: fc.record({ integrationType: fc.constant('WEBHOOK'), type: fc.constant('KEY_VALUE'), secrets }),
      },
      fc.record({
        integrationType: fc.constantFrom(...integrationTypeSchema.options),
        type: fc.constantFrom(...accountTypeSchema.options),
        secrets,
      }),
    );
    let created = 0;
    await fc.assert(
      fc.asyncProperty(account, async (a) => {
        const { status, text } = await trpc('accounts.create', 'mutation', { name: 'odd secret', ...a });
        if (status === 200) {
          created += 1;
          const id = JSON.parse(text).result.data.id as string;
          await trpc('accounts.update', 'mutation', { accountId: id, secrets: a.secrets });
          await trpc('accounts.get', 'query', { accountId: id });
          await trpc('accounts.delete', 'mutation', { accountId: id });
        }
      }),
      { numRuns: runs(1200) },
    );
    expect(created).toBeGreaterThan(0);
  }, 600_000);

  it('answers discovery and dry runs against customer stores that refuse connections with 422, never a 5xx', async () => {
    // A loopback port nothing listens on: every connection to it is refused.
    const closed = await freePort();
    const accountOf = async (integrationType: string, type: string, secrets: object) => {
      const { text } = await trpc('accounts.create', 'mutation', { name: 'down', integrationType, type, secrets });
      return JSON.parse(text).result.data.id as string;
    };
    const database = { host: '127.0.0.1', port: closed, database: 'app', user: 'app', sslMode: 'disable' };
    const stores = [
      { accountId: await accountOf('POSTGRES', 'DATABASE', database), rule: 'sql' },
      { accountId: await accountOf('MYSQL', 'DATABASE', database), rule: 'sql' },
      { accountId: await accountOf('REDIS', 'REDIS', { host: '127.0.0.1', port: closed }), rule: 'redis' },
    ];
    const name = fc.oneof(fc.constantFrom('users', 'orders', 'e-mail'), oddString);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...stores), name, oddString, async (store, table, identifier) => {
        const rules =
          store.rule === 'sql'
            ? [{ table, identifierColumns: [table], action: 'delete' }]
            : [{ kind: 'keys', pattern: `user:{{identifier}}:${table.replace(/[*?[\]{}]/g, '')}` }];
        const discovery = await trpc('integrations.discoverSchema', 'mutation', { accountId: store.accountId });
        const dryRun = await trpc('integrations.dryRun', 'mutation', {
          accountId: store.accountId,
          identifier,
          config: { rules },
        });
        for (const { status, text } of [discovery, dryRun]) {
          expect([400, 422], text.slice(0, 300)).toContain(status);
          expect(text).not.toContain('The database is not reachable');
        }
      }),
      { numRuns: runs(300) },
    );
  }, 600_000);

  it(`sent at least ${MIN_CASES} requests`, () => {
    expect(cases).toBeGreaterThanOrEqual(MIN_CASES);
  });
});
