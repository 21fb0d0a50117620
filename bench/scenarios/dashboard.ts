import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { bulkLoadRequests } from '../lib/bulk-load';
import type { BenchCluster } from '../lib/database';
import { startBaseline, startService, type Child } from '../lib/processes';
import type { Comparison, TimedResult } from '../lib/report';
import { seedOrganization } from '../lib/seed';
import type { BenchSettings } from '../settings';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CLIENT_INDEX = path.resolve(import.meta.dirname, '../../client/dist/index.html');
const LOADS = 5;

/** Where one load's time went (BENCH_DASHBOARD_TRACE=1): navigation marks and every resource, in ms from navigation. */
const TRACE = `(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const r = Math.round;
  return {
    html: [r(nav.requestStart), r(nav.responseStart), r(nav.responseEnd)],
    dcl: r(nav.domContentLoadedEventEnd),
    now: r(performance.now()),
    resources: performance.getEntriesByType('resource').map((e) =>
      [e.name.replace(location.origin, '').slice(0, 40), r(e.startTime), r(e.responseStart), r(e.responseEnd), e.transferSize]),
  };
})()`;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * Median times from navigation over LOADS page loads (after one that warms the server): until the
 * first request row is in the DOM, and until `readySelector` is (the dashboard's app has taken
 * the page over and answers clicks; the static baseline has nothing more to wait for).
 */
async function timeToFirstRow(
  target: Child,
  pagePath: string,
  sessionToken: string,
  readySelector: string | null,
): Promise<{ firstRow: TimedResult; readyMs: number }> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  try {
    const context = await browser.newContext();
    await context.addCookies([{ name: 'dds_session', value: sessionToken, url: target.url }]);
    // Only loopback: anything else the page asks for is refused. (Routing also turns Chromium's
    // HTTP cache off: every load fetches every file, as a first visit does.)
    await context.route(/^(?!http:\/\/127\.0\.0\.1:)/, (route) => route.abort());
    const firstRows: number[] = [];
    const ready: number[] = [];
    for (let i = 0; i < LOADS + 1; i++) {
      const page = await context.newPage();
      const started = performance.now();
      // From the moment the page starts arriving: the rows count when they are in the DOM, not
      // after every script has loaded (that is what `ready` measures).
      await page.goto(`${target.url}${pagePath}`, { waitUntil: 'commit' });
      await page.waitForSelector('tr[data-request-id]', { timeout: 30_000 });
      const firstRow = performance.now() - started;
      if (readySelector) await page.waitForSelector(readySelector, { state: 'attached', timeout: 30_000 });
      if (i > 0) {
        // the first load only warms the server
        firstRows.push(firstRow);
        ready.push(performance.now() - started);
      }
      if (process.env.BENCH_DASHBOARD_TRACE) console.log(JSON.stringify(await page.evaluate(TRACE)));
      await page.close();
    }
    const ms = median(firstRows);
    return {
      firstRow: { seconds: ms / 1000, items: 1, itemsPerSecond: 1000 / ms, peakRssMb: target.peakRssMb() },
      readyMs: median(ready),
    };
  } finally {
    await browser.close();
  }
}

/**
 * The dashboard's Requests page with `listRequests` requests in the database: time until
 * its first rows show in Chromium, against a server-rendered HTML table of the same first
 * page from hand-written SQL (the least a browser can be asked to do).
 */
export async function dashboardScenario(
  cluster: BenchCluster,
  settings: BenchSettings,
  notes: string[],
): Promise<Comparison[]> {
  if (!fs.existsSync(CLIENT_INDEX)) {
    notes.push('dashboard: left out, client/dist is not built (npm run build:client)');
    return [];
  }
  if (!fs.existsSync(CHROMIUM)) {
    notes.push(`dashboard: left out, no Chromium at ${CHROMIUM}`);
    return [];
  }
  const url = await cluster.createDatabase('bench_dashboard');
  const org = await seedOrganization(url, 4);
  await bulkLoadRequests(url, org, settings.listRequests);
  const sessionToken = await org.sessionToken();
  await org.close();
  const service = await startService(url, { ROLE: 'api' });
  const baseline = await startBaseline(url);
  try {
    const { firstRow: spa, readyMs } = await timeToFirstRow(
      service,
      '/requests',
      sessionToken,
      'html[data-app="ready"]',
    );
    const { firstRow: html } = await timeToFirstRow(baseline, '/requests-page', sessionToken, null);
    const ratio = spa.seconds / html.seconds;
    return [
      {
        scenario: 'dashboard',
        case: `Requests page, first rows in Chromium (${settings.listRequests} requests)`,
        service: spa,
        baseline: html,
        ratio,
        target: `time to first row ≤ 2 x server-rendered HTML (${Math.round(spa.seconds * 1000)} ms vs ${Math.round(html.seconds * 1000)} ms; the app has taken the page over at ${Math.round(readyMs)} ms)`,
        met: ratio <= 2,
      },
    ];
  } finally {
    await service.stop();
    await baseline.stop();
  }
}
