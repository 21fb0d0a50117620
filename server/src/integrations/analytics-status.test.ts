import { describe, expect, it } from 'vitest';
import {
  amplitudeConfigSchema,
  googleAnalyticsConfigSchema,
  mixpanelConfigSchema,
  posthogConfigSchema,
  segmentConfigSchema,
} from '@shared/integrations';
import { amplitudeStatusOutcome, formatTracking, parseTracking } from './amplitude/status';
import { ProjectRateLimiter } from './mixpanel/rate-limiter';
import { mixpanelStatusOutcome } from './mixpanel/status';
import { segmentStatusOutcome } from './segment/status';

describe('vendor status mapping', () => {
  it('maps every Mixpanel task status', () => {
    const kinds = ['PENDING', 'STAGING', 'STARTED', 'SUCCESS', 'FAILURE', 'REVOKED', 'NOT_FOUND', 'UNKNOWN'].map(
      (s) => {
        const o = mixpanelStatusOutcome(s, 't1');
        return [s, o.kind, 'status' in o ? o.status : undefined];
      },
    );
    expect(kinds).toEqual([
      ['PENDING', 'pending', 'PENDING'],
      ['STAGING', 'pending', 'PENDING'],
      ['STARTED', 'pending', 'PROCESSING'],
      ['SUCCESS', 'success', undefined],
      ['FAILURE', 'failed', undefined],
      ['REVOKED', 'failed', undefined],
      ['NOT_FOUND', 'failed', undefined],
      ['UNKNOWN', 'pending', 'PROCESSING'],
    ]);
  });

  it('treats a Segment PARTIAL_SUCCESS as failed and names the destinations that did not finish', () => {
    const outcome = segmentStatusOutcome(
      {
        overallStatus: 'PARTIAL_SUCCESS',
        streamStatus: [
          {
            destinations: [
              { name: 'S3', status: 'FAILED', errString: 'denied' },
              { name: 'Braze', status: 'FINISHED' },
            ],
          },
        ],
      },
      'r1',
    );
    expect(outcome).toEqual({
      kind: 'failed',
      reason: 'Segment regulation r1 finished with PARTIAL_SUCCESS (S3: FAILED (denied))',
    });
    expect(segmentStatusOutcome({ overallStatus: 'FINISHED' }, 'r1').kind).toBe('success');
  });

  it('round-trips Amplitude tracking ids and reads job progress across days', () => {
    const tracking = [
      { day: '2030-01-10', amplitudeIds: ['1', '2'] },
      { day: '2030-01-11', amplitudeIds: ['3'] },
    ];
    expect(parseTracking(formatTracking(tracking))).toEqual(tracking);
    const job = (day: string, status: string, ids: number[]) => ({
      day,
      status,
      amplitude_ids: ids.map((amplitude_id) => ({ amplitude_id })),
    });
    expect(
      amplitudeStatusOutcome(tracking, [job('2030-01-10', 'done', [1, 2]), job('2030-01-11', 'submitted', [3])]),
    ).toMatchObject({ kind: 'pending', status: 'PROCESSING' });
    expect(
      amplitudeStatusOutcome(tracking, [job('2030-01-10', 'done', [1, 2]), job('2030-01-11', 'done', [3])]).kind,
    ).toBe('success');
    expect(
      amplitudeStatusOutcome(tracking, [job('2030-01-10', 'staging', [1]), job('2030-01-11', 'staging', [3])]).kind,
    ).toBe('failed');
  });
});

describe('vendor configuration schemas', () => {
  it('normalise ids and base URLs and refuse what the vendor would refuse', () => {
    expect(googleAnalyticsConfigSchema.parse({ propertyId: 'properties/123456' })).toEqual({
      propertyId: '123456',
      identifierType: 'userId',
    });
    expect(posthogConfigSchema.parse({ projectId: 42, baseUrl: 'https://posthog.example.com/' })).toMatchObject({
      projectId: '42',
      baseUrl: 'https://posthog.example.com',
      deleteEvents: true,
    });
    expect(mixpanelConfigSchema.parse({ projectToken: 'abc123' })).toMatchObject({
      region: 'US',
      complianceType: 'GDPR',
    });
    expect(segmentConfigSchema.parse({})).toMatchObject({
      regulationType: 'SUPPRESS_WITH_DELETE',
      subjectType: 'USER_ID',
    });
    expect(amplitudeConfigSchema.safeParse({ identifierType: 'amplitude_id', deleteFromOrg: true }).success).toBe(
      false,
    );
    expect(mixpanelConfigSchema.safeParse({ projectToken: 'abc', baseUrl: 'https://x.example.com/?a=1' }).success).toBe(
      false,
    );
    expect(googleAnalyticsConfigSchema.safeParse({ propertyId: 'G-ABC123' }).success).toBe(false);
  });
});

describe('Mixpanel per-project rate limiter', () => {
  it('spaces calls to one project, reserves a later slot for a caller told to come back, and leaves other projects alone', async () => {
    const limiter = new ProjectRateLimiter(200);
    expect(await limiter.turn('p1', 'a', 50)).toBeNull();
    const comeBack = await limiter.turn('p1', 'b', 50);
    expect(comeBack).toBeInstanceOf(Date);
    expect(comeBack!.getTime() - Date.now()).toBeGreaterThan(100);
    expect(await limiter.turn('p2', 'c', 50)).toBeNull();
    // A third caller is scheduled after b's reserved slot, not on top of it.
    const third = await limiter.turn('p1', 'd', 50);
    expect(third!.getTime() - comeBack!.getTime()).toBeGreaterThanOrEqual(200);
    await new Promise((r) => setTimeout(r, comeBack!.getTime() - Date.now() - 20));
    const started = Date.now();
    expect(await limiter.turn('p1', 'b', 50)).toBeNull();
    expect(Date.now()).toBeGreaterThanOrEqual(comeBack!.getTime() - 1);
    expect(Date.now() - started).toBeLessThan(100);
  });
});
