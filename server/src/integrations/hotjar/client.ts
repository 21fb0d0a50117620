import { HOTJAR_API_HOST, type HotjarConfig } from '@shared/integrations/hotjar';
import { type HttpClient, type HttpResponse } from '../runtime/http-client';
import { accessTokenOf } from '../runtime/vendor-http';
import { str, type VendorStyle } from '../saas';

/** Hotjar's error bodies are not documented: the usual fields are read. Its limit is per minute, so a bare 429 waits 20 s. */
export const hotjarStyle: VendorStyle = {
  vendor: 'Hotjar',
  message: (body) => {
    const error = body as { error_description?: unknown; error?: unknown; message?: unknown; detail?: unknown };
    return str(error?.error_description) ?? str(error?.message) ?? str(error?.detail) ?? str(error?.error);
  },
  fallbackWaitMs: 20_000,
};

/** Hotjar's API: an OAuth client-credentials token, then the organization's user lookup. */
export function hotjarClient(http: HttpClient, config: HotjarConfig, clientId: string, clientSecret: string) {
  const api = `${config.baseUrl ?? HOTJAR_API_HOST}/v1`;
  return {
    /** POST /v1/oauth/token, form-encoded: `{access_token, token_type, expires_in}`. */
    token(): Promise<HttpResponse> {
      return http.request({
        method: 'POST',
        url: `${api}/oauth/token`,
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        // encodeURIComponent rather than URLSearchParams: the same encoding the trail's redaction
        // looks for, so a secret with spaces or ~!'() is blanked out of the recorded body too.
        body: Object.entries({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret })
          .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
          .join('&'),
      });
    },
    /** POST /v1/organizations/{id}/user-lookup for the data subject, with `delete_all_hits: true`: deletes what it finds. */
    lookupAndDelete(token: string, identifier: string): Promise<HttpResponse> {
      const subject =
        config.identifierType === 'email'
          ? { data_subject_email: identifier }
          : {
              data_subject_site_id_to_user_id_map: Object.fromEntries(
                config.siteIds.map((siteId) => [siteId, identifier]),
              ),
            };
      return http.request({
        method: 'POST',
        url: `${api}/organizations/${encodeURIComponent(config.organizationId)}/user-lookup`,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ ...subject, delete_all_hits: true }),
      });
    },
  };
}

/** The access token of a token answer, or the unsuccessful answer itself (a 2xx without one reads as a refusal). */
export async function bearerToken(client: ReturnType<typeof hotjarClient>): Promise<string | HttpResponse> {
  return accessTokenOf(await client.token(), 'Hotjar');
}
