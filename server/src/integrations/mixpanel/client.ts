import { MIXPANEL_HOSTS, vendorBaseUrl, type MixpanelConfig } from '@shared/integrations';
import type { HttpClient, HttpResponse } from '../runtime/http-client';

/** Mixpanel GDPR API v3 (data deletions): create, status and cancel of one deletion task. */
export function mixpanelClient(http: HttpClient, config: MixpanelConfig, gdprToken: string) {
  const base = vendorBaseUrl(config, MIXPANEL_HOSTS);
  // Paths as Mixpanel's OpenAPI document has them (vendor/gdpr.openapi.yaml): no trailing slash.
  const url = (taskId = '') =>
    `${base}/api/app/data-deletions/v3.0${taskId ? `/${encodeURIComponent(taskId)}` : ''}?token=${encodeURIComponent(config.projectToken)}`;
  const headers = { authorization: `Bearer ${gdprToken}`, accept: 'application/json' };
  return {
    /** The key under which calls to this project are rate limited. */
    rateLimitKey: `${base}|${config.projectToken}`,
    createDeletion(distinctIds: string[], complianceType: MixpanelConfig['complianceType']): Promise<HttpResponse> {
      return http.request({
        method: 'POST',
        url: url(),
        headers,
        body: JSON.stringify({ distinct_ids: distinctIds, compliance_type: complianceType }),
      });
    },
    getDeletion(taskId: string): Promise<HttpResponse> {
      return http.request({ method: 'GET', url: url(taskId), headers });
    },
    cancelDeletion(taskId: string): Promise<HttpResponse> {
      return http.request({ method: 'DELETE', url: url(taskId), headers });
    },
  };
}
