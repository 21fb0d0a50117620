import { afterEach, describe, expect, it, vi } from 'vitest';
import { earlyRequestsUrl, UNFILTERED_REQUESTS_INPUT } from '@shared/early-requests';
import { startEarlyRequestsData, takeEarlyRequestsData } from './early-data';

afterEach(() => {
  vi.unstubAllGlobals();
  takeEarlyRequestsData();
});

describe("the Requests page's early data", () => {
  it("asks for the very URL the server preloads in the page's HTML, so the browser hands over the preloaded answer", () => {
    const fetch = vi.fn(() => Promise.resolve(new Response('[]')));
    vi.stubGlobal('fetch', fetch);
    startEarlyRequestsData({ pathname: '/requests', search: '' } as Location);
    expect(fetch).toHaveBeenCalledWith(earlyRequestsUrl(UNFILTERED_REQUESTS_INPUT), { credentials: 'same-origin' });
  });

  it('asks for the filtered page a filtered address shows, and nothing elsewhere', () => {
    const fetch = vi.fn(() => Promise.resolve(new Response('[]')));
    vi.stubGlobal('fetch', fetch);
    startEarlyRequestsData({ pathname: '/requests', search: '?status=FAILED' } as Location);
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(decodeURIComponent(String((fetch.mock.calls[0] as unknown[])[0]))).toContain('"statuses":["FAILED"]');
    startEarlyRequestsData({ pathname: '/organization', search: '' } as Location);
    expect(fetch).toHaveBeenCalledTimes(1);
  });
});
