import { TIMES_CHOICE_COOKIE as SERVER_READS_CHOICE, VIEWER_ZONE_COOKIE as SERVER_READS } from '@shared/early-requests';
import { describe, expect, it } from 'vitest';
import { TIMES_CHOICE_COOKIE, VIEWER_ZONE_COOKIE } from './time-zone';

describe('the viewer zone cookie', () => {
  it('is written under the name the server reads', () => {
    expect(VIEWER_ZONE_COOKIE).toBe(SERVER_READS);
    expect(TIMES_CHOICE_COOKIE).toBe(SERVER_READS_CHOICE);
  });
});
