import { describe, expect, it } from 'vitest';
import { statusOutcome } from './driver';

const spec = {
  statusPath: '$.state',
  successValues: ['done'],
  failedValues: ['failed'],
  canceledValues: ['canceled'],
  pendingValues: ['queued'],
};

describe('webhook status values', () => {
  it('no value yet is Pending (the job is queued at the destination), as the README says', () => {
    for (const raw of [undefined, null, '', '  '])
      expect(statusOutcome(spec, raw)).toEqual({
        kind: 'pending',
        status: 'PENDING',
        message: 'No status value at $.state yet',
      });
  });

  it('a pending value (any case) is Pending: the job waits its turn over there', () => {
    expect(statusOutcome(spec, 'Queued')).toEqual({ kind: 'pending', status: 'PENDING', message: 'Status "Queued"' });
  });

  it('a value that is none of the configured ones means the destination is at work: Processing', () => {
    expect(statusOutcome(spec, 'running')).toEqual({
      kind: 'pending',
      status: 'PROCESSING',
      message: 'Status "running"',
    });
  });

  it('the configured values finish the request, whatever their case', () => {
    expect(statusOutcome(spec, 'DONE')).toMatchObject({ kind: 'success' });
    expect(statusOutcome(spec, 'Failed')).toMatchObject({
      kind: 'failed',
      reason: 'Your system reported status "Failed"',
    });
    // Canceled over there is not a member's cancel here: the data is still in place.
    expect(statusOutcome(spec, 'canceled')).toMatchObject({
      kind: 'failed',
      reason: expect.stringContaining('the deletion was canceled there, not done'),
    });
  });
});
