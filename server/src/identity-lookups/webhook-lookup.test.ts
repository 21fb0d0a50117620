import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCallbackSecret } from '../lib/webhook-signing';
import { outboundTools } from '../integrations/runtime/outbound';
import type { Exchange } from '../integrations/types';
import { policyFromConfig } from '../lib/ssrf';
import {
  identityLookupAnswerSchema,
  identityLookupRequestSchema,
  LookupError,
  runIdentityLookup,
  validateLookupConfig,
  type IdentityLookupConfig,
} from './run-lookup';

const SECRET = generateCallbackSecret();
const KNOWN = [
  { type: 'email', value: 'jane@example.com' },
  { type: 'user_id', value: '4821' },
];

/** What the customer's endpoint answers, by path. */
const ANSWERS: Record<string, { status: number; body: string; headers?: Record<string, string>; delayMs?: number }> = {
  // The documented answer schema vouches for the fake's well-formed answer.
  '/ids': {
    status: 200,
    body: JSON.stringify(
      identityLookupAnswerSchema.parse({ identifiers: [{ type: 'anonymous_id', value: 'anon-7f3a' }] }),
    ),
  },
  '/known-only': {
    status: 200,
    body: JSON.stringify({
      identifiers: [
        { type: 'email', value: 'jane@example.com' },
        { type: 'device_id', value: ' ' },
      ],
    }),
  },
  '/not-json': { status: 200, body: '<html>jane@example.com</html>' },
  '/wrong-shape': { status: 200, body: JSON.stringify({ identifiers: [{ type: 'anonymous_id', value: 42 }] }) },
  '/too-long': {
    status: 200,
    body: JSON.stringify({ identifiers: [{ type: 'anonymous_id', value: 'x'.repeat(600) }] }),
  },
  '/too-many': {
    status: 200,
    body: JSON.stringify({ identifiers: [1, 2, 3].map((n) => ({ type: 'anonymous_id', value: `anon-${n}` })) }),
  },
  '/down': { status: 503, body: 'jane@example.com is on hold', headers: { 'retry-after': '30' } },
  '/busy': { status: 429, body: '{}' },
  '/refused': { status: 400, body: JSON.stringify({ error: 'unknown jane@example.com' }) },
  '/slow': { status: 200, body: JSON.stringify({ identifiers: [] }), delayMs: 2_000 },
};

const received: { verified: unknown; body: unknown }[] = [];
let server: http.Server;
let base: string;
const trail: Exchange[] = [];
const tools = outboundTools(policyFromConfig({ OUTBOUND_ALLOWLIST: '127.0.0.0/8' }), trail, [SECRET]);

beforeAll(async () => {
  server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      // The receiver checks the Standard Webhooks signature with the library customers use.
      let verified: unknown = null;
      try {
        verified = new Webhook(SECRET).verify(body, request.headers as Record<string, string>);
      } catch {
        response.writeHead(401).end();
        return;
      }
      received.push({ verified, body: identityLookupRequestSchema.parse(JSON.parse(body)) });
      const answer = ANSWERS[request.url ?? ''] ?? { status: 404, body: '' };
      setTimeout(() => {
        response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        response.end(answer.body);
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const webhook = (path: string, extra: Partial<Extract<IdentityLookupConfig, { kind: 'webhook' }>> = {}) =>
  ({
    kind: 'webhook',
    url: `${base}${path}`,
    timeoutMs: 1_000,
    maxIdentifiers: 2,
    ...extra,
  }) satisfies IdentityLookupConfig;

const run = (config: IdentityLookupConfig, signingSecrets = [SECRET]) =>
  runIdentityLookup(config, KNOWN, { http: tools.http, signingSecrets });

async function failure(promise: Promise<unknown>): Promise<LookupError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LookupError);
  expect((error as Error).message).not.toContain('jane@example.com');
  expect((error as Error).message).not.toContain(SECRET);
  return error as LookupError;
}

describe('webhook identity lookup', () => {
  it('posts the known identifiers, signed, and takes the anonymous id the endpoint answers', async () => {
    validateLookupConfig(webhook('/ids'), ['email']);
    received.length = 0;
    expect(await run(webhook('/ids'))).toEqual([{ type: 'anonymous_id', value: 'anon-7f3a' }]);
    expect(received).toEqual([{ verified: { identifiers: KNOWN }, body: { identifiers: KNOWN } }]);
    // The exchange is recorded (the audit's evidence), signature included.
    const exchange = trail.at(-1);
    expect(exchange?.kind === 'http' && exchange.request.headers['webhook-signature']).toMatch(/^v1,/);
  });

  it('drops what was already known and empty values', async () => {
    expect(await run(webhook('/known-only'))).toEqual([]);
  });

  it('refuses an answer that is not the documented JSON, naming where it is wrong', async () => {
    expect((await failure(run(webhook('/not-json')))).message).toBe(
      'Webhook lookup: invalid answer: the body is not JSON',
    );
    const shape = await failure(run(webhook('/wrong-shape')));
    expect(shape.message).toBe('Webhook lookup: invalid answer: identifiers.0.value must be string');
    expect(shape.transient).toBe(false);
    expect((await failure(run(webhook('/too-long')))).message).toBe(
      'Webhook lookup: invalid answer: identifiers.0.value must be at most 512 characters',
    );
    expect((await failure(run(webhook('/too-many')))).message).toBe(
      'Webhook lookup: the answer holds 3 identifiers, more than the 2 allowed',
    );
  });

  it('5xx and 429 are transient (with Retry-After), other 4xx permanent', async () => {
    const down = await failure(run(webhook('/down')));
    expect(down).toMatchObject({ transient: true, retryAfterMs: 30_000, message: 'Webhook lookup: answered HTTP 503' });
    expect(await failure(run(webhook('/busy')))).toMatchObject({ transient: true, retryAfterMs: undefined });
    expect(await failure(run(webhook('/refused')))).toMatchObject({
      transient: false,
      message: 'Webhook lookup: answered HTTP 400',
    });
    // An endpoint that cannot verify the signature refuses the call.
    expect(await failure(run(webhook('/ids'), [generateCallbackSecret()]))).toMatchObject({
      transient: false,
      message: 'Webhook lookup: answered HTTP 401',
    });
  });

  it('gives up on a slow endpoint at its timeout, as a transient failure', async () => {
    const started = Date.now();
    const slow = await failure(run(webhook('/slow', { timeoutMs: 300 })));
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(slow).toMatchObject({ transient: true, message: 'Webhook lookup: no answer within 300 ms' });
  });

  it('does not call without a signing secret, nor an address the SSRF policy refuses', async () => {
    received.length = 0;
    expect((await failure(run(webhook('/ids'), []))).message).toMatch(/no signing secret/);
    expect(received).toHaveLength(0);
    const strict = outboundTools(policyFromConfig({}), [], []);
    const blocked = await failure(
      runIdentityLookup(webhook('/ids'), KNOWN, { http: strict.http, signingSecrets: [SECRET] }),
    );
    expect(blocked.transient).toBe(false);
    expect(received).toHaveLength(0);
  });
});
