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

/** A batch's answers in procedure order (`result` is missing where a procedure failed). */
export type EarlyAnswers = ({ result?: { data: unknown }; error?: { code: string } } | undefined)[];

/** The element in which a server-rendered Requests page hands its answers to the app (server/src/http/requests-page.ts). */
export const SERVER_ANSWERS_ID = 'early-data';

/** The cookie in which the browser names the zone it shows times in, for the pages the server renders. */
export const VIEWER_ZONE_COOKIE = 'dds_tz';

/** Set to "UTC" while the viewer has chosen to see times in UTC (absent otherwise): the server's page says so too. */
export const TIMES_CHOICE_COOKIE = 'dds_times';

/** The batch's URL, exactly as the tRPC client would send it (the search is input 1). */
export function earlyRequestsUrl(input: EarlyRequestsInput): string {
  return `/trpc/${EARLY_PROCEDURES.join(',')}?batch=1&input=${encodeURIComponent(JSON.stringify({ 1: input }))}`;
}
