import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailchimpConfigSchema } from '@shared/integrations';
import { callsDuring, expectSameRequest } from '../../test/contract';
import { driverContext } from '../../test/driver-context';
import { startMailchimpFake } from './fake';
import { mailchimpDriver, subscriberHash } from './driver';

// Mailchimp's official Node SDK (@mailchimp/mailchimp_marketing, generated from its OpenAPI document).
const require = createRequire(import.meta.url);
const mailchimp = require('@mailchimp/mailchimp_marketing') as {
  basePath: string;
  setConfig(config: { apiKey: string; server: string }): void;
  lists: {
    getListMember(list: string, hash: string): Promise<unknown>;
    deleteListMemberPermanent(list: string, hash: string): Promise<unknown>;
  };
  ping: { get(): Promise<unknown> };
};

let fake: Awaited<ReturnType<typeof startMailchimpFake>>;
const KEY = '0123456789abcdef0123456789abcdef-us6';
beforeAll(async () => {
  fake = await startMailchimpFake();
  fake.state.apiKeys.add(KEY);
  mailchimp.setConfig({ apiKey: KEY, server: 'us6' });
  mailchimp.basePath = `${fake.url}/3.0`;
});
afterAll(() => fake?.close());

const ctx = (identifier: string, secrets: Record<string, unknown> = { apiKey: KEY }) =>
  driverContext('MAILCHIMP', mailchimpConfigSchema.parse({ listId: fake.state.listId, baseUrl: fake.url }), secrets, {
    identifier,
  });

describe('Mailchimp contract (official @mailchimp/mailchimp_marketing)', () => {
  it("looks up, permanently deletes and looks again with the SDK's requests; the SDK parses the fake's answers", async () => {
    const hash = fake.addMember('Reader@Example.com');
    expect(hash).toBe(subscriberHash('reader@example.com'));
    const ours = await callsDuring(fake, async () => {
      expect(await mailchimpDriver.requestDeletion(ctx('Reader@Example.com'))).toMatchObject({
        kind: 'success',
        evidence: { memberFound: true, subscriberHash: hash, verifiedGone: true },
      });
    });
    expect(ours.map((c) => `${c.method} ${c.path}`)).toEqual([
      `GET /3.0/lists/${fake.state.listId}/members/${hash}`,
      `POST /3.0/lists/${fake.state.listId}/members/${hash}/actions/delete-permanent`,
      `GET /3.0/lists/${fake.state.listId}/members/${hash}`,
    ]);
    expect(fake.state.erased.has('Reader@Example.com')).toBe(true);

    const again = fake.addMember('reader@example.com');
    const [sdkGet] = await callsDuring(fake, async () =>
      expect(await mailchimp.lists.getListMember(fake.state.listId, again)).toMatchObject({
        email_address: 'reader@example.com',
      }),
    );
    const [sdkDelete] = await callsDuring(fake, () =>
      mailchimp.lists.deleteListMemberPermanent(fake.state.listId, again),
    );
    const [sdkGone] = await callsDuring(fake, async () =>
      expect(mailchimp.lists.getListMember(fake.state.listId, again)).rejects.toMatchObject({ status: 404 }),
    );
    expectSameRequest(ours[0], sdkGet);
    expectSameRequest(ours[1], sdkDelete);
    expectSameRequest(ours[2], sdkGone);
  });

  it("no member is nothing to delete; a bad key fails at once with Mailchimp's words; a 429 waits", async () => {
    expect(await mailchimpDriver.requestDeletion(ctx('nobody@example.com'))).toEqual({
      kind: 'success',
      message: expect.any(String),
      evidence: { memberFound: false },
    });
    expect(
      await mailchimpDriver.requestDeletion(ctx('x@example.com', { apiKey: 'ffffffffffffffffffffffffffffffff-us6' })),
    ).toEqual({
      kind: 'failed',
      reason:
        "Mailchimp refused the credentials: HTTP 401: API Key Invalid: Your API key may be invalid, or you've attempted to access the wrong datacenter.",
    });
    fake.state.throttleNext = 1;
    expect(await mailchimpDriver.requestDeletion(ctx('x@example.com'))).toMatchObject({
      kind: 'deferred',
      message: expect.stringContaining('Mailchimp rate limit'),
    });
  });
});
