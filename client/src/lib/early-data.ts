import { earlyRequestsUrl, SERVER_ANSWERS_ID, type EarlyAnswers } from '@shared/early-requests';
import { filtersFromSearchParams, REQUESTS_PAGE_SIZE, toSearchFilter } from './request-filters';
import { timeZoneChoice } from './time-zone';
// The same fetch as the tRPC client's: that keeps it in the first bundle, not in a chunk of its own.
import { trpcFetch } from './trpc-fetch';

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
  answers: Promise<EarlyAnswers | null>;
}

/** The answers the server rendered this page from (server/src/http/requests-page.ts), if it did. */
function serverAnswers(): EarlyAnswers | null {
  const element = typeof document === 'undefined' ? null : document.getElementById(SERVER_ANSWERS_ID);
  if (!element?.textContent) return null;
  try {
    const parsed: unknown = JSON.parse(element.textContent);
    return Array.isArray(parsed) ? (parsed as EarlyAnswers) : null;
  } catch {
    return null;
  }
}

let early: EarlyRequestsData | null = null;

export function startEarlyRequestsData(location: Location): void {
  if (location.pathname !== '/requests') return;
  const filters = filtersFromSearchParams(new URLSearchParams(location.search));
  const input: EarlyRequestsData['input'] = {
    filter: toSearchFilter(filters, timeZoneChoice()),
    sort: filters.sort ?? 'created',
    limit: REQUESTS_PAGE_SIZE,
  };
  // The server rendered the bare /requests address from these answers and put them in the page.
  const inline = serverAnswers();
  if (inline) {
    early = { input, answers: Promise.resolve(inline) };
    return;
  }
  // Otherwise the page's HTML may preload this URL (server/src/http/requests-page.ts): the same
  // request, same mode and credentials, so the browser hands over the preloaded answer.
  const answers = trpcFetch(earlyRequestsUrl(input))
    .then((response) => response.json() as Promise<EarlyAnswers>)
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
