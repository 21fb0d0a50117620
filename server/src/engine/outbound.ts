import { assertHostAllowed, assertUrlAllowed, guardedLookup, type OutboundPolicy } from '../lib/ssrf';
import { createHttpClient } from '../integrations/http-client';
import { PermanentError, type Exchange } from '../integrations/types';

/** HTTP and host resolution for drivers, both checked against the SSRF policy at call time. */
export function outboundTools(policy: OutboundPolicy, trail: Exchange[], secrets: string[]) {
  const lookup = guardedLookup(policy);
  return {
    http: createHttpClient({
      trail,
      secrets,
      lookup: lookup as never,
      checkUrl: async (url) => {
        await assertUrlAllowed(url, policy);
      },
    }),
    async resolveHost(host: string): Promise<string> {
      try {
        return (await assertHostAllowed(host, policy)).address;
      } catch (error) {
        throw new PermanentError((error as Error).message);
      }
    },
  };
}

/** Every string value of an account's credentials, to blank out of audit records. */
export function secretValues(secrets: Record<string, unknown> | null): string[] {
  if (!secrets) return [];
  return Object.entries(secrets)
    .filter(([key, value]) => typeof value === 'string' && !['host', 'database', 'user', 'sslMode', 'expiresAt', 'scope'].includes(key))
    .map(([, value]) => value as string);
}
