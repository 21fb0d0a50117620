import { randomUUID } from 'node:crypto';
import { bearerOf, startFakeServer, type FakeVendor } from '../../test/fakes/vendor-server';

export interface PosthogPersonRecord {
  id: number;
  uuid: string;
  distinct_ids: string[];
  properties: Record<string, unknown>;
  created_at: string;
}

export interface PosthogFakeState {
  /** Personal API keys PostHog accepts. */
  apiKeys: Set<string>;
  projectId: string;
  persons: Map<string, PosthogPersonRecord>;
  /** Persons deleted, and whether their events were queued for deletion. */
  deleted: { uuid: string; distinctIds: string[]; deleteEvents: boolean; deleteRecordings: boolean }[];
}

const detail = (status: number, code: string, text: string) => ({
  status,
  body: { type: status === 401 ? 'authentication_error' : 'invalid_request', code, detail: text, attr: null },
});

/**
 * PostHog persons API as `posthog/api/person.py` (PostHog/posthog) implements it:
 * GET /api/projects/{id}/persons/?distinct_id= (exact match; `{results, next, previous}` of
 * PersonSerializer fields) and DELETE /api/projects/{id}/persons/{id}/ (person pk or uuid),
 * answered 202 with no body. `delete_events` and `delete_recordings` are read as
 * `"delete_events" in request.GET`: present means on, whatever the value ("false" and "" too).
 * Personal API key as Bearer. `server/src/integrations/posthog/contract.test.ts` holds the fake
 * and our driver to these facts.
 */
export async function startPosthogFake(): Promise<
  FakeVendor<PosthogFakeState> & { addPerson(distinctIds: string[]): PosthogPersonRecord }
> {
  const state: PosthogFakeState = { apiKeys: new Set(), projectId: '4242', persons: new Map(), deleted: [] };
  const server = await startFakeServer((call) => {
    const key = bearerOf(call);
    if (!key || !state.apiKeys.has(key))
      return detail(401, 'authentication_failed', 'Personal API key found in request Authorization header is invalid.');
    const match = /^\/api\/projects\/([^/]+)\/persons\/(?:([^/]+)\/)?$/.exec(call.path);
    if (!match) return detail(404, 'not_found', 'Not found.');
    if (match[1] !== state.projectId)
      return detail(403, 'permission_denied', 'You do not have permission to perform this action.');
    const personId = match[2];
    if (call.method === 'GET' && !personId) {
      const distinctId = call.query.get('distinct_id');
      let results = [...state.persons.values()];
      if (distinctId !== null) results = results.filter((p) => p.distinct_ids.includes(distinctId));
      const limit = Number(call.query.get('limit') ?? 100);
      // PersonSerializer: id, name (first display-name property, else a distinct id), distinct_ids, properties, created_at, uuid.
      const serialized = results.slice(0, limit).map((p) => ({
        id: p.id,
        name: String(p.properties.email ?? p.distinct_ids[0] ?? p.id),
        distinct_ids: p.distinct_ids,
        properties: p.properties,
        created_at: p.created_at,
        uuid: p.uuid,
      }));
      return { status: 200, body: { results: serialized, next: null, previous: null } };
    }
    if (call.method === 'DELETE' && personId) {
      // get_pk_or_uuid: an integer pk or a uuid, anything else is a 400 ValidationError.
      if (
        !/^\d+$/.test(personId) &&
        !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(personId)
      ) {
        return {
          status: 400,
          body: {
            type: 'validation_error',
            code: 'invalid_input',
            detail: `The ID provided does not look like a personID. If you are using a distinctId, please use /persons?distinct_id=${personId} instead.`,
            attr: null,
          },
        };
      }
      const person = [...state.persons.values()].find((p) => p.uuid === personId || String(p.id) === personId);
      if (!person) return detail(404, 'not_found', 'Not found.');
      state.persons.delete(person.uuid);
      // As posthog/api/person.py reads them: `"delete_events" in request.GET`, so any value, "false" and "" included, is on.
      const flag = (name: string) => call.query.has(name);
      state.deleted.push({
        uuid: person.uuid,
        distinctIds: person.distinct_ids,
        deleteEvents: flag('delete_events'),
        deleteRecordings: flag('delete_recordings'),
      });
      return { status: 202 };
    }
    return detail(405, 'method_not_allowed', `Method "${call.method}" not allowed.`);
  });
  let nextId = 1;
  return {
    ...server,
    state,
    addPerson(distinctIds: string[]) {
      const person: PosthogPersonRecord = {
        id: nextId++,
        uuid: randomUUID(),
        distinct_ids: distinctIds,
        properties: {},
        created_at: new Date().toISOString(),
      };
      state.persons.set(person.uuid, person);
      return person;
    },
  };
}
