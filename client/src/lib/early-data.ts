import { earlyRequestsUrl } from '@shared/early-requests';
import { filtersFromSearchParams, REQUESTS_PAGE_SIZE, toSearchFilter } from './request-filters';

/**
 * The Requests page's first data, asked for by the first module the browser runs, before
 * React, the router and the screen's code have loaded (they take longer than the answer on a
 * busy machine): who is signed in, the first page, and the lists the filters offer, in one
 * tRPC batch, exactly as the tRPC client would send it. query.ts puts the answers into the
 * query cache under the keys the screen asks for; anything that failed is simply asked again.
 */
export interface EarlyRequestsData {
  input: { filter: ReturnType<typeof toSearchFilter>; sort: 'created' | 'due'; limit: number };
  /** The batch's answers in procedure order, or null when the call itself failed. */
  answers: Promise<({ result?: { data: unknown } } | undefined)[] | null>;
}

let early: EarlyRequestsData | null = null;

export function startEarlyRequestsData(location: Location): void {
  if (location.pathname !== '/requests') return;
  const filters = filtersFromSearchParams(new URLSearchParams(location.search));
  const input: EarlyRequestsData['input'] = {
    filter: toSearchFilter(filters),
    sort: filters.sort ?? 'created',
    limit: REQUESTS_PAGE_SIZE,
  };
  // For the bare /requests address the page's HTML already preloads this URL (server/src/http/spa-hints.ts):
  // the same request, same mode and credentials, so the browser hands over the preloaded answer.
  const answers = fetch(earlyRequestsUrl(input), { credentials: 'same-origin' })
    .then((response) => response.json() as Promise<({ result?: { data: unknown } } | undefined)[]>)
    .then((body) => (Array.isArray(body) ? body : null))
    .catch(() => null);
  early = { input, answers };
}

/** Hands the early answers over once (the first page load only; later visits fetch normally). */
export function takeEarlyRequestsData(): EarlyRequestsData | null {
  const taken = early;
  early = null;
  return taken;
}

// Runs as this module is evaluated: main.tsx imports it before React.
if (typeof window !== 'undefined') startEarlyRequestsData(window.location);
