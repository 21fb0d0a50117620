import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mixpanelConfigSchema } from '@shared/integrations';
import { driverContext } from '../../test/driver-context';
import { startMixpanelFake } from './fake';
import { gitBlobId, VendorOpenApi, type UndocumentedAnswer } from '../../test/fakes/vendor-openapi';
import type { FakeCall } from '../../test/fakes/vendor-server';
import { mixpanelDriver } from './driver';
import { mixpanelRateLimiter } from './rate-limiter';

// Mixpanel's own GDPR API OpenAPI document (see SOURCES.md): every request our driver sends to
// the fake, and every answer the fake gives, is validated against it.
const DOCUMENT = new URL('./vendor/gdpr.openapi.yaml', import.meta.url);
/** `git hash-object` of openapi/gdpr.openapi.yaml in github.com/mixpanel/docs (commit 12e8c38d…, unchanged at ba229069…). */
const DOCUMENT_BLOB = '87bb8a9494c385aef13e7090a810c6e1a18fd83d';

/** Answers the document does not list, each with where it comes from (SOURCES.md says the same). */
const UNDOCUMENTED: UndocumentedAnswer[] = [
  {
    operation: '*',
    status: 429,
    source: 'Mixpanel reference page "GDPR and CCPA API (v3)", Rate Limit: 429 past 1 request per second',
  },
  {
    operation: 'DELETE /data-deletions/v3.0/{tracking_id}',
    status: 405,
    source: 'Mixpanel reference page, Cancel Deletion: "204 NoContent or 405 MethodNotAllowed"',
  },
  {
    operation: 'POST /data-deletions/v3.0',
    status: 409,
    source:
      'rudderlabs/rudder-transformer PR #5564 and #5578 (met in production): neither the document nor the reference page has a 409',
  },
];

const TOKEN = 'mixpanel-contract-oauth';
const PROJECT = 'mixpanelcontractproject';
let fake: Awaited<ReturnType<typeof startMixpanelFake>>;
let contract: VendorOpenApi;

beforeAll(async () => {
  contract = await VendorOpenApi.load(DOCUMENT);
  fake = await startMixpanelFake({ minIntervalMs: 0, retryAfter: '0.05' });
  fake.state.tokens.add(TOKEN);
  fake.state.projects.add(PROJECT);
  mixpanelRateLimiter.intervalMs = 20;
});
afterAll(() => fake?.close());

const config = () => mixpanelConfigSchema.parse({ projectToken: PROJECT, baseUrl: fake.url });
const ctx = (identifier: string, trackingId: string | null = null, token = TOKEN) =>
  driverContext('MIXPANEL', config(), { accessToken: token }, { identifier, trackingId });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function accepted(identifier: string): Promise<string> {
  const outcome = await mixpanelDriver.requestDeletion(ctx(identifier));
  expect(outcome).toMatchObject({ kind: 'accepted', status: 'PENDING' });
  return outcome.kind === 'accepted' ? outcome.trackingId : '';
}

/** A request as a fake would record it, for showing what the document refuses. */
function call(
  method: string,
  pathAndQuery: string,
  init: { body?: unknown; auth?: string; reply?: FakeCall['reply'] } = {},
): FakeCall {
  const url = new URL(pathAndQuery, 'http://fake');
  const body = init.body === undefined ? '' : JSON.stringify(init.body);
  const headers: FakeCall['headers'] = {
    authorization: init.auth ?? 'Bearer t',
    ...(body ? { 'content-type': 'application/json' } : {}),
  };
  return { method, path: url.pathname, query: url.searchParams, headers, body, at: Date.now(), reply: init.reply };
}

describe('Mixpanel GDPR API contract (vendor/gdpr.openapi.yaml)', () => {
  it("is the vendor's document, unchanged, and a valid OpenAPI document with the three deletion operations", () => {
    expect(gitBlobId(readFileSync(DOCUMENT))).toBe(DOCUMENT_BLOB);
    expect(contract.document.openapi).toBe('3.0.2');
    expect(contract.version).toBe('3.0.0');
    expect(contract.basePath).toBe('/api/app');
    expect(contract.operations()).toEqual(
      expect.arrayContaining([
        'POST /data-deletions/v3.0',
        'GET /data-deletions/v3.0/{tracking_id}',
        'DELETE /data-deletions/v3.0/{tracking_id}',
      ]),
    );
  });

  it('the document has no 409 for a create: the 409 body we read (error.conflicting_task_ids) comes from Rudderstack, not from Mixpanel', () => {
    const responses = contract.document.paths['/data-deletions/v3.0'].post.responses;
    expect(Object.keys(responses).sort()).toEqual(['201', '401', '403']);
  });

  it("every request of the driver and every answer of the fake, through a deletion's whole life, conform to the document", async () => {
    const start = fake.calls.length;
    // Create, then follow the task through PENDING, STAGING and STARTED to SUCCESS.
    Object.assign(fake.state, { pendingMs: 200, startedMs: 150 });
    const taskId = await accepted('contract-subject-1');
    let outcome = await mixpanelDriver.checkStatus!(ctx('contract-subject-1', taskId));
    for (const until = Date.now() + 15_000; outcome.kind === 'pending' && Date.now() < until;) {
      await sleep(25);
      outcome = await mixpanelDriver.checkStatus!(ctx('contract-subject-1', taskId));
    }
    expect(outcome).toMatchObject({ kind: 'success', evidence: { mixpanelTaskId: taskId, mixpanelStatus: 'SUCCESS' } });

    // The request's own regulation is the compliance type; a custom policy takes the integration's setting.
    const filedAs = async (identifier: string, regulation: string) => {
      const outcome = await mixpanelDriver.requestDeletion(
        driverContext('MIXPANEL', config(), { accessToken: TOKEN }, { identifier, regulation }),
      );
      expect(outcome).toMatchObject({ kind: 'accepted' });
      const created = fake.calls.filter((c) => c.method === 'POST').at(-1)!;
      return (JSON.parse(created.body) as { compliance_type: string }).compliance_type;
    };
    expect(await filedAs('contract-subject-ccpa', 'CCPA')).toBe('CCPA');
    expect(await filedAs('contract-subject-custom', 'Quebec Law 25')).toBe('GDPR');

    // A resend while the first task is open: 409, followed.
    Object.assign(fake.state, { pendingMs: 60_000, startedMs: 60_000 });
    const open = await accepted('contract-subject-2');
    expect(await mixpanelDriver.requestDeletion(ctx('contract-subject-2'))).toMatchObject({
      kind: 'accepted',
      trackingId: open,
    });

    // A 409 that names no task: Mixpanel is deleting already, so the request waits and asks again, never FAILED.
    fake.state.conflictNamesTasks = false;
    const unnamed = await mixpanelDriver.requestDeletion(ctx('contract-subject-2'));
    fake.state.conflictNamesTasks = true;
    expect(unnamed).toMatchObject({
      kind: 'deferred',
      message: expect.stringMatching(
        /^Mixpanel is already deleting this distinct id \(HTTP 409\) but did not name its task/,
      ),
    });
    expect(unnamed.kind === 'deferred' && unnamed.until.getTime() - Date.now()).toBeGreaterThan(3_000_000);

    // Cancel while PENDING (204), then the status says REVOKED.
    expect(await mixpanelDriver.cancel!(ctx('contract-subject-2', open))).toMatchObject({ canceled: true });
    expect(await mixpanelDriver.checkStatus!(ctx('contract-subject-2', open))).toMatchObject({
      kind: 'failed',
      reason: expect.stringContaining('was revoked at Mixpanel: the data was not deleted'),
    });

    // Cancel once STARTED: refused (405).
    Object.assign(fake.state, { pendingMs: 0, startedMs: 60_000 });
    const late = await accepted('contract-subject-3');
    expect(await mixpanelDriver.cancel!(ctx('contract-subject-3', late))).toMatchObject({ canceled: false });

    // A task Mixpanel does not know, a connection test, a refused token.
    expect(await mixpanelDriver.checkStatus!(ctx('x', 'no-such-task'))).toMatchObject({
      kind: 'failed',
      reason: expect.stringContaining('NOT_FOUND'),
    });
    expect(await mixpanelDriver.testConnection!(ctx('x'))).toMatchObject({ ok: true });
    expect(await mixpanelDriver.testConnection!(ctx('x', null, 'not-a-token'))).toMatchObject({ ok: false });
    expect(await mixpanelDriver.requestDeletion(ctx('contract-subject-4', null, 'not-a-token'))).toMatchObject({
      kind: 'failed',
    });

    // Faster than Mixpanel allows: 429, queued.
    fake.state.minIntervalMs = 60_000;
    await expect(mixpanelDriver.checkStatus!(ctx('x', late))).rejects.toThrow(/rate limit/);
    expect(await mixpanelDriver.requestDeletion(ctx('contract-subject-5'))).toMatchObject({ kind: 'deferred' });
    fake.state.minIntervalMs = 0;

    const calls = fake.calls.slice(start);
    expect(contract.checkCalls(calls, UNDOCUMENTED)).toEqual([]);
    const exercised = contract.exercised(calls);
    for (const seen of [
      'POST /data-deletions/v3.0 201',
      'POST /data-deletions/v3.0 409',
      'POST /data-deletions/v3.0 401',
      'POST /data-deletions/v3.0 429',
      'GET /data-deletions/v3.0/{tracking_id} 200',
      'GET /data-deletions/v3.0/{tracking_id} 401',
      'GET /data-deletions/v3.0/{tracking_id} 429',
      'DELETE /data-deletions/v3.0/{tracking_id} 204',
      'DELETE /data-deletions/v3.0/{tracking_id} 405',
    ]) {
      expect(exercised).toContain(seen);
    }
  });

  it('refuses what the document does not allow (so a driver or fake that drifts fails this test)', () => {
    const problems = (c: FakeCall) => [...contract.checkRequest(c), ...contract.checkResponse(c, UNDOCUMENTED)];
    const created = { status: 201, body: { status: 'ok', results: { task_id: 't1' } } };
    // A well-formed create passes.
    expect(
      problems(
        call('POST', '/api/app/data-deletions/v3.0?token=p', {
          body: { distinct_ids: ['a'], compliance_type: 'GDPR' },
          reply: created,
        }),
      ),
    ).toEqual([]);
    // Trailing slash (the reference page's curl form, which the driver used to send), no project token, no Bearer, wrong body types.
    expect(
      problems(
        call('POST', '/api/app/data-deletions/v3.0/?token=p', { body: { distinct_ids: ['a'] }, reply: created }),
      ).join(),
    ).toMatch(/no such operation/);
    expect(
      problems(call('POST', '/api/app/data-deletions/v3.0', { body: { distinct_ids: ['a'] }, reply: created })).join(),
    ).toMatch(/"token" is missing/);
    expect(
      problems(
        call('POST', '/api/app/data-deletions/v3.0?token=p', {
          body: { distinct_ids: ['a'] },
          auth: 'Basic dTpw',
          reply: created,
        }),
      ).join(),
    ).toMatch(/security requirement/);
    expect(
      problems(
        call('POST', '/api/app/data-deletions/v3.0?token=p', { body: { distinct_ids: 'a' }, reply: created }),
      ).join(),
    ).toMatch(/request body does not match/);
    expect(problems(call('POST', '/api/app/data-deletions/v3.0?token=p', { reply: created })).join()).toMatch(
      /request body is required/,
    );
    // Answers as the fake used to give them: create 200, status with `result` and without the job's fields, cancel 200 with a body.
    expect(
      problems(
        call('POST', '/api/app/data-deletions/v3.0?token=p', {
          body: { distinct_ids: ['a'] },
          reply: { status: 200, body: created.body },
        }),
      ).join(),
    ).toMatch(/answered 200/);
    expect(
      problems(
        call('GET', '/api/app/data-deletions/v3.0/t1?token=p', {
          reply: {
            status: 200,
            body: { status: 'ok', results: { status: 'PENDING', result: '', distinct_ids: ['a'] } },
          },
        }),
      ).join(),
    ).toMatch(/200 answer does not match/);
    expect(
      problems(
        call('GET', '/api/app/data-deletions/v3.0/t1?token=p', {
          reply: {
            status: 200,
            body: {
              status: 'ok',
              results: {
                tracking_id: 't1',
                status: 'DONE',
                requesting_user: 'u',
                compliance_type: 'GDPR',
                project_id: 1,
                date_requested: '',
                distinct_ids: [],
              },
            },
          },
        }),
      ).join(),
    ).toMatch(/allowed values/);
    expect(
      problems(
        call('DELETE', '/api/app/data-deletions/v3.0/t1?token=p', { reply: { status: 200, body: { status: 'ok' } } }),
      ).join(),
    ).toMatch(/answered 200/);
    expect(
      problems(
        call('DELETE', '/api/app/data-deletions/v3.0/t1?token=p', { reply: { status: 204, body: { status: 'ok' } } }),
      ).join(),
    ).toMatch(/no body/);
    // A 401 must carry {error, status: "error"}.
    expect(
      problems(
        call('GET', '/api/app/data-deletions/v3.0/t1?token=p', {
          reply: { status: 401, body: { status: 'failed', error: 'x' } },
        }),
      ).join(),
    ).toMatch(/401 answer does not match/);
    // A 409 is allowed only on create, and only because it is listed as undocumented.
    expect(
      problems(call('GET', '/api/app/data-deletions/v3.0/t1?token=p', { reply: { status: 409, body: {} } })).join(),
    ).toMatch(/does not list/);
  });
});
