import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRouter } from '../routers/root';
import { createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../test/harness';

/**
 * Fuzz over real HTTP: requests generated from the OpenAPI document (every operation, its
 * path, query, header and body parameters) and from every tRPC procedure, filled with
 * wrong types, huge and unicode-edge strings, injection strings, missing and extra fields,
 * wrong content types and broken JSON. Invariants: never a 5xx, never a stack trace, error
 * bodies are the stable `{ code, message, issues? }`, and no write without a 201.
 */

// `npm test` sends 100 runs of each kind; `npm run test:fuzz` (CI) runs this file again at 500
// (vitest.fuzz.config.ts); FUZZ_RUNS sets it.
const RUNS = Number(process.env.FUZZ_RUNS ?? 100);
const RUNS_PER_PROCEDURE = Math.max(10, Math.round(RUNS / 12));

let env: TestEnv;
let server: Awaited<ReturnType<typeof startTestServer>>;
let org: Awaited<ReturnType<typeof seedOrganization>>;
let document: any;
let cases = 0;
const createdIds = new Set<string>();

beforeAll(async () => {
  env = await createTestEnv({
    API_RATE_LIMIT_PER_TOKEN: '0',
    API_RATE_LIMIT_PER_IP: '0',
    SIGN_IN_LIMIT_PER_EMAIL: '0',
    SIGN_IN_LIMIT_PER_IP: '0',
    BODY_LIMIT_BYTES: '65536',
  });
  server = await startTestServer(env.deps);
  org = await seedOrganization(env.deps, 'fuzz');
  document = await (await fetch(`${server.baseUrl}/api/openapi.json`)).json();
});
afterAll(async () => {
  console.log(`fuzz: ${cases} generated requests sent over HTTP`);
  await server?.close();
  await env?.close();
});

const INJECTION = [
  "' OR '1'='1",
  '\'; DROP TABLE "DeletionRequest"; --',
  '" OR ""="',
  '1; SELECT pg_sleep(5)',
  '$(reboot)',
  '`id`',
  '{{identifier}}',
  '${7*7}',
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '..%2f..%2fetc%2fpasswd',
  '%00',
  '\u0000',
  '\\',
  '__proto__',
  'constructor',
  'prototype',
  '{"$ne":null}',
  'null',
  'undefined',
  'NaN',
  '-1',
  '1e309',
  '0x7fffffff',
  'dds_pat_',
  'dds_wsk_' + 'A'.repeat(38),
  'ws_' + 'z'.repeat(200),
];
const EDGE_UNICODE = [
  '\u202e',
  '\ufeff',
  '\ud800',
  '\udfff',
  '𝕏',
  '👩‍👩‍👧‍👦',
  'e\u0301',
  '\u200b',
  'İ',
  'ß',
  '\u2028',
  '\r\n',
  '\t',
];

const hostileString = fc.oneof(
  fc.constantFrom(...INJECTION, ...EDGE_UNICODE, ''),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.nat({ max: 200_000 }).map((n) => 'x'.repeat(n)),
);
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: hostileString },
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(hostileString, { maxLength: 5 }),
  fc.dictionary(hostileString, hostileString, { maxKeys: 4 }),
  fc.jsonValue({ maxDepth: 3 }),
);
/** Lone surrogates cannot be put in a URL by the client; they become U+FFFD as a browser would send them. */
const wellFormed = (s: string) =>
  s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

/** Header values as fetch can send them: visible ASCII. */
const headerString = fc.oneof(
  fc.constantFrom(...INJECTION.filter((s) => /^[\x21-\x7e ]*$/.test(s))),
  fc.string({ maxLength: 300 }).map((s) => s.replace(/[^\x20-\x7e]/g, '').trim()),
);

function expectWellBehaved(status: number, text: string, contentType: string | null, what: string) {
  cases += 1;
  expect(status, `${what} -> ${status}: ${text.slice(0, 300)}`).toBeLessThan(500);
  expect(text, what).not.toMatch(/\bat [^\n]*\.(ts|js|mjs|cjs):\d+/);
  expect(text, what).not.toMatch(/node_modules|PrismaClient|Invalid `prisma/);
  if (status >= 400) {
    expect(contentType, what).toMatch(/application\/json/);
    const body = JSON.parse(text);
    if (what.includes('/trpc/')) {
      // tRPC's own errors come in { error }; errors raised before tRPC runs (413, 415) have the plain body.
      expect(typeof (body.error?.message ?? body.message), `${what}: ${text.slice(0, 200)}`).toBe('string');
    } else {
      expect(typeof body.code, `${what}: ${text.slice(0, 200)}`).toBe('string');
      expect(typeof body.message, what).toBe('string');
      expect(
        Object.keys(body).every((k) => ['code', 'message', 'issues'].includes(k)),
        `${what}: ${text.slice(0, 200)}`,
      ).toBe(true);
    }
  }
}

async function send(method: string, url: string, headers: Record<string, string>, body?: string) {
  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  expectWellBehaved(
    response.status,
    text,
    response.headers.get('content-type'),
    `${method} ${url.slice(0, 200)} ${body?.slice(0, 200) ?? ''}`,
  );
  if (response.status === 201) createdIds.add(JSON.parse(text).id);
  return response;
}

/** A body derived from the operation's JSON schema: valid parts, hostile parts, missing and extra fields. */
function bodyArbitrary(schema: any): fc.Arbitrary<unknown> {
  const properties: Record<string, any> = schema?.properties ?? {};
  const validFor = (name: string) =>
    name === 'workspaceApiKey'
      ? fc.constant(org.workspaceApiKey)
      : name === 'identifier'
        ? fc.constantFrom('subject@example.com', 'user-42')
        : hostileString;
  const field = (name: string) =>
    fc.oneof({ weight: 2, arbitrary: validFor(name) }, { weight: 3, arbitrary: hostileValue });
  const record = fc.record(Object.fromEntries(Object.keys(properties).map((name) => [name, field(name)])), {
    requiredKeys: [],
  });
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(record, fc.dictionary(hostileString, hostileValue, { maxKeys: 3 }))
        .map(([known, extra]) => ({ ...extra, ...known })),
    },
    { weight: 1, arbitrary: hostileValue },
  );
}

describe('fuzz: public REST API from the OpenAPI document', () => {
  it(
    'every operation survives generated hostile input; nothing is written without a 201',
    { timeout: 300_000 },
    async () => {
      for (const [template, item] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
        for (const [method, operation] of Object.entries(item)) {
          const params: any[] = operation.parameters ?? [];
          const pathParams = params.filter((p) => p.in === 'path').map((p) => p.name as string);
          const queryParams = params.filter((p) => p.in === 'query').map((p) => p.name as string);
          const headerParams = params.filter((p) => p.in === 'header').map((p) => p.name as string);
          const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
          const resolvedBody = bodySchema?.$ref
            ? document.components.schemas[bodySchema.$ref.split('/').pop()]
            : bodySchema;
          const input = fc.record({
            path: fc.record(
              Object.fromEntries(
                pathParams.map((n) => [
                  n,
                  fc.oneof(fc.constant(org.workspace.id), fc.constant(org.user.id), hostileString),
                ]),
              ),
            ),
            query: fc.dictionary(
              fc.oneof(
                fc.constantFrom(...queryParams, 'extra', '__proto__'),
                hostileString.filter((s) => s.length < 50),
              ),
              fc.oneof(fc.constantFrom('true', 'false', '1', '0', '-5', '1001'), hostileString),
              { maxKeys: 4 },
            ),
            headers: fc.record(Object.fromEntries(headerParams.map((n) => [n, headerString])), { requiredKeys: [] }),
            apiKey: fc.oneof({ weight: 5, arbitrary: fc.constant(org.pat) }, { weight: 1, arbitrary: headerString }),
            body: bodyArbitrary(resolvedBody),
            contentType: fc.constantFrom(
              'application/json',
              'application/json',
              'application/json',
              'text/plain',
              'application/x-www-form-urlencoded',
              'application/json; charset=utf-16',
            ),
          });
          await fc.assert(
            fc.asyncProperty(input, async (c) => {
              const path = template.replace(/\{(\w+)\}/g, (_m, n: string) =>
                encodeURIComponent(wellFormed(String(c.path[n] ?? ''))),
              );
              const query = new URLSearchParams();
              for (const [k, v] of Object.entries(c.query))
                query.append(wellFormed(k), wellFormed(String(v).slice(0, 2000)));
              const url = `${server.baseUrl}/api/public${path}${query.size ? `?${query}` : ''}`;
              const headers: Record<string, string> = {
                ...(c.headers as Record<string, string>),
                'x-api-key': c.apiKey,
              };
              const upper = method.toUpperCase();
              if (upper === 'GET') return void (await send(upper, url, headers));
              await send(upper, url, { ...headers, 'content-type': c.contentType }, JSON.stringify(c.body) ?? 'null');
            }),
            { numRuns: RUNS },
          );
        }
      }
    },
  );

  it('broken JSON, wrong content types and odd methods on every path', async () => {
    const paths = Object.keys(document.paths).map((p) => p.replace(/\{\w+\}/g, org.workspace.id));
    const raw = fc.oneof(
      fc.constantFrom(
        '{',
        '{"identifier":',
        '[',
        '"',
        '{"a":1}}',
        'nul',
        '{"identifier":"x",}',
        '\u0000',
        '{"__proto__":{"polluted":1}}',
        '{"identifier":"x"}'.repeat(3),
      ),
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.json().map((j) => j.slice(0, Math.max(0, j.length - 1))),
      fc.nat({ max: 100 }).map((n) => '['.repeat(n * 100)),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...paths),
        fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE', 'GET'),
        raw,
        fc.constantFrom('application/json', 'text/plain', 'application/xml', 'multipart/form-data; boundary=x', ''),
        async (path, method, body, contentType) => {
          const headers: Record<string, string> = { 'x-api-key': org.pat };
          if (contentType) headers['content-type'] = contentType;
          await send(method, `${server.baseUrl}/api/public${path}`, headers, method === 'GET' ? undefined : body);
        },
      ),
      { numRuns: RUNS },
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('no partial writes: exactly the 201 answers left a request, each with its audit entry', async () => {
    const stored = await env.db.prisma.deletionRequest.findMany({ select: { id: true } });
    expect(new Set(stored.map((r) => r.id))).toEqual(createdIds);
    const audited = await env.db.prisma.auditLog.count({ where: { action: 'request.created' } });
    expect(audited).toBe(createdIds.size);
  });
});

describe('fuzz: every tRPC procedure over HTTP', () => {
  it('survives generated input of any shape, as the owner (session cookie)', async () => {
    const signIn = await fetch(`${server.baseUrl}/trpc/auth.signIn`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: org.email, password: 'correct horse battery staple' }),
    });
    const cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
    const procedures = (appRouter._def as any).procedures as Record<string, any>;
    // Sign-out and destructive organization-wide actions would end the run early; they are fuzzed with the rest, last.
    const order = Object.keys(procedures).sort((a, b) => Number(a === 'auth.signOut') - Number(b === 'auth.signOut'));
    for (const path of order) {
      const type = procedures[path]._def.type as 'query' | 'mutation';
      await fc.assert(
        fc.asyncProperty(hostileValue, async (input) => {
          const encoded = JSON.stringify(input) ?? 'null';
          const headers = { cookie, 'content-type': 'application/json' };
          if (type === 'query')
            await send(
              'GET',
              `${server.baseUrl}/trpc/${path}?input=${encodeURIComponent(wellFormed(encoded)).slice(0, 6000)}`,
              headers,
            );
          else await send('POST', `${server.baseUrl}/trpc/${path}`, headers, encoded);
        }),
        { numRuns: RUNS_PER_PROCEDURE },
      );
    }
    // Grows with the number of procedures; the suite shares the machine with other test files.
  }, 180_000);
});
