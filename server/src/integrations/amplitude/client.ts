import { AMPLITUDE_HOSTS, vendorBaseUrl, type AmplitudeConfig } from '@shared/integrations';
import type { HttpClient, HttpResponse } from '../runtime/http-client';

/** One scheduled Amplitude deletion job, as the User Privacy API lists it. */
export interface AmplitudeJob {
  day: string;
  /** The project (Amplitude "app") of the job; one job per project with delete_from_org. */
  app?: string | number | null;
  status: string;
  amplitude_ids: { amplitude_id: number | string; user_id?: string; requester?: string; requested_on_day?: string }[];
}

/** Amplitude User Privacy API (/api/2/deletions/users), HTTP Basic with the project's API key and secret key. */
export function amplitudeClient(
  http: HttpClient,
  config: AmplitudeConfig,
  credentials: { apiKey: string; secretKey: string },
) {
  const base = `${vendorBaseUrl(config, AMPLITUDE_HOSTS)}/api/2/deletions/users`;
  const headers = {
    authorization: `Basic ${Buffer.from(`${credentials.apiKey}:${credentials.secretKey}`).toString('base64')}`,
    accept: 'application/json',
  };
  return {
    createDeletion(identifier: string): Promise<HttpResponse> {
      const ids =
        config.identifierType === 'amplitude_id' ? { amplitude_ids: [Number(identifier)] } : { user_ids: [identifier] };
      const body = {
        ...ids,
        requester: config.requester,
        // Booleans, as the User Privacy API page's parameter table types them (a string "False" could read as set).
        ignore_invalid_id: config.ignoreInvalidId,
        delete_from_org: config.deleteFromOrg,
        include_mapped_user_ids: true,
      };
      return http.request({ method: 'POST', url: base, headers, body: JSON.stringify(body) });
    },
    listJobs(startDay: string, endDay: string): Promise<HttpResponse> {
      return http.request({ method: 'GET', url: `${base}?start_day=${startDay}&end_day=${endDay}`, headers });
    },
    /** Removes one Amplitude id from the job of `day`; Amplitude allows it while the job is staging. */
    removeFromJob(amplitudeId: string, day: string): Promise<HttpResponse> {
      return http.request({
        method: 'DELETE',
        url: `${base}/${encodeURIComponent(amplitudeId)}/${encodeURIComponent(day)}`,
        headers,
      });
    },
  };
}

/** The jobs of a create or list response (an array of jobs, or one job object). */
export function jobsOf(body: unknown): AmplitudeJob[] {
  const list = Array.isArray(body) ? body : body && typeof body === 'object' && 'day' in body ? [body] : [];
  return list.filter(
    (job): job is AmplitudeJob =>
      Boolean(job) &&
      typeof (job as AmplitudeJob).day === 'string' &&
      Array.isArray((job as AmplitudeJob).amplitude_ids),
  );
}
