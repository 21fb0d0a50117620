import client from '@sendgrid/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendgridConfigSchema } from '@shared/integrations';
import { callsDuring, expectSameRequest } from '../../test/contract';
import { driverContext } from '../../test/driver-context';
import { startSendgridFake } from './fake';
import { sendgridDriver } from './driver';

// Twilio SendGrid's official Node client (@sendgrid/client) against the same fake.
let fake: Awaited<ReturnType<typeof startSendgridFake>>;
const KEY = 'SG.contract.0123456789';
beforeAll(async () => {
  fake = await startSendgridFake({ jobMs: 50 });
  fake.state.apiKeys.add(KEY);
  client.setApiKey(KEY);
  client.setDefaultRequest('baseUrl', fake.url);
});
afterAll(() => fake?.close());

const ctx = (
  identifier: string,
  trackingId: string | null = null,
  secrets: Record<string, unknown> = { apiKey: KEY },
) => driverContext('SENDGRID', sendgridConfigSchema.parse({ baseUrl: fake.url }), secrets, { identifier, trackingId });
const until = async <T>(read: () => Promise<T>, done: (value: T) => boolean) => {
  for (let i = 0; i < 100; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('never done');
};

describe('SendGrid contract (official @sendgrid/client)', () => {
  it("searches, deletes, polls the job and searches again with the client's requests; the client parses the fake's answers", async () => {
    const contact = fake.addContact('member@example.com');
    const ours = await callsDuring(fake, async () => {
      const accepted = await sendgridDriver.requestDeletion(ctx('member@example.com'));
      expect(accepted).toMatchObject({ kind: 'accepted', status: 'PROCESSING' });
      const jobId = accepted.kind === 'accepted' ? accepted.trackingId : '';
      const done = await until(
        () => sendgridDriver.checkStatus!(ctx('member@example.com', jobId)),
        (o) => o.kind !== 'pending',
      );
      expect(done).toMatchObject({ kind: 'success', evidence: { sendgridJobId: jobId, verifiedGone: true } });
    });
    expect(ours[0]).toMatchObject({ method: 'POST', path: '/v3/marketing/contacts/search/emails' });
    expect(ours[1]).toMatchObject({ method: 'DELETE', path: '/v3/marketing/contacts' });
    expect(ours[1]!.query.get('ids')).toBe(contact.id);

    const other = fake.addContact('member@example.com');
    const [sdkSearch] = await callsDuring(fake, async () => {
      const [response, body] = await client.request({
        method: 'POST',
        url: '/v3/marketing/contacts/search/emails',
        body: { emails: ['member@example.com'] },
      });
      expect(response.statusCode).toBe(200);
      expect(body).toMatchObject({ result: { 'member@example.com': { contact: { id: other.id } } } });
    });
    let jobId = '';
    const [sdkDelete] = await callsDuring(fake, async () => {
      const [response, body] = await client.request({
        method: 'DELETE',
        url: '/v3/marketing/contacts',
        qs: { ids: other.id },
      });
      expect(response.statusCode).toBe(202);
      jobId = (body as { job_id: string }).job_id;
    });
    const [sdkJob] = await callsDuring(fake, async () =>
      expect(
        (await client.request({ method: 'GET', url: `/v3/marketing/contacts/imports/${jobId}` }))[1],
      ).toMatchObject({ id: jobId, job_type: 'delete' }),
    );
    const ourJob = ours.find((c) => c.path.startsWith('/v3/marketing/contacts/imports/'))!;
    expectSameRequest(ours[0], sdkSearch);
    expectSameRequest(
      { ...ours[1]!, query: new URLSearchParams({ ids: '{id}' }) },
      { ...sdkDelete!, query: new URLSearchParams({ ids: '{id}' }) },
    );
    expectSameRequest({ ...ourJob, path: '/job' }, { ...sdkJob!, path: '/job' });
  });

  it('no contact is nothing to delete; a bad key fails at once; a 429 waits for X-RateLimit-Reset', async () => {
    expect(await sendgridDriver.requestDeletion(ctx('nobody@example.com'))).toMatchObject({
      kind: 'success',
      evidence: { contactFound: false },
    });
    expect(await sendgridDriver.requestDeletion(ctx('x@example.com', null, { apiKey: 'SG.revoked' }))).toEqual({
      kind: 'failed',
      reason:
        'SendGrid refused the credentials: HTTP 401: The provided authorization grant is invalid, expired, or revoked',
    });
    fake.state.throttleNext = 1;
    const outcome = await sendgridDriver.requestDeletion(ctx('x@example.com'));
    const waitMs = outcome.kind === 'deferred' ? outcome.until.getTime() - Date.now() : 0;
    expect(waitMs).toBeGreaterThan(3_000);
  });
});
