import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, publicApi } from '../support/app';
import { launchBrowser, newPage, transferredBytes, watchConsole } from '../support/browser';
import { signUp, signUpWithToken } from '../support/onboarding';

const suffix = randomBytes(3).toString('hex');
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

// kB as Chromium's devtools count them (1 kB = 1,000 bytes).
const KB = 1000;

describe('what the dashboard sends over the wire', () => {
  it('serves brotli or gzip copies of the built assets by Accept-Encoding, varying on it', async () => {
    const html = await (await fetch(baseUrl())).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeTruthy();
    const plain = await fetch(`${baseUrl()}${script}`, { headers: { 'Accept-Encoding': 'identity' } });
    const plainBytes = (await plain.arrayBuffer()).byteLength;
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('vary')).toMatch(/accept-encoding/i);
    for (const encoding of ['br', 'gzip']) {
      // Node's fetch would decode the body: ask with a raw request to see the bytes sent.
      const { headers, bytes } = await rawGet(`${baseUrl()}${script}`, encoding);
      expect(headers['content-encoding']).toBe(encoding);
      expect(headers['vary']).toMatch(/accept-encoding/i);
      expect(headers['content-type']).toMatch(/javascript/);
      expect(bytes).toBeLessThan(plainBytes / 2.5);
    }
  });

  it('signs in on fewer than 100 KB, with a clean console', async () => {
    const { context, page } = await newPage(browser, baseUrl());
    const consoleMessages = watchConsole(page);
    await page.goto('/sign-in', { waitUntil: 'networkidle' });
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const { total, resources } = await transferredBytes(page);
    console.info(`sign-in page: ${total} bytes transferred`, resources);
    expect(resources.some((r) => r.name.includes('schemas'))).toBe(false);
    expect(total).toBeLessThan(100 * KB);
    expect(consoleMessages).toEqual([]);
    await context.close();
  });

  it('shows the Requests page on fewer than 200 KB, its first rows rendered by the server, with a clean console', async () => {
    const { context, page } = await newPage(browser, baseUrl());
    const { workspaceApiKey, pat } = await signUpWithToken(
      page,
      // A name that would end the page's data element if it were not escaped.
      { name: 'Bea Bytes', email: `bea-${suffix}@example.com`, org: 'Bytes </script><!-- Ltd' },
      'Storefront',
    );
    // More than the server draws (a first screen's worth, 12): the app draws the rest when it takes over.
    const identifiers = Array.from({ length: 14 }, (_, n) => `shopper-${n + 1}-${suffix}@example.com`);
    for (const identifier of identifiers) {
      const created = await publicApi('POST', '/deletion-requests', pat, { workspaceApiKey, identifier });
      expect(created.status).toBe(201);
    }
    const storageState = await context.storageState();

    // Without any script: the server's HTML already holds the screen and its first rows, identifiers masked.
    const noScript = await browser.newContext({ baseURL: baseUrl(), storageState, javaScriptEnabled: false });
    const still = await noScript.newPage();
    const sent = await still.goto('/requests');
    expect(sent!.headers()['content-type']).toBe('text/html; charset=utf-8');
    await expect.poll(() => still.locator('tr[data-request-id]').count()).toBe(12);
    expect(await still.getByText('Loading the rest of the list…').isVisible()).toBe(true);
    const html = await still.content();
    expect(html).toContain('Storefront');
    for (const identifier of identifiers) expect(html).not.toContain(identifier);
    await noScript.close();

    // On a phone the app folds the filters under one line; until it has taken over, the server's
    // copy leaves them out of the first screen too (instead of showing them, then folding them).
    const phone = await browser.newContext({
      baseURL: baseUrl(),
      storageState,
      javaScriptEnabled: false,
      viewport: { width: 390, height: 844 },
    });
    const small = await phone.newPage();
    await small.goto('/requests');
    await expect.poll(() => small.locator('tr[data-request-id]').first().isVisible()).toBe(true);
    expect(await small.getByRole('search', { name: 'Filter requests' }).isVisible()).toBe(false);
    await phone.close();

    // A cold cache, signed in: what a returning user's first visit of the day costs.
    const returning = await browser.newContext({ baseURL: baseUrl(), storageState });
    const fresh = await returning.newPage();
    const consoleMessages = watchConsole(fresh);
    await fresh.goto('/requests', { waitUntil: 'networkidle' });
    // The app takes the page over (and answers clicks) without asking for the data again.
    await fresh.locator('html[data-app="ready"]').waitFor({ state: 'attached' });
    await expect.poll(() => fresh.locator('tr[data-request-id]').count()).toBe(14);
    expect(await fresh.getByText('14 requests shown · end of list').isVisible()).toBe(true);
    const { total, resources } = await transferredBytes(fresh);
    console.info(`Requests page: ${total} bytes transferred`, resources);
    expect(total).toBeLessThan(200 * KB);
    const batches = await fresh.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .filter((e) => new URL(e.name).pathname.startsWith('/trpc/auth.session,')),
    );
    expect(batches).toEqual([]);
    // Forms' schemas (zod) are not part of the Requests page.
    expect(resources.some((r) => r.name.includes('schemas'))).toBe(false);
    await fresh.locator('tr[data-request-id] a').first().click();
    await fresh.waitForURL(/\/requests\/[^/]+$/);
    expect(consoleMessages).toEqual([]);
    await returning.close();
    await context.close();
  });

  it('sends a visitor whose session has ended to sign in from the Requests page, with a clean console', async () => {
    const context = await browser.newContext({ baseURL: baseUrl() });
    await context.addCookies([{ name: 'dds_session', value: 'no-such-session', url: baseUrl() }]);
    const page = await context.newPage();
    const consoleMessages = watchConsole(page);
    await page.goto('/requests');
    await page.waitForURL(/\/sign-in\?next=%2Frequests$/);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(consoleMessages).toEqual([]);
    await context.close();
  });

  it('loads the Requests page from its hints when the server does not render it (a filtered address)', async () => {
    const { context, page } = await newPage(browser, baseUrl());
    await signUp(page, { name: 'Cy Hints', email: `cy-${suffix}@example.com`, org: 'Hints Ltd' });
    const consoleMessages = watchConsole(page);
    await page.goto('/requests?status=FAILED', { waitUntil: 'networkidle' });
    await page.getByRole('heading', { name: 'Requests', level: 1 }).waitFor();
    await page.locator('html[data-app="ready"]').waitFor({ state: 'attached' });
    expect(consoleMessages).toEqual([]);
    await context.close();
  });
});

async function rawGet(
  url: string,
  encoding: string,
): Promise<{ headers: Record<string, string | string[] | undefined>; bytes: number }> {
  const http = await import('node:http');
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { 'Accept-Encoding': encoding } }, (response) => {
        let bytes = 0;
        response.on('data', (chunk: Buffer) => (bytes += chunk.length));
        response.on('end', () => resolve({ headers: response.headers, bytes }));
      })
      .on('error', reject);
  });
}
