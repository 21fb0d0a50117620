import { randomUUID } from 'node:crypto';
import { bearerOf, startFakeServer, type FakeVendor } from './vendor-server';

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

const detail = (status: number, code: string, text: string) => ({ status, body: { type: status === 401 ? 'authentication_error' : 'invalid_request', code, detail: text, attr: null } });

/**
 * PostHog persons API: GET /api/projects/{id}/persons/?distinct_id= (exact match) and
 * DELETE /api/projects/{id}/persons/{id}/?delete_events=true&delete_recordings=true (204); each flag counts
 * as set when present with any non-empty value, as PostHog reads it. Personal API key as Bearer.
 */
export async function startPosthogFake(): Promise<FakeVendor<PosthogFakeState> & { addPerson(distinctIds: string[]): PosthogPersonRecord }> {
  const state: PosthogFakeState = { apiKeys: new Set(), projectId: '4242', persons: new Map(), deleted: [] };
  const server = await startFakeServer((call) => {
    const key = bearerOf(call);
    if (!key || !state.apiKeys.has(key)) return detail(401, 'authentication_failed', 'Personal API key found in request Authorization header is invalid.');
    const match = /^\/api\/projects\/([^/]+)\/persons\/(?:([^/]+)\/)?$/.exec(call.path);
    if (!match) return detail(404, 'not_found', 'Not found.');
    if (match[1] !== state.projectId) return detail(403, 'permission_denied', 'You do not have permission to perform this action.');
    const personId = match[2];
    if (call.method === 'GET' && !personId) {
      const distinctId = call.query.get('distinct_id');
      let results = [...state.persons.values()];
      if (distinctId !== null) results = results.filter((p) => p.distinct_ids.includes(distinctId));
      const limit = Number(call.query.get('limit') ?? 100);
      return { status: 200, body: { next: null, previous: null, results: results.slice(0, limit) } };
    }
    if (call.method === 'DELETE' && personId) {
      const person = [...state.persons.values()].find((p) => p.uuid === personId || String(p.id) === personId);
      if (!person) return detail(404, 'not_found', 'Not found.');
      state.persons.delete(person.uuid);
      // As posthog/api/person.py reads them: `request.GET.get(flag)` is truthy for any non-empty value, "false" included.
      const flag = (name: string) => Boolean(call.query.get(name));
      state.deleted.push({ uuid: person.uuid, distinctIds: person.distinct_ids, deleteEvents: flag('delete_events'), deleteRecordings: flag('delete_recordings') });
      return { status: 204 };
    }
    return detail(405, 'method_not_allowed', `Method "${call.method}" not allowed.`);
  });
  let nextId = 1;
  return {
    ...server,
    state,
    addPerson(distinctIds: string[]) {
      const person: PosthogPersonRecord = { id: nextId++, uuid: randomUUID(), distinct_ids: distinctIds, properties: {}, created_at: new Date().toISOString() };
      state.persons.set(person.uuid, person);
      return person;
    },
  };
}
