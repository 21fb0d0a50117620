/**
 * The Requests page's first data: who is signed in, the first page, and the lists its filters
 * offer, in one tRPC batch. The page asks for it before React has loaded
 * (client/src/lib/early-data.ts); for the bare /requests address the server also names it in
 * the page's HTML as a preload (server/src/http/spa-hints.ts), so the browser asks for it while
 * the code downloads. Both build the URL here, so they are the same request.
 */
export const EARLY_PROCEDURES = [
  'auth.session',
  'dashboard.searchRequests',
  'workspaces.list',
  'dashboard.members',
] as const;

export const REQUESTS_PAGE_SIZE = 25;

export interface EarlyRequestsInput {
  filter: Record<string, unknown>;
  sort: 'created' | 'due';
  limit: number;
}

/** The unfiltered list, newest first: what /requests without a query string shows. */
export const UNFILTERED_REQUESTS_INPUT: EarlyRequestsInput = { filter: {}, sort: 'created', limit: REQUESTS_PAGE_SIZE };

/** The batch's URL, exactly as the tRPC client would send it (the search is input 1). */
export function earlyRequestsUrl(input: EarlyRequestsInput): string {
  return `/trpc/${EARLY_PROCEDURES.join(',')}?batch=1&input=${encodeURIComponent(JSON.stringify({ 1: input }))}`;
}
