import type { Outcome } from '../../integrations/types';
import { encodeJobs, identifierLabel, trackedJobs, type Jobs } from '../../services/integrations/tracked-jobs';

/**
 * One step for an integration that consumes several values of its identifier type: one call per
 * value (the driver's contract is one identifier), outcomes combined so that the step is done
 * only when every value is. A failure or a retry of any value decides the step (values already
 * accepted are sent again on the next attempt, which destinations take as the same deletion).
 * Async jobs are kept as one tracking id per value still running.
 */
export async function forEachIdentifier(
  values: string[],
  phase: 'initiate' | 'check',
  trackingId: string | null,
  /** `at`: the value's position in `values`. */
  call: (identifier: string, trackingId: string | null, at: number) => Promise<Outcome>,
): Promise<Outcome> {
  const targets =
    phase === 'initiate'
      ? values.map((value, at) => ({ at, value, trackingId: null as string | null }))
      : trackedJobs(trackingId, values.length).map((job) => ({
          at: job.at,
          value: values[job.at]!,
          trackingId: job.trackingId,
        }));
  const outcomes: { at: number; outcome: Outcome }[] = [];
  for (const target of targets)
    outcomes.push({ at: target.at, outcome: await call(target.value, target.trackingId, target.at) });
  const label = (at: number) => identifierLabel(at, values.length);
  const failed = outcomes.find((o) => o.outcome.kind === 'failed');
  if (failed?.outcome.kind === 'failed')
    return { kind: 'failed', reason: `${label(failed.at)}: ${failed.outcome.reason}` };
  const retries = outcomes.flatMap((o) => (o.outcome.kind === 'retry' ? [{ at: o.at, outcome: o.outcome }] : []));
  if (retries.length > 0)
    return {
      kind: 'retry',
      reason: `${label(retries[0]!.at)}: ${retries[0]!.outcome.reason}`,
      retryAfterMs: Math.max(0, ...retries.map((r) => r.outcome.retryAfterMs ?? 0)) || undefined,
    };
  const deferred = outcomes.flatMap((o) => (o.outcome.kind === 'deferred' ? [o.outcome] : []));
  if (deferred.length > 0)
    return {
      kind: 'deferred',
      until: new Date(Math.max(...deferred.map((d) => d.until.getTime()))),
      message: deferred[0]!.message,
    };
  const running: Jobs = [];
  let processing = false;
  let pollAfterMs: number | undefined;
  for (const { at, outcome } of outcomes) {
    if (outcome.kind === 'accepted' || outcome.kind === 'pending') {
      const id = outcome.kind === 'accepted' ? outcome.trackingId : targets.find((t) => t.at === at)?.trackingId;
      if (id) running.push({ at, trackingId: id });
      processing ||= outcome.status === 'PROCESSING';
      pollAfterMs = Math.min(pollAfterMs ?? Infinity, outcome.pollAfterMs ?? Infinity);
    }
  }
  if (running.length === 0) {
    const evidence = outcomes.map(({ at, outcome }) =>
      outcome.kind === 'success' ? { identifier: at + 1, message: outcome.message, ...outcome.evidence } : {},
    );
    return {
      kind: 'success',
      message: `Deleted for ${values.length} identifiers: ${outcomes.map((o) => (o.outcome as { message?: string }).message).join('; ')}`,
      evidence: { identifiers: evidence },
    };
  }
  const next = encodeJobs(running);
  return {
    kind: 'accepted',
    trackingId: next,
    status: processing ? 'PROCESSING' : 'PENDING',
    message: `${running.length} of ${values.length} identifiers still in progress at the destination`,
    pollAfterMs: Number.isFinite(pollAfterMs) ? pollAfterMs : undefined,
  };
}
