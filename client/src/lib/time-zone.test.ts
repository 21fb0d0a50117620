import { VIEWER_ZONE_COOKIE as SERVER_READS } from '@shared/early-requests';
import { describe, expect, it } from 'vitest';
import { VIEWER_ZONE_COOKIE } from './time-zone';

describe('the viewer zone cookie', () => {
  it('is written under the name the server reads', () => {
    expect(VIEWER_ZONE_COOKIE).toBe(SERVER_READS);
  });
});
