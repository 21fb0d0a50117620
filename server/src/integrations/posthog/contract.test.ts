import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { posthogConfigSchema } from '@shared/integrations';
import { driverContext } from '../../test/driver-context';
import { startPosthogFake } from './fake';
import { posthogDriver } from './driver';

// PostHog publishes no OpenAPI document for the persons delete (its current source excludes
// `destroy` from the generated schema) and no SDK call for it; these checks are the rules of
// PostHog's own source, `posthog/api/person.py`, as SOURCES.md quotes them. They hold our driver
// and the fake to those rules, so a fake that reads the flags any other way fails here.
const KEY = 'phx_contract_key';
let fake: Awaited<ReturnType<typeof startPosthogFake>>;
beforeAll(async () => {
  fake = await startPosthogFake();
  fake.state.apiKeys.add(KEY);
});
afterAll(() => fake?.close());

const ctx = (identifier: string, config: { deleteEvents: boolean; deleteRecordings: boolean }) =>
  driverContext(
    'POSTHOG',
    posthogConfigSchema.parse({ projectId: fake.state.projectId, baseUrl: fake.url, ...config }),
    { apiKey: KEY },
    { identifier },
  );

/** `PersonViewSet.destroy` reads each flag as `"<flag>" in request.GET`: present is on, whatever its value. */
const flagsAsPosthogReadsThem = (query: URLSearchParams) => ({
  deleteEvents: query.has('delete_events'),
  deleteRecordings: query.has('delete_recordings'),
});

describe('PostHog persons API contract (posthog/api/person.py)', () => {
  it.each([
    { deleteEvents: true, deleteRecordings: true },
    { deleteEvents: true, deleteRecordings: false },
    { deleteEvents: false, deleteRecordings: true },
    { deleteEvents: false, deleteRecordings: false },
  ])('our driver, configured %o, asks PostHog for exactly that', async (config) => {
    const identifier = `ph-${config.deleteEvents}-${config.deleteRecordings}`;
    const person = fake.addPerson([identifier, `anon-${identifier}`]);
    const before = fake.calls.length;
    const outcome = await posthogDriver.requestDeletion(ctx(identifier, config));
    expect(outcome).toMatchObject({
      kind: 'success',
      evidence: {
        personFound: true,
        eventsDeletionQueued: config.deleteEvents,
        recordingsDeleted: config.deleteRecordings,
      },
    });
    const calls = fake.calls.slice(before);
    const auth = `Bearer ${KEY}`;
    // Lookup (PersonFilter / `distinct_id` query parameter), delete, lookup again.
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      `GET /api/projects/${fake.state.projectId}/persons/`,
      `DELETE /api/projects/${fake.state.projectId}/persons/${person.id}/`,
      `GET /api/projects/${fake.state.projectId}/persons/`,
    ]);
    expect(calls.every((c) => c.headers.authorization === auth && c.body === '')).toBe(true);
    expect([...calls[0]!.query.entries()]).toEqual([['distinct_id', identifier]]);
    const remove = calls[1]!;
    // What PostHog would do with our query is what we were configured to do.
    expect(flagsAsPosthogReadsThem(remove.query)).toEqual(config);
    // And the fake did the same.
    expect(fake.state.deleted.at(-1)).toMatchObject({ uuid: person.uuid, ...config });
    expect(remove.reply).toEqual({ status: 202 });
  });

  it('the fake reads a flag by its presence, as PostHog does: "false", "0" and "" are on, absence is off', async () => {
    for (const [query, expected] of [
      ['delete_events=false&delete_recordings=0', { deleteEvents: true, deleteRecordings: true }],
      ['delete_events=&delete_recordings', { deleteEvents: true, deleteRecordings: true }],
      ['delete_recordings=true', { deleteEvents: false, deleteRecordings: true }],
      ['', { deleteEvents: false, deleteRecordings: false }],
    ] as const) {
      const person = fake.addPerson([`raw-${query}`]);
      const response = await fetch(
        `${fake.url}/api/projects/${fake.state.projectId}/persons/${person.uuid}/${query ? `?${query}` : ''}`,
        { method: 'DELETE', headers: { authorization: `Bearer ${KEY}` } },
      );
      expect(response.status, query).toBe(202);
      expect(await response.text()).toBe('');
      expect(fake.state.deleted.at(-1), query).toMatchObject({ uuid: person.uuid, ...expected });
    }
  });

  it('answers as person.py does: PersonSerializer fields in {results, next, previous}, 404 for a person it does not have, 400 for an id that is neither pk nor uuid', async () => {
    const person = fake.addPerson(['listed-subject']);
    const list = await fetch(`${fake.url}/api/projects/${fake.state.projectId}/persons/?distinct_id=listed-subject`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    const body = (await list.json()) as { results: Record<string, unknown>[] };
    expect(Object.keys(body).sort()).toEqual(['next', 'previous', 'results']);
    expect(body.results).toHaveLength(1);
    expect(Object.keys(body.results[0]!).sort()).toEqual([
      'created_at',
      'distinct_ids',
      'id',
      'name',
      'properties',
      'uuid',
    ]);
    expect(body.results[0]).toMatchObject({ id: person.id, uuid: person.uuid, distinct_ids: ['listed-subject'] });
    const gone = await fetch(`${fake.url}/api/projects/${fake.state.projectId}/persons/999999/`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${KEY}` },
    });
    expect(gone.status).toBe(404);
    const notAnId = await fetch(`${fake.url}/api/projects/${fake.state.projectId}/persons/listed-subject/`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${KEY}` },
    });
    expect(notAnId.status).toBe(400);
    expect(((await notAnId.json()) as { detail: string }).detail).toMatch(/does not look like a personID/);
  });
});
