import { describe, expect, it } from 'vitest';
import type { Outcome } from '../../integrations/types';
import { forEachIdentifier } from './each-identifier';

/** A destination answering per value from a table, recording what it was sent. */
function destination(answers: Record<string, Outcome>) {
  const calls: [string, string | null][] = [];
  const call = async (identifier: string, trackingId: string | null) => {
    calls.push([identifier, trackingId]);
    return answers[trackingId ?? identifier]!;
  };
  return { calls, call };
}

describe('one step for several values of the type an integration consumes', () => {
  it('sends each value once and succeeds only when every value did', async () => {
    const { calls, call } = destination({
      u1: { kind: 'success', message: 'deleted u1', evidence: { rows: 1 } },
      u2: { kind: 'success', message: 'deleted u2', evidence: { rows: 0 } },
    });
    const outcome = await forEachIdentifier(['u1', 'u2'], 'initiate', null, call);
    expect(calls).toEqual([
      ['u1', null],
      ['u2', null],
    ]);
    expect(outcome).toMatchObject({
      kind: 'success',
      evidence: {
        identifiers: [
          { identifier: 1, rows: 1 },
          { identifier: 2, rows: 0 },
        ],
      },
    });
  });

  it('keeps one tracking id per value still running, and polls only those until every one is done', async () => {
    const first = destination({
      u1: { kind: 'success', message: 'deleted at once' },
      u2: { kind: 'accepted', trackingId: 'job-2', status: 'PENDING', message: 'queued' },
      u3: { kind: 'accepted', trackingId: 'job-3', status: 'PROCESSING', message: 'running' },
    });
    const accepted = await forEachIdentifier(['u1', 'u2', 'u3'], 'initiate', null, first.call);
    expect(accepted).toMatchObject({ kind: 'accepted', status: 'PROCESSING' });
    const trackingId = (accepted as { trackingId: string }).trackingId;

    const second = destination({
      'job-2': { kind: 'success', message: 'done' },
      'job-3': { kind: 'pending', status: 'PROCESSING', message: 'still running' },
    });
    const polled = await forEachIdentifier(['u1', 'u2', 'u3'], 'check', trackingId, second.call);
    expect(second.calls).toEqual([
      ['u2', 'job-2'],
      ['u3', 'job-3'],
    ]);
    expect(polled).toMatchObject({
      kind: 'accepted',
      message: '1 of 3 identifiers still in progress at the destination',
    });

    const third = destination({ 'job-3': { kind: 'success', message: 'done' } });
    const done = await forEachIdentifier(
      ['u1', 'u2', 'u3'],
      'check',
      (polled as { trackingId: string }).trackingId,
      third.call,
    );
    expect(third.calls).toEqual([['u3', 'job-3']]);
    expect(done.kind).toBe('success');
  });

  it('a refusal of any value fails the step, naming which value by its place, never by itself', async () => {
    const { call } = destination({
      u1: { kind: 'success', message: 'deleted' },
      u2: { kind: 'failed', reason: 'HTTP 403: not allowed' },
    });
    expect(await forEachIdentifier(['u1', 'u2'], 'initiate', null, call)).toEqual({
      kind: 'failed',
      reason: 'identifier 2 of 2: HTTP 403: not allowed',
    });
  });

  it('a transient answer for any value retries the step after the longest wait asked for', async () => {
    const { call } = destination({
      u1: { kind: 'retry', reason: 'HTTP 429', retryAfterMs: 2_000 },
      u2: { kind: 'retry', reason: 'HTTP 503', retryAfterMs: 5_000 },
    });
    expect(await forEachIdentifier(['u1', 'u2'], 'initiate', null, call)).toEqual({
      kind: 'retry',
      reason: 'identifier 1 of 2: HTTP 429',
      retryAfterMs: 5_000,
    });
  });
});
