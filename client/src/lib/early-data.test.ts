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

  it('takes the answers the server rendered the page from, and asks for nothing', async () => {
    const fetch = vi.fn(() => Promise.resolve(new Response('[]')));
    vi.stubGlobal('fetch', fetch);
    const answers = [{ result: { data: { user: { name: 'Ann' } } } }, { error: { code: 'FAILED' } }];
    vi.stubGlobal('document', {
      getElementById: (id: string) => (id === 'early-data' ? { textContent: JSON.stringify(answers) } : null),
    });
    startEarlyRequestsData({ pathname: '/requests', search: '' } as Location);
    expect(fetch).not.toHaveBeenCalled();
    expect(await takeEarlyRequestsData()?.answers).toEqual(answers);
  });

  it('asks the server when the answers in the page cannot be read', () => {
    const fetch = vi.fn(() => Promise.resolve(new Response('[]')));
    vi.stubGlobal('fetch', fetch);
    vi.stubGlobal('document', { getElementById: () => ({ textContent: '{not json' }) });
    startEarlyRequestsData({ pathname: '/requests', search: '' } as Location);
    expect(fetch).toHaveBeenCalledTimes(1);
  });
});
