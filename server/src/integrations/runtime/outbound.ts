import {
  assertHostAllowed,
  assertUrlAllowed,
  guardedLookup,
  HostUnresolvedError,
  type OutboundPolicy,
} from '../../lib/ssrf';
import { createHttpClient } from './http-client';
import { PermanentError, TransientError, type Exchange } from '../types';

/** HTTP and host resolution for drivers, both checked against the SSRF policy at call time. */
export function outboundTools(
  policy: OutboundPolicy,
  trail: Exchange[],
  secrets: string[],
  pace?: () => Promise<void>,
) {
  const lookup = guardedLookup(policy);
  return {
    http: createHttpClient({
      trail,
      secrets,
      pace,
      lookup: lookup as never,
      checkUrl: async (url) => {
        await assertUrlAllowed(url, policy);
      },
    }),
    async resolveHost(host: string): Promise<string> {
      try {
        return (await assertHostAllowed(host, policy)).address;
      } catch (error) {
        // A name that did not resolve may resolve later; a refused address will not change.
        if (error instanceof HostUnresolvedError) throw new TransientError(error.message);
        throw new PermanentError((error as Error).message);
      }
    },
  };
}
