import { v2 } from 'pipedrive';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pipedriveConfigSchema } from '@shared/integrations/pipedrive';
import { callsDuring, expectSameRequest } from '../../test/contract';
import { driverContext } from '../../test/driver-context';
import { startPipedriveFake } from './fake';
import { pipedriveDriver } from './driver';

// Pipedrive's official Node SDK (`pipedrive`, generated from Pipedrive's OpenAPI document) is
// driven against the same fake: our requests must equal the SDK's, and the SDK must read the
// fake's answers as Pipedrive's.
let fake: Awaited<ReturnType<typeof startPipedriveFake>>;
const TOKEN = 'pd-contract-0123456789abcdef';
const KEY_HEADER = ['x-api-token'];
beforeAll(async () => {
  fake = await startPipedriveFake();
  fake.state.apiTokens.add(TOKEN);
});
afterAll(() => fake?.close());

const ctx = (
  identifier: string,
  config: Record<string, unknown> = {},
  secrets: Record<string, unknown> = { apiKey: TOKEN },
) => driverContext('PIPEDRIVE', pipedriveConfigSchema.parse({ baseUrl: fake.url, ...config }), secrets, { identifier });
const sdk = () => new v2.PersonsApi(new v2.Configuration({ apiKey: TOKEN, basePath: `${fake.url}/api/v2` }));

describe('Pipedrive contract (official pipedrive SDK, API v2)', () => {
  it("searches by exact email, deletes and fetches again as proof with the SDK's requests; a look-alike stays", async () => {
    const subject = fake.addPerson('Buyer@Example.com');
    const lookalike = fake.addPerson('buyer@example.com.au');
    const namesake = fake.addPerson('someone@example.com', 'buyer@example.com');
    const ours = await callsDuring(fake, async () =>
      expect(await pipedriveDriver.requestDeletion(ctx('buyer@example.com'))).toMatchObject({
        kind: 'success',
        evidence: { personsFound: 1, personIds: [String(subject.id)], verifiedGone: true },
      }),
    );
    expect(ours.map((c) => `${c.method} ${c.path} ${c.reply?.status}`)).toEqual([
      'GET /api/v2/persons/search 200',
      `DELETE /api/v2/persons/${subject.id} 200`,
      `GET /api/v2/persons/${subject.id} 404`,
    ]);
    expect(fake.state.persons.get(lookalike.id)?.is_deleted).toBe(false);
    expect(fake.state.persons.get(namesake.id)?.is_deleted).toBe(false);

    const again = fake.addPerson('buyer@example.com');
    const [sdkSearch] = await callsDuring(fake, async () => {
      const found = await sdk().searchPersons({
        term: 'buyer@example.com',
        fields: 'email',
        exact_match: true,
        limit: 100,
      });
      expect(found.data?.items?.map((i) => i.item?.id)).toEqual([again.id]);
      expect(found.data?.items?.[0]?.item?.emails).toEqual(['buyer@example.com']);
    });
    const [sdkDelete] = await callsDuring(fake, async () =>
      expect(await sdk().deletePerson({ id: again.id })).toEqual({ success: true, data: { id: again.id } }),
    );
    const [sdkGet] = await callsDuring(fake, () =>
      expect(sdk().getPerson({ id: again.id })).rejects.toMatchObject({ success: false, error: 'Person not found' }),
    );
    expectSameRequest(ours[0], sdkSearch, KEY_HEADER);
    expect(shapePath(ours[1]!, subject.id, again.id)).toEqual(sdkDelete!.path);
    expect(ours[1]!.headers['x-api-token']).toBe(sdkDelete!.headers['x-api-token']);
    expect(shapePath(ours[2]!, subject.id, again.id)).toEqual(sdkGet!.path);
  });

  it('the SDK reads a person as the fake gives it; search pages follow next_cursor', async () => {
    const person = fake.addPerson('paged@example.com');
    const got = await sdk().getPerson({ id: person.id });
    expect(got).toMatchObject({ success: true, data: { id: person.id, is_deleted: false } });
    fake.state.maxPage = 1;
    const second = fake.addPerson('PAGED@example.com');
    const calls = await callsDuring(fake, async () =>
      expect(await pipedriveDriver.requestDeletion(ctx('paged@example.com'))).toMatchObject({
        kind: 'success',
        evidence: { personIds: [String(person.id), String(second.id)] },
      }),
    );
    fake.state.maxPage = 500;
    expect(calls.filter((c) => c.path.endsWith('/search')).map((c) => c.query.has('cursor'))).toEqual([false, true]);
  });

  it('by person id; no person is nothing to delete; an id that is not one fails without a call', async () => {
    const person = fake.addPerson('byid@example.com');
    expect(
      await pipedriveDriver.requestDeletion(ctx(String(person.id), { identifierType: 'person_id' })),
    ).toMatchObject({
      kind: 'success',
      evidence: { personIds: [String(person.id)], verifiedGone: true },
    });
    expect(
      await pipedriveDriver.requestDeletion(ctx(String(person.id), { identifierType: 'person_id' })),
    ).toMatchObject({
      kind: 'success',
      evidence: { personsFound: 0 },
    });
    expect(await pipedriveDriver.requestDeletion(ctx('nobody@example.com'))).toMatchObject({
      kind: 'success',
      evidence: { personsFound: 0 },
    });
    const calls = await callsDuring(fake, async () =>
      expect(await pipedriveDriver.requestDeletion(ctx('12/../1', { identifierType: 'person_id' }))).toMatchObject({
        kind: 'failed',
      }),
    );
    expect(calls).toEqual([]);
  });

  it("fails at once with Pipedrive's words for a bad token; a 429 waits x-ratelimit-reset without using an attempt", async () => {
    expect(await pipedriveDriver.requestDeletion(ctx('x@example.com', {}, { apiKey: 'revoked' }))).toEqual({
      kind: 'failed',
      reason: 'Pipedrive refused the credentials: HTTP 401: unauthorized access',
    });
    fake.state.throttleNext = 1;
    fake.state.resetSeconds = 6;
    const now = new Date();
    expect(await pipedriveDriver.requestDeletion({ ...ctx('x@example.com'), now })).toMatchObject({
      kind: 'deferred',
      until: new Date(now.getTime() + 6_000),
    });
    expect(await pipedriveDriver.testConnection(ctx('x@example.com'))).toEqual({
      ok: true,
      message: 'Pipedrive accepted the API token',
    });
  });
});

/** A call's path with the driver's person id written as the SDK's, to compare the two. */
function shapePath(call: { path: string }, ours: number, theirs: number): string {
  return call.path.replace(String(ours), String(theirs));
}
