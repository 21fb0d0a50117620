import type { Outcome } from '../types';

interface StreamStatus {
  status?: string;
  destinations?: { name?: string; status?: string; errString?: string }[];
}

/** Destinations that did not finish, for the reason of a partial success. */
function unfinished(streams: StreamStatus[] | undefined): string {
  const names = (streams ?? []).flatMap((s) =>
    (s.destinations ?? [])
      .filter((d) => d.status && d.status !== 'FINISHED')
      .map((d) => `${d.name ?? 'destination'}: ${d.status}${d.errString ? ` (${d.errString})` : ''}`),
  );
  return names.length ? ` (${names.slice(0, 5).join('; ')})` : '';
}

/**
 * INITIALIZED -> PENDING, RUNNING -> PROCESSING, FINISHED -> SUCCESS. PARTIAL_SUCCESS means some
 * downstream destinations did not delete: FAILED, so a member sees it and can retry.
 */
export function segmentStatusOutcome(
  regulation: { id?: string; overallStatus?: string; finishedAt?: string | null; streamStatus?: StreamStatus[] },
  regulateId: string,
): Outcome {
  const status = regulation.overallStatus ?? '';
  switch (status) {
    case 'INITIALIZED':
      return { kind: 'pending', status: 'PENDING', message: `Segment regulation ${regulateId} INITIALIZED` };
    case 'RUNNING':
      return { kind: 'pending', status: 'PROCESSING', message: `Segment regulation ${regulateId} RUNNING` };
    case 'FINISHED':
      return {
        kind: 'success',
        message: `Segment regulation ${regulateId} FINISHED`,
        evidence: { segmentRegulateId: regulateId, finishedAt: regulation.finishedAt ?? null },
      };
    case 'PARTIAL_SUCCESS':
      return {
        kind: 'failed',
        reason: `Segment regulation ${regulateId} finished with PARTIAL_SUCCESS${unfinished(regulation.streamStatus)}`,
      };
    case 'FAILED':
    case 'INVALID':
    case 'NOT_SUPPORTED':
      return {
        kind: 'failed',
        reason: `Segment regulation ${regulateId} ${status}${unfinished(regulation.streamStatus)}`,
      };
    default:
      return {
        kind: 'pending',
        status: 'PROCESSING',
        message: `Segment regulation ${regulateId} status ${status || '(none)'}`,
      };
  }
}
