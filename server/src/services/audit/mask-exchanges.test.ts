import http from 'node:http';
import { recordedDetails } from './recorded-exchanges';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskIdentifier } from '@shared/mask-identifier';
import { FAST_ENGINE_CONFIG, startTestWorker, waitForRequest } from '../../test/engine';
import { callerFor, createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../../test/harness';
import { createSession } from '../auth/sessions';
import { identifierMasker } from './mask-exchanges';

describe('identifierMasker', () => {
  const mask = identifierMasker(['Jane.Doe+news@Example.com', 'u 4', '+14155550100']);
  const masked = maskIdentifier('Jane.Doe+news@Example.com');

  it('masks an identifier however an exchange wrote it', () => {
    for (const written of [
      'Jane.Doe+news@Example.com',
      'jane.doe+news@example.com',
      'JANE.DOE+NEWS@EXAMPLE.COM',
      'Jane.Doe%2Bnews%40Example.com',
      'jane.doe%2bnews%40example.com',
      'Jane.Doe%252Bnews%2540Example.com',
      'Jane.Doe+news\\u0040Example.com',
      'Jane.Doe\\u002bnews\\\\u0040Example.com',
      'Jane.Doe+news&#64;Example.com',
      Buffer.from('Jane.Doe+news@Example.com').toString('base64'),
    ])
      expect(mask(`{"email":"${written}"}`)).toBe(`{"email":"${masked}"}`);
  });

  it('masks a phone number with and without its +, a short value only where it stands alone', () => {
    expect(mask('to=%2B14155550100&alt=14155550100')).toBe(`to=${maskIdentifier('+14155550100')}&alt=+1***00`);
    expect(mask('/users/u+4?n=u%204&took=1u 4x')).toBe('/users/***?n=***&took=1u 4x');
    expect(mask('nothing of theirs here')).toBe('nothing of theirs here');
  });
});

// A request whose identifiers travel in a recorded exchange: the email given with it, a user id
// given with it, an anonymous id an identity lookup found. The destination echoes each of them
// back, in every spelling, in its response body.
const email = 'Mask.Person+q@Example.org';
const userId = 'usr_7731942';
const anonymousId = 'anon-5501-zz';
const identifiers = [email, userId, anonymousId];

/** Every way a response could carry one identifier: as written, case-folded, URL-encoded, JSON-escaped. */
function spellingsOf(value: string): string[] {
  return [
    value,
    value.toLowerCase(),
    value.toUpperCase(),
    encodeURIComponent(value),
    value.replaceAll('@', '\\u0040'),
    value.replaceAll('@', '%40'),
  ];
}

/** Every string inside a value, one per line, so an escaped form is read as it is stored. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(textOf).join('\n');
  if (value && typeof value === 'object')
    return Object.entries(value)
      .map(([key, item]) => `${key}\n${textOf(item)}`)
      .join('\n');
  return String(value);
}

function expectNoIdentifier(text: string) {
  const folded = text.toLowerCase();
  for (const value of identifiers)
    for (const spelling of spellingsOf(value)) expect(folded, spelling).not.toContain(spelling.toLowerCase());
}

let env: TestEnv;
let server: Awaited<ReturnType<typeof startTestServer>>;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let destination: http.Server;
let org: Awaited<ReturnType<typeof seedOrganization>>;
let requestId: string;

async function listen(handler: http.RequestListener): Promise<{ server: http.Server; url: string }> {
  const listener = http.createServer(handler);
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  return { server: listener, url: `http://127.0.0.1:${(listener.address() as AddressInfo).port}` };
}

beforeAll(async () => {
  const echo = await listen((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url?.startsWith('/identities')) {
        res.end(JSON.stringify({ identifiers: [{ type: 'anonymous_id', value: anonymousId }] }));
        return;
      }
      // Written by hand: a JSON encoder that escapes "@", a log line that folds case, a link.
      res.end(
        `{"erased":"${email.toUpperCase()}","as":"${email.replace('@', '\\u0040')}",` +
          `"link":"https://crm.test/people?e=${encodeURIComponent(email.toLowerCase())}",` +
          `"ids":["${userId.toUpperCase()}","${anonymousId}"]}`,
      );
    });
  });
  destination = echo.server;
  env = await createTestEnv(FAST_ENGINE_CONFIG);
  server = await startTestServer(env.deps);
  worker = await startTestWorker(env);
  org = await seedOrganization(env.deps, 'masking');
  const { caller } = callerFor(env.deps, { pat: org.pat });
  await caller.identities.createType({ name: 'anonymous_id' });
  await caller.identities.createLookup({
    workspaceId: org.workspace.id,
    kind: 'webhook',
    name: 'identity service',
    url: `${echo.url}/identities`,
    timeoutMs: 5_000,
    maxIdentifiers: 5,
  });
  await caller.integrations.create({
    workspaceId: org.workspace.id,
    name: 'CRM',
    type: 'WEBHOOK',
    config: { initiate: { url: `${echo.url}/erase?email={{identifier}}`, body: '{"email":"{{identifier}}"}' } },
  });
  const created = await caller.deletionRequests.createInWorkspace({
    workspaceId: org.workspace.id,
    identifier: email,
    identifiers: [{ type: 'user_id', value: userId }],
  });
  requestId = created.id;
  const done = await waitForRequest(env, requestId);
  expect(done.status).toBe('SUCCESS');
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await server?.close();
  await env?.close();
  await new Promise((resolve) => destination?.close(resolve));
});

const dashboard = async () =>
  callerFor(env.deps, {
    sessionToken: await createSession(env.db.prisma, org.user.id, org.organization.id),
  }).caller;

describe('identifiers in recorded exchanges', () => {
  it('are recorded as sent and received (the evidence), so there is something to mask', async () => {
    const stored = await env.db.prisma.auditLog.findMany({ where: { deletionRequestId: requestId } });
    const text = textOf(stored.map((entry) => recordedDetails(entry.details, entry.exchanges)));
    expect(text).toContain(encodeURIComponent(email));
    expect(text).toContain(email.replace('@', '\\u0040'));
    expect(text).toContain(anonymousId);
    expect(text).toContain(userId.toUpperCase());
  });

  it("are masked in the dashboard's detail, the session's audit trail, the organization log and the CSV", async () => {
    const caller = await dashboard();
    const detail = await caller.dashboard.requestDetail({ deletionRequestId: requestId });
    expect(detail.auditTrail.some((entry) => JSON.stringify(entry.details).includes('exchanges'))).toBe(true);
    expectNoIdentifier(textOf(detail));
    expect(textOf(detail.auditTrail)).toContain(maskIdentifier(email));

    expectNoIdentifier(textOf(await caller.deletionRequests.auditTrail({ deletionRequestId: requestId })));
    expectNoIdentifier(
      textOf(await caller.dashboard.auditLog({ limit: 100, filter: { deletionRequestId: requestId } })),
    );

    const session = await createSession(env.db.prisma, org.user.id, org.organization.id);
    const credentials: Record<string, string>[] = [{ 'x-api-key': org.pat }, { cookie: `dds_session=${session}` }];
    for (const headers of credentials) {
      const response = await fetch(`${server.baseUrl}/api/downloads/requests/${requestId}/audit-trail.csv`, {
        headers,
      });
      expect(response.status).toBe(200);
      const csv = await response.text();
      expect(csv).toContain(maskIdentifier(email));
      expectNoIdentifier(csv);
    }
  });

  it('stay as recorded for the API token that submitted them (the public audit trail is unchanged)', async () => {
    const { caller } = callerFor(env.deps, { pat: org.pat });
    const trail = textOf(await caller.deletionRequests.auditTrail({ deletionRequestId: requestId }));
    expect(trail).toContain(encodeURIComponent(email));
  });

  it('are shown only through the audited reveal, which names who saw them', async () => {
    const caller = await dashboard();
    const before = await env.db.prisma.auditLog.count({
      where: { deletionRequestId: requestId, action: 'request.exchanges_revealed' },
    });
    expect(before).toBe(0);
    const revealed = await caller.dashboard.revealAuditTrail({ deletionRequestId: requestId });
    const text = textOf(revealed.entries).toLowerCase();
    for (const value of identifiers) expect(text).toContain(value.toLowerCase());
    const entries = await env.db.prisma.auditLog.findMany({
      where: { deletionRequestId: requestId, action: 'request.exchanges_revealed' },
    });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actorType: 'user:dashboard', actorId: org.user.id });
    expectNoIdentifier(textOf(entries[0]));
    // The detail stays masked after a reveal; it shows the reveal in its trail.
    const detail = await caller.dashboard.requestDetail({ deletionRequestId: requestId });
    expectNoIdentifier(textOf(detail));
    expect(detail.auditTrail.map((entry) => entry.action)).toContain('request.exchanges_revealed');
  });
});
