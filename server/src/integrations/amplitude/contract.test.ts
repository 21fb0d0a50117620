import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { amplitudeConfigSchema } from '@shared/integrations';
import { driverContext } from '../../test/driver-context';
import { startAmplitudeFake } from './fake';
import type { FakeCall } from '../../test/fakes/vendor-server';
import { amplitudeDriver } from './driver';

// Amplitude publishes no OpenAPI document, JSON schema or SDK call for its User Privacy API.
// These schemas are OUR transcription of Amplitude's "User Privacy API" documentation page
// (amplitude/amplitude-docs, content/collections/api/en/user-privacy.md; see SOURCES.md), section
// by section. Every request our driver sends to the fake and every answer the fake gives is checked
// against them; they are only as good as that page.
const day = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' };
const entry = {
  // "The amplitude_ids key contains these fields": amplitude_id, requester, requested_on_day; user_id with include_mapped_user_ids.
  type: 'object',
  required: ['amplitude_id', 'requester', 'requested_on_day'],
  additionalProperties: false,
  properties: {
    amplitude_id: { type: 'integer' },
    requester: { type: 'string' },
    requested_on_day: day,
    user_id: { type: 'string' },
  },
};
const job = {
  // Response fields: day, status, amplitude_ids, app ("Included when the deletion request is for multiple projects").
  type: 'object',
  required: ['day', 'status', 'amplitude_ids'],
  properties: {
    day,
    status: { enum: ['staging', 'submitted', 'done'] },
    amplitude_ids: { type: 'array', items: entry },
    app: { type: ['string', 'integer'] },
    invalid_ids: { type: 'array' },
  },
};
const transcription = {
  createBody: {
    // "JSON body parameter": up to 100 ids a request; the flags are "Boolean".
    type: 'object',
    required: ['requester'],
    anyOf: [{ required: ['user_ids'] }, { required: ['amplitude_ids'] }],
    additionalProperties: false,
    properties: {
      amplitude_ids: { type: 'array', items: { type: 'integer' }, maxItems: 100 },
      user_ids: { type: 'array', items: { type: 'string' }, maxItems: 100 },
      requester: { type: 'string', minLength: 1 },
      ignore_invalid_id: { type: 'boolean' },
      delete_from_org: { type: 'boolean' },
      include_mapped_user_ids: { type: 'boolean' },
    },
  },
  createAnswer: { type: 'array', items: job },
  listAnswer: { type: 'array', items: job },
  // "Delete a user from a deletion job", Response: amplitude_id, requester, requested_on_day.
  removeAnswer: {
    type: 'object',
    required: ['amplitude_id', 'requester', 'requested_on_day'],
    additionalProperties: false,
    properties: entry.properties,
  },
};
/** "Status codes": 200, 400, 401. A 429 is not on the page (it gives a limit of one request per second, not the answer past it). */
const DOCUMENTED_STATUSES = [200, 400, 401];

const ajv = new Ajv({ allErrors: true });
const validate = Object.fromEntries(Object.entries(transcription).map(([name, schema]) => [name, ajv.compile(schema)]));
const problemsOf = (name: keyof typeof transcription, value: unknown, what: string) =>
  validate[name]!(value) ? [] : [`${what}: ${ajv.errorsText(validate[name]!.errors)}`];

/** Everything in one call that disagrees with the page. */
function checkCall(call: FakeCall, apiKey: string): string[] {
  const problems: string[] = [];
  const what = `${call.method} ${call.path}${call.query.size ? `?${call.query}` : ''}`;
  // "auth_method: http_basic": the project's API key and secret key.
  const basic = /^Basic (.+)$/.exec(String(call.headers.authorization ?? ''))?.[1];
  if (!basic || !Buffer.from(basic, 'base64').toString().startsWith(`${apiKey}:`))
    problems.push(`${what}: not HTTP Basic with the API key and secret key`);
  const reply = call.reply!;
  if (!DOCUMENTED_STATUSES.includes(reply.status) && reply.status !== 429)
    problems.push(`${what}: answered ${reply.status}, not on the page`);
  const ok = reply.status === 200;
  if (call.method === 'POST' && call.path === '/api/2/deletions/users') {
    if (!String(call.headers['content-type']).startsWith('application/json'))
      problems.push(`${what}: body is not JSON`);
    problems.push(...problemsOf('createBody', JSON.parse(call.body || 'null'), `${what} body`));
    if (ok) problems.push(...problemsOf('createAnswer', reply.body, `${what} answer`));
  } else if (call.method === 'GET' && call.path === '/api/2/deletions/users') {
    // "Query parameters": start_day and end_day required, YYYY-MM-DD; "The largest permitted time range is six months".
    const [start, end] = [call.query.get('start_day') ?? '', call.query.get('end_day') ?? ''];
    if (![...call.query.keys()].every((k) => k === 'start_day' || k === 'end_day'))
      problems.push(`${what}: a query parameter the page does not have`);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(start) || !/^\d{4}-\d{2}-\d{2}$/.test(end))
      problems.push(`${what}: start_day/end_day are not YYYY-MM-DD`);
    else if (Date.parse(end) - Date.parse(start) > 184 * 86_400_000 || start > end)
      problems.push(`${what}: range over six months or reversed`);
    if (ok) problems.push(...problemsOf('listAnswer', reply.body, `${what} answer`));
  } else if (call.method === 'DELETE' && /^\/api\/2\/deletions\/users\/\d+\/\d{4}-\d{2}-\d{2}$/.test(call.path)) {
    if (ok) problems.push(...problemsOf('removeAnswer', reply.body, `${what} answer`));
  } else {
    problems.push(`${what}: not an operation of the page`);
  }
  return problems;
}

let fake: Awaited<ReturnType<typeof startAmplitudeFake>>;
beforeAll(async () => {
  fake = await startAmplitudeFake({ stagingMs: 60_000, submittedMs: 60_000 });
});
afterAll(() => fake?.close());

const ctx = (
  identifier: string,
  config: Record<string, unknown> = {},
  trackingId: string | null = null,
  secretKey = fake.state.secretKey,
) =>
  driverContext(
    'AMPLITUDE',
    amplitudeConfigSchema.parse({ baseUrl: fake.url, requester: 'privacy@example.com', ...config }),
    { apiKey: fake.state.apiKey, secretKey },
    { identifier, trackingId },
  );

describe("Amplitude User Privacy API (our transcription of Amplitude's documentation page)", () => {
  it('every request of the driver and every answer of the fake agree with the page, through schedule, status, cancel and errors', async () => {
    const start = fake.calls.length;
    fake.addUser('amp-user-1');
    const orgUser = fake.addUser('amp-org-user');
    fake.addUser('amp-org-user', '990001');
    const byAmplitudeId = fake.addUser('amp-user-3');

    // A user id in one project, followed from staging through submitted to done.
    const one = await amplitudeDriver.requestDeletion(ctx('amp-user-1'));
    expect(one).toMatchObject({ kind: 'accepted' });
    const oneId = one.kind === 'accepted' ? one.trackingId : '';
    expect(await amplitudeDriver.checkStatus!(ctx('amp-user-1', {}, oneId))).toMatchObject({
      kind: 'pending',
      status: 'PENDING',
    });
    Object.assign(fake.state, { stagingMs: 0 });
    expect(await amplitudeDriver.checkStatus!(ctx('amp-user-1', {}, oneId))).toMatchObject({
      kind: 'pending',
      status: 'PROCESSING',
    });
    Object.assign(fake.state, { submittedMs: 0 });
    expect(await amplitudeDriver.checkStatus!(ctx('amp-user-1', {}, oneId))).toMatchObject({ kind: 'success' });
    Object.assign(fake.state, { stagingMs: 60_000, submittedMs: 60_000 });

    // Across the organization: one job per project, each listing its `app`.
    const org = await amplitudeDriver.requestDeletion(ctx('amp-org-user', { deleteFromOrg: true }));
    expect(org).toMatchObject({ kind: 'accepted', trackingId: expect.stringContaining('@990001:') });
    expect(org.kind === 'accepted' && org.trackingId).toContain(`:${orgUser}`);

    // By amplitude id, then removed from the staging job.
    const third = await amplitudeDriver.requestDeletion(ctx(String(byAmplitudeId), { identifierType: 'amplitude_id' }));
    const thirdId = third.kind === 'accepted' ? third.trackingId : '';
    // The tracking id (shown everywhere, kept after retention) names the subject without its id.
    expect(thirdId).toMatch(/^\d{4}-\d{2}-\d{2}(@\d+)?:subject$/);
    expect(
      await amplitudeDriver.checkStatus!(ctx(String(byAmplitudeId), { identifierType: 'amplitude_id' }, thirdId)),
    ).toMatchObject({ kind: 'pending', status: 'PENDING' });
    expect(
      await amplitudeDriver.cancel!(ctx(String(byAmplitudeId), { identifierType: 'amplitude_id' }, thirdId)),
    ).toMatchObject({ canceled: true });

    // A user Amplitude does not know (ignore_invalid_id), the connection test, a wrong secret, a throttled call.
    expect(await amplitudeDriver.requestDeletion(ctx('amp-nobody'))).toMatchObject({
      kind: 'success',
      evidence: { userFound: false },
    });
    expect(await amplitudeDriver.requestDeletion(ctx('amp-nobody', { ignoreInvalidId: false }))).toMatchObject({
      kind: 'failed',
    });
    expect(await amplitudeDriver.testConnection!(ctx('x'))).toMatchObject({ ok: true });
    expect(await amplitudeDriver.testConnection!(ctx('x', {}, null, 'wrong-secret'))).toMatchObject({ ok: false });
    fake.state.throttleNext = 1;
    expect(await amplitudeDriver.requestDeletion(ctx('amp-user-1'))).toMatchObject({ kind: 'deferred' });

    const calls = fake.calls.slice(start);
    const problems = calls.flatMap((call) => checkCall(call, fake.state.apiKey));
    expect(problems).toEqual([]);
    const seen = new Set(
      calls.map((c) => `${c.method} ${c.path.replace(/\/\d+\/[\d-]+$/, '/{amplitude_id}/{day}')} ${c.reply!.status}`),
    );
    for (const expected of [
      'POST /api/2/deletions/users 200',
      'POST /api/2/deletions/users 400',
      'POST /api/2/deletions/users 429',
      'GET /api/2/deletions/users 200',
      'GET /api/2/deletions/users 401',
      'DELETE /api/2/deletions/users/{amplitude_id}/{day} 200',
    ]) {
      expect(seen).toContain(expected);
    }
  });

  it('refuses what the page does not allow (so a driver or fake that drifts fails this test)', () => {
    const call = (method: string, path: string, body: unknown, reply: FakeCall['reply']): FakeCall => {
      const url = new URL(path, 'http://fake');
      return {
        method,
        path: url.pathname,
        query: url.searchParams,
        headers: {
          authorization: `Basic ${Buffer.from('k:s').toString('base64')}`,
          'content-type': 'application/json',
        },
        body: body === undefined ? '' : JSON.stringify(body),
        at: 0,
        reply,
      };
    };
    const jobAnswer = {
      status: 200,
      body: [
        {
          day: '2030-01-10',
          status: 'staging',
          amplitude_ids: [{ amplitude_id: 1, requester: 'r', requested_on_day: '2030-01-01' }],
        },
      ],
    };
    expect(
      checkCall(
        call('POST', '/api/2/deletions/users', { user_ids: ['u'], requester: 'r', ignore_invalid_id: true }, jobAnswer),
        'k',
      ),
    ).toEqual([]);
    // The flags as strings (what the driver used to send), a missing requester, more than 100 ids.
    expect(
      checkCall(
        call(
          'POST',
          '/api/2/deletions/users',
          { user_ids: ['u'], requester: 'r', ignore_invalid_id: 'True' },
          jobAnswer,
        ),
        'k',
      ).join(),
    ).toMatch(/boolean/);
    expect(checkCall(call('POST', '/api/2/deletions/users', { user_ids: ['u'] }, jobAnswer), 'k').join()).toMatch(
      /requester/,
    );
    expect(
      checkCall(
        call(
          'POST',
          '/api/2/deletions/users',
          { user_ids: Array.from({ length: 101 }, (_, i) => `u${i}`), requester: 'r' },
          jobAnswer,
        ),
        'k',
      ).join(),
    ).toMatch(/100/);
    // Answers as the fake used to give them: a removal answered with the job; a status the page does not have.
    expect(
      checkCall(
        call('DELETE', '/api/2/deletions/users/1/2030-01-10', undefined, {
          status: 200,
          body: { day: '2030-01-10', status: 'staging', amplitude_ids: [] },
        }),
        'k',
      ).join(),
    ).toMatch(/answer/);
    expect(
      checkCall(
        call('GET', '/api/2/deletions/users?start_day=2030-01-01&end_day=2030-01-31', undefined, {
          status: 200,
          body: [{ ...jobAnswer.body[0], status: 'queued' }],
        }),
        'k',
      ).join(),
    ).toMatch(/answer/);
    expect(
      checkCall(
        call('GET', '/api/2/deletions/users?start_day=2030-01-01&end_day=2030-12-31', undefined, {
          status: 200,
          body: [],
        }),
        'k',
      ).join(),
    ).toMatch(/six months/);
    expect(
      checkCall(
        call('GET', '/api/2/deletions/users?start_day=2030-01-01&end_day=2030-01-31', undefined, {
          status: 404,
          body: {},
        }),
        'k',
      ).join(),
    ).toMatch(/not on the page/);
  });
});
