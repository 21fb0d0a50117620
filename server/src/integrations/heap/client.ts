import { HEAP_API_HOST, type HeapConfig } from '@shared/integrations/heap';
import { type HttpClient, type HttpResponse } from '../runtime/http-client';
import { accessTokenOf } from '../runtime/vendor-http';
import { str, type VendorStyle } from '../saas';

/**
 * Heap answers an unsuccessful call with `err` (its User Deletion page); other shapes are read
 * too. Heap's limits are a leaky bucket with no documented wait, so a 429 without Retry-After waits 10 s.
 */
export const heapStyle: VendorStyle = {
  vendor: 'Heap',
  message: (body) => {
    const error = body as { err?: unknown; error?: unknown; message?: unknown } | undefined;
    return str(error?.err) ?? str(error?.error) ?? str(error?.message);
  },
  fallbackWaitMs: 10_000,
};

/** Heap's User Deletion API: a temporary auth token from app id + API key, then Bearer calls. */
export function heapClient(http: HttpClient, config: HeapConfig, apiKey: string) {
  const api = `${config.baseUrl ?? HEAP_API_HOST}/api/public/v0`;
  const basic = Buffer.from(`${config.appId}:${apiKey}`).toString('base64');
  const bearer = (token: string) => ({ authorization: `Bearer ${token}`, accept: 'application/json' });
  return {
    /** POST /auth_token with HTTP Basic app_id:api_key: `{access_token}` (Heap: it expires in 5 minutes). */
    authToken(): Promise<HttpResponse> {
      return http.request({
        method: 'POST',
        url: `${api}/auth_token`,
        headers: { authorization: `Basic ${basic}`, accept: 'application/json' },
      });
    },
    /** POST /user_deletion: `{users: [{user_identity} | {user_id}]}`, answered with a `deletion_request_id`. */
    requestDeletion(token: string, identifier: string): Promise<HttpResponse> {
      return http.request({
        method: 'POST',
        url: `${api}/user_deletion`,
        headers: { ...bearer(token), 'content-type': 'application/json' },
        body: JSON.stringify({ users: [{ [config.identifierType]: identifier }] }),
      });
    },
    /** GET /deletion_status/{deletion_request_id}. */
    deletionStatus(token: string, deletionRequestId: string): Promise<HttpResponse> {
      return http.request({
        method: 'GET',
        url: `${api}/deletion_status/${encodeURIComponent(deletionRequestId)}`,
        headers: bearer(token),
      });
    },
  };
}

/** The access token of a token answer, or the unsuccessful answer itself (a 2xx without one reads as a refusal). */
export async function accessToken(client: ReturnType<typeof heapClient>): Promise<string | HttpResponse> {
  return accessTokenOf(await client.authToken(), 'Heap');
}
