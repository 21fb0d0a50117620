import { SEGMENT_HOSTS, vendorBaseUrl, type SegmentConfig } from '@shared/integrations';
import type { HttpClient, HttpResponse } from '../runtime/http-client';

/** Segment Public API workspace regulations, with a workspace token (Bearer). */
export function segmentClient(http: HttpClient, config: SegmentConfig, token: string) {
  const base = vendorBaseUrl(config, SEGMENT_HOSTS);
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
  return {
    createRegulation(subjectId: string): Promise<HttpResponse> {
      const body = { regulationType: config.regulationType, subjectType: config.subjectType, subjectIds: [subjectId] };
      return http.request({ method: 'POST', url: `${base}/regulations`, headers, body: JSON.stringify(body) });
    },
    getRegulation(regulateId: string): Promise<HttpResponse> {
      return http.request({ method: 'GET', url: `${base}/regulations/${encodeURIComponent(regulateId)}`, headers });
    },
    /** Withdraws a regulation; Segment allows it while the regulation is INITIALIZED. */
    deleteRegulation(regulateId: string): Promise<HttpResponse> {
      return http.request({ method: 'DELETE', url: `${base}/regulations/${encodeURIComponent(regulateId)}`, headers });
    },
    /** Lists one regulation: a cheap call that proves the token. */
    listRegulations(): Promise<HttpResponse> {
      return http.request({ method: 'GET', url: `${base}/regulations?pagination.count=1`, headers });
    },
  };
}
