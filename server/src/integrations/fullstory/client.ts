import { FULLSTORY_API_HOST, type FullstoryConfig } from '@shared/integrations/fullstory';
import type { HttpClient, HttpResponse } from '../runtime/http-client';
import { str, type VendorStyle } from '../saas';

/** Fullstory errors are `{message, code}` (`fullstory.v2.apierror.ErrorResponse`); a 429 carries Retry-After. */
export const fullstoryStyle: VendorStyle = {
  vendor: 'Fullstory',
  message: (body) => {
    const error = body as { message?: unknown; code?: unknown } | undefined;
    const message = str(error?.message);
    const code = str(error?.code);
    return message && code ? `${message} (${code})` : (message ?? code);
  },
};

/**
 * Fullstory Server API v2 users, with an API key (`Authorization: Basic {key}`, the key as
 * Fullstory issues it, not base64 of anything): the operations of `vendor/users.sdk.swagger.json`.
 */
export function fullstoryClient(http: HttpClient, config: FullstoryConfig, apiKey: string) {
  const users = `${config.baseUrl ?? FULLSTORY_API_HOST}/v2/users`;
  const headers = { authorization: `Basic ${apiKey}`, accept: 'application/json' };
  const byId = (id: string) => `${users}/${encodeURIComponent(id)}`;
  return {
    /** ListUsers filtered by uid; `page_token` for the pages after the first. */
    listByUid(uid: string, pageToken?: string): Promise<HttpResponse> {
      const query = new URLSearchParams({ uid });
      if (pageToken) query.set('page_token', pageToken);
      return http.request({ method: 'GET', url: `${users}?${query}`, headers });
    },
    /** GetUser: 200 with `is_being_deleted`, or 404 once the user is gone. */
    getUser(id: string): Promise<HttpResponse> {
      return http.request({ method: 'GET', url: byId(id), headers });
    },
    /** DeleteUserByUid: every user with the uid. */
    deleteByUid(uid: string): Promise<HttpResponse> {
      return http.request({ method: 'DELETE', url: `${users}?${new URLSearchParams({ uid })}`, headers });
    },
    /** DeleteUser by the Fullstory-generated id. */
    deleteById(id: string): Promise<HttpResponse> {
      return http.request({ method: 'DELETE', url: byId(id), headers });
    },
  };
}

export interface FullstoryUser {
  id: string;
  isBeingDeleted: boolean;
}

/** The users of a ListUsers answer (`results` of GetUserResponse) and its next page's token. */
export function usersOf(body: unknown): { users: FullstoryUser[]; next?: string } {
  const page = body as { results?: unknown; next_page_token?: unknown } | undefined;
  const results = Array.isArray(page?.results) ? page.results : [];
  const users = results
    .map((user) => ({
      id: str((user as { id?: unknown }).id),
      isBeingDeleted: (user as { is_being_deleted?: unknown }).is_being_deleted === true,
    }))
    .filter((user): user is FullstoryUser => Boolean(user.id));
  return { users, next: str(page?.next_page_token) };
}
