import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
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
/** Page loads timed per target: a page load on two cores varies by ±20%, so the median needs a few. */
const LOADS = { smoke: 5, full: 11 };
const WARM_UPS = 20;

/** Where one load's time went (BENCH_DASHBOARD_TRACE=1): navigation marks and every resource, in ms from navigation. */
const TRACE = `(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const r = Math.round;
  return {
    html: [r(nav.requestStart), r(nav.responseStart), r(nav.responseEnd)],
    dcl: r(nav.domContentLoadedEventEnd),
    marks: performance.getEntriesByType('mark').map((m) => [m.name, r(m.startTime)]),
    fcp: performance.getEntriesByType('paint').map((m) => [m.name, r(m.startTime)]),
    now: r(performance.now()),
    resources: performance.getEntriesByType('resource').map((e) =>
      [e.name.replace(location.origin, '').slice(0, 40), r(e.startTime), r(e.responseStart), r(e.responseEnd), e.transferSize]),
  };
})()`;

/**
 * Runs in every page before its own scripts: marks when the first request row enters the DOM
 * (`first-row`), and when the browser has painted it (`first-row-painted`, at the render time
 * Chromium reports through the Element Timing API for the row's text, which every element of
 * the row is flagged for as it is parsed). Both pages measure the same way.
 */
const FIRST_ROW_MARKS = `(() => {
  let row = null;
  new PerformanceObserver((list) => {
    if (performance.getEntriesByName('first-row-painted').length) return;
    const painted = list.getEntries().find((entry) => entry.identifier === 'first-row');
    if (painted) performance.mark('first-row-painted', { startTime: painted.renderTime || painted.loadTime });
  }).observe({ type: 'element', buffered: true });
  const observer = new MutationObserver(() => {
    if (!row) {
      row = document.querySelector('tr[data-request-id]');
      if (!row) return;
      performance.mark('first-row');
      setTimeout(() => observer.disconnect(), 10000);
    }
    for (const element of [row, ...row.querySelectorAll('*')])
      if (!element.hasAttribute('elementtiming')) element.setAttribute('elementtiming', 'first-row');
  });
  observer.observe(document, { childList: true, subtree: true });
})();`;

/**
 * The service's Requests page as it was sent once, without the scripts that load the app, served
 * as a file from this process: what Chromium needs to show this page with no server work and no
 * app code. Against the baseline's bare table, it says how much of the gap is the page itself.
 */
async function serveStaticCopy(
  html: string,
  headers: Record<string, string> = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const page = html.replace(/<template id="app-code">[\s\S]*?<\/template><script>[\s\S]*?<\/script>/, '');
  if (page === html) throw new Error('the Requests page no longer has the app-code template this bench strips');
  const server = http.createServer((_, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', ...headers });
    response.end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

interface Target {
  server: Pick<Child, 'url' | 'peakRssMb'>;
  path: string;
  /** A mark the page sets once its app has taken over (the static baseline has none to wait for). */
  readyMark: string | null;
}

interface Loads {
  firstRow: TimedResult;
  readyMs: number;
}

/**
 * Median times from navigation over `loads` page loads of each target (after one that warms its
 * server): until the first request row has been painted, and until the page marks its
 * `readyMark`. The targets' loads alternate in one browser, so both meet the same machine.
 */
async function timeToFirstRow(targets: Target[], sessionToken: string, loads: number): Promise<Loads[]> {
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
    const contexts = await Promise.all(
      targets.map(async ({ server }) => {
        const context = await browser.newContext();
        await context.addCookies([{ name: 'dds_session', value: sessionToken, url: server.url }]);
        // Only loopback: anything else the page asks for is refused. (Routing also turns Chromium's
        // HTTP cache off: every load fetches every file, as a first visit does.)
        await context.route(/^(?!http:\/\/127\.0\.0\.1:)/, (route) => route.abort());
        await context.addInitScript(FIRST_ROW_MARKS);
        return context;
      }),
    );
    const firstRows = targets.map((): number[] => []);
    const ready = targets.map((): number[] => []);
    for (let i = 0; i < loads + 1; i++) {
      for (const [t, { server, path: pagePath, readyMark }] of targets.entries()) {
        const page = await contexts[t]!.newPage();
        if (process.env.BENCH_DASHBOARD_TRACE) {
          page.on('console', (message) => console.log('console', message.text().slice(0, 300)));
          page.on('pageerror', (error) => console.log('page error', error.message));
        }
        // Times in the page, from its navigation's start: the rows count once painted, not after
        // every script has run (that is what `ready` measures).
        await page.goto(`${server.url}${pagePath}`, { waitUntil: 'commit' });
        // (A function, not a string: the dashboard's CSP allows no eval.)
        const marked = (name: string) => performance.getEntriesByName(name).length > 0;
        await page.waitForFunction(marked, 'first-row-painted', { timeout: 30_000 });
        if (readyMark) await page.waitForFunction(marked, readyMark, { timeout: 30_000 });
        const [firstRow, readyAt] = (await page.evaluate(
          `[performance.getEntriesByName('first-row-painted')[0].startTime, performance.getEntriesByName('${readyMark}')[0]?.startTime ?? 0]`,
        )) as [number, number];
        if (i > 0) {
          // the first load only warms the server
          firstRows[t]!.push(firstRow);
          ready[t]!.push(readyMark ? readyAt : firstRow);
        }
        if (process.env.BENCH_DASHBOARD_TRACE) console.log(pagePath, JSON.stringify(await page.evaluate(TRACE)));
        await page.close();
      }
    }
    return targets.map(({ server }, t) => {
      const ms = median(firstRows[t]!);
      return {
        firstRow: { seconds: ms / 1000, items: 1, itemsPerSecond: 1000 / ms, peakRssMb: server.peakRssMb() },
        readyMs: median(ready[t]!),
      };
    });
  } finally {
    await browser.close();
  }
}

/**
 * The dashboard's Requests page with `listRequests` requests in the database: time until
 * its first rows show in Chromium, against a server-rendered HTML table of the same first
 * page from hand-written SQL (the least a browser can be asked to do), sent with the same
 * security headers as the page.
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
    // A server that has been up a while: both pages are asked for WARM_UPS times before any is timed.
    for (const target of [`${service.url}/requests`, `${baseline.url}/requests-page`])
      for (let i = 0; i < WARM_UPS; i++)
        await (await fetch(target, { headers: { Cookie: `dds_session=${sessionToken}` } })).text();
    const sent = await (
      await fetch(`${service.url}/requests`, { headers: { Cookie: `dds_session=${sessionToken}` } })
    ).text();
    const copy = await serveStaticCopy(sent);
    // The same copy with the one response header that changes how Chromium opens the page: the
    // service's Cross-Origin-Opener-Policy puts it in a browsing context group (and renderer
    // process) of its own, where the bench's new tab starts from about:blank.
    const isolated = await serveStaticCopy(sent, { 'Cross-Origin-Opener-Policy': 'same-origin' });
    const [dashboard, static_, copied, copiedIsolated] = await timeToFirstRow(
      [
        { server: service, path: '/requests', readyMark: 'app-ready' },
        { server: baseline, path: '/requests-page', readyMark: null },
        { server: { url: copy.url, peakRssMb: () => 0 }, path: '/', readyMark: null },
        { server: { url: isolated.url, peakRssMb: () => 0 }, path: '/', readyMark: null },
      ],
      sessionToken,
      settings.smoke ? LOADS.smoke : LOADS.full,
    ).finally(() => Promise.all([copy.close(), isolated.close()]));
    const { firstRow: spa, readyMs } = dashboard!;
    const html = static_!.firstRow;
    const floorMs = Math.round(copied!.firstRow.seconds * 1000);
    const isolatedFloorMs = Math.round(copiedIsolated!.firstRow.seconds * 1000);
    const ratio = spa.seconds / html.seconds;
    return [
      {
        scenario: 'dashboard',
        case: `Requests page, first rows in Chromium (${settings.listRequests} requests)`,
        service: spa,
        baseline: html,
        ratio,
        target: `time to first row ≤ 2 x server-rendered HTML with the same security headers (${Math.round(spa.seconds * 1000)} ms vs ${Math.round(html.seconds * 1000)} ms; the app has taken the page over at ${Math.round(readyMs)} ms; the same page as a static file, without the app, ${floorMs} ms, and ${isolatedFloorMs} ms with the service's Cross-Origin-Opener-Policy)`,
        met: ratio <= 2,
      },
    ];
  } finally {
    await service.stop();
    await baseline.stop();
  }
}
