import { POSTHOG_HOSTS, vendorBaseUrl, type PosthogConfig } from '@shared/integrations';
import type { HttpClient, HttpResponse } from '../runtime/http-client';

/** A person as PostHog's persons API returns it (the fields we use). */
export interface PosthogPerson {
  id: string | number;
  uuid?: string;
  distinct_ids?: string[];
}

/** PostHog persons API with a personal API key (Bearer), on PostHog Cloud or a self-hosted instance. */
export function posthogClient(http: HttpClient, config: PosthogConfig, personalApiKey: string) {
  const persons = `${vendorBaseUrl(config, POSTHOG_HOSTS)}/api/projects/${encodeURIComponent(config.projectId)}/persons`;
  const headers = { authorization: `Bearer ${personalApiKey}`, accept: 'application/json' };
  return {
    findByDistinctId(distinctId: string): Promise<HttpResponse> {
      return http.request({ method: 'GET', url: `${persons}/?distinct_id=${encodeURIComponent(distinctId)}`, headers });
    },
    deletePerson(personId: string | number): Promise<HttpResponse> {
      return http.request({
        method: 'DELETE',
        url: `${persons}/${encodeURIComponent(String(personId))}/${deleteQuery(config)}`,
        headers,
      });
    },
    listOne(): Promise<HttpResponse> {
      return http.request({ method: 'GET', url: `${persons}/?limit=1`, headers });
    },
  };
}

/**
 * PostHog reads `delete_events` and `delete_recordings` by presence (posthog/api/person.py,
 * `"delete_events" in request.GET`), so `delete_events=false` would delete the events: a flag that is off is left out.
 */
export function deleteQuery(config: Pick<PosthogConfig, 'deleteEvents' | 'deleteRecordings'>): string {
  const params = new URLSearchParams();
  if (config.deleteEvents) params.set('delete_events', 'true');
  if (config.deleteRecordings) params.set('delete_recordings', 'true');
  const query = params.toString();
  return query ? `?${query}` : '';
}

/** Persons of a list response that carry the distinct id (the filter is exact, but we check). */
export function personsOf(body: unknown, distinctId: string): PosthogPerson[] {
  const results = (body as { results?: unknown } | undefined)?.results;
  if (!Array.isArray(results)) return [];
  return results.filter(
    (p): p is PosthogPerson =>
      Boolean(p) &&
      (typeof (p as PosthogPerson).id === 'string' || typeof (p as PosthogPerson).id === 'number') &&
      (!Array.isArray((p as PosthogPerson).distinct_ids) || (p as PosthogPerson).distinct_ids!.includes(distinctId)),
  );
}
