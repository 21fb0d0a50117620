import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { inject } from 'vitest';

export const SCREENSHOT_DIR = path.resolve(import.meta.dirname, '..', 'screenshots');

export const LAPTOP = { width: 1366, height: 900 };
export const PHONE = { width: 390, height: 844 };

/** Debian's Chromium, headless, with the flags that keep it off the network. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** Every URL a test browser asked for or showed, one a line, for the privacy check (e2e/ui/privacy.test.ts). */
export const visitedUrlsFile = () => path.join(inject('dataDir'), 'visited-urls.txt');

/** Records every URL the context's pages load or navigate to, and every document title they show. */
export function recordVisitedUrls(context: BrowserContext): void {
  const record = (line: string) => fs.appendFileSync(visitedUrlsFile(), `${line.replace(/\n/g, ' ')}\n`);
  context.on('request', (request) => record(request.url()));
  context.on('page', (page) => watchPage(page, record));
  for (const page of context.pages()) watchPage(page, record);
}

function watchPage(page: Page, record: (line: string) => void): void {
  page.on('framenavigated', (frame) => {
    record(frame.url());
    void frame.title().then(
      (title) => record(`title: ${title}`),
      () => {},
    );
  });
  page.on(
    'load',
    () =>
      void page.title().then(
        (title) => record(`title: ${title}`),
        () => {},
      ),
  );
}

export async function newPage(
  browser: Browser,
  baseURL: string,
  viewport = LAPTOP,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL, viewport });
  recordVisitedUrls(context);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return { context, page };
}

/** Full-page screenshot for reviewers, in e2e/screenshots (git-ignored). */
export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/**
 * Bytes the page has transferred so far, by the browser's own Resource Timing: the document
 * and every resource, headers and (compressed) bodies, as `transferSize` reports them.
 */
export async function transferredBytes(
  page: Page,
): Promise<{ total: number; resources: { name: string; bytes: number }[] }> {
  return page.evaluate(() => {
    const entries = [
      ...performance.getEntriesByType('navigation'),
      ...performance.getEntriesByType('resource'),
    ] as PerformanceResourceTiming[];
    const resources = entries.map((e) => ({ name: new URL(e.name).pathname, bytes: e.transferSize }));
    return { total: resources.reduce((sum, r) => sum + r.bytes, 0), resources };
  });
}

/** Collects what the page writes to the console as errors and warnings (and uncaught errors), to assert it stays empty. */
export function watchConsole(page: Page): string[] {
  const messages: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning')
      messages.push(`${message.type()}: ${message.text()} (${page.url()})`);
  });
  page.on('pageerror', (error) => messages.push(`uncaught: ${error.message} (${page.url()})`));
  return messages;
}

/** The widths every screen is checked and photographed at: a phone, a tablet, a laptop. */
export const WIDTHS = [
  { width: 390, height: 844 },
  { width: 768, height: 1024 },
  { width: 1440, height: 900 },
] as const;
