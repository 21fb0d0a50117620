import { describe, expect, it } from 'vitest';
import { encodeJobs, shownTrackingId, trackedJobs } from './tracked-jobs';

describe('tracking ids that keep several jobs', () => {
  const stored = encodeJobs([
    { at: 0, trackingId: 'job-a' },
    { at: 2, trackingId: 'job-c' },
  ]);

  it('reads back the jobs of the values a request still has', () => {
    expect(trackedJobs(stored, 3).map((job) => job.trackingId)).toEqual(['job-a', 'job-c']);
    expect(trackedJobs(stored, 2).map((job) => job.trackingId)).toEqual(['job-a']);
    expect(trackedJobs('plain-id', 3)).toEqual([{ at: 0, trackingId: 'plain-id' }]);
    expect(trackedJobs(null, 3)).toEqual([]);
  });

  it("shows the destination's job ids one after another, a plain id as it is", () => {
    expect(shownTrackingId(stored)).toBe('job-a, job-c');
    expect(shownTrackingId('plain-id')).toBe('plain-id');
    expect(shownTrackingId(null)).toBeNull();
    // A value the step did not write is shown as stored rather than failing the page.
    expect(shownTrackingId('multi:[not json')).toBe('multi:[not json');
  });
});
