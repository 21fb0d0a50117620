import type { RouterInputs, RouterOutputs } from '../trpc';
import { ProcedureCallError } from './errors';
import { trpcFetch } from './trpc-fetch';

/**
 * Signs in with one typed POST to the tRPC endpoint, as the tRPC client would send it
 * (unbatched, JSON input, `{result: {data}}` or `{error}` back). The sign-in page is the first
 * page most visits see: it does without the tRPC client and TanStack Query, which the
 * signed-in screens load (components/app-providers.tsx).
 */
export async function signIn(input: RouterInputs['auth']['signIn']): Promise<RouterOutputs['auth']['signIn']> {
  let response: Response;
  try {
    response = await trpcFetch('/trpc/auth.signIn', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(input),
    });
  } catch {
    throw new ProcedureCallError('NETWORK', 'The server could not be reached. Check your connection and try again.');
  }
  const body = (await response.json().catch(() => null)) as {
    result?: { data: RouterOutputs['auth']['signIn'] };
    error?: { message?: string; issues?: unknown[]; data?: { code?: string } };
  } | null;
  if (response.ok && body?.result) return body.result.data;
  const error = body?.error;
  throw new ProcedureCallError(
    error?.data?.code ?? 'UNKNOWN',
    error?.message ?? `The server answered ${response.status}`,
    error?.issues,
  );
}

/** Forgets everything cached for the previous user, if the signed-in screens' cache exists yet. */
export async function forgetCachedSession(): Promise<void> {
  const { queryClient } = await import('../query');
  queryClient.clear();
}
