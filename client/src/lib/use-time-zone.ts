import { useSyncExternalStore } from 'react';
import { subscribeTimeZone, timeZoneChoice, type TimeZoneChoice } from './time-zone';

/**
 * The zone the viewer chose for times (local or UTC). A component that shows times or turns
 * days into instants reads it here, so it renders again when the choice changes, keeping
 * what the viewer typed or opened on screen.
 */
export function useTimeZoneChoice(): TimeZoneChoice {
  return useSyncExternalStore(subscribeTimeZone, timeZoneChoice, timeZoneChoice);
}
