import { GOOGLE_ANALYTICS_ADMIN_HOST, type GoogleAnalyticsConfig } from '@shared/integrations';
import type { HttpClient, HttpResponse } from '../runtime/http-client';

/** Google Analytics Admin API for one GA4 property, with an OAuth access token. */
export function googleAnalyticsClient(http: HttpClient, config: GoogleAnalyticsConfig, accessToken: string) {
  const base = config.baseUrl ?? GOOGLE_ANALYTICS_ADMIN_HOST;
  const property = `properties/${config.propertyId}`;
  const headers = { authorization: `Bearer ${accessToken}`, accept: 'application/json' };
  return {
    /** One of userId, clientId or appInstanceId identifies the user. */
    submitUserDeletion(identifier: string): Promise<HttpResponse> {
      return http.request({
        method: 'POST',
        url: `${base}/v1alpha/${property}:submitUserDeletion`,
        headers,
        body: JSON.stringify({ [config.identifierType]: identifier }),
      });
    },
    getProperty(): Promise<HttpResponse> {
      return http.request({ method: 'GET', url: `${base}/v1beta/${property}`, headers });
    },
  };
}

/** Google's error message ({error: {code, message, status}}), short. */
export function googleError(response: HttpResponse): string {
  try {
    const error = (response.json() as { error?: { message?: string; status?: string } }).error;
    if (error?.message)
      return `HTTP ${response.status}${error.status ? ` ${error.status}` : ''}: ${error.message}`.slice(0, 300);
  } catch {
    // not JSON
  }
  return `HTTP ${response.status}`;
}
