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

/** Median time from navigation to the first request row being in the DOM, over LOADS page loads. */
async function timeToFirstRow(target: Child, pagePath: string, sessionToken: string): Promise<TimedResult> {
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
    // Only loopback: anything else the page asks for is refused.
    await context.route(/^(?!http:\/\/127\.0\.0\.1:)/, (route) => route.abort());
    const times: number[] = [];
    for (let i = 0; i < LOADS + 1; i++) {
      const page = await context.newPage();
      const started = performance.now();
      await page.goto(`${target.url}${pagePath}`);
      await page.waitForSelector('tr[data-request-id]', { timeout: 30_000 });
      if (i > 0) times.push(performance.now() - started); // the first load only warms the server
      await page.close();
    }
    times.sort((a, b) => a - b);
    const ms = times[Math.floor(times.length / 2)]!;
    return { seconds: ms / 1000, items: 1, itemsPerSecond: 1000 / ms, peakRssMb: target.peakRssMb() };
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
    const spa = await timeToFirstRow(service, '/requests', sessionToken);
    const html = await timeToFirstRow(baseline, '/requests-page', sessionToken);
    const ratio = spa.seconds / html.seconds;
    return [
      {
        scenario: 'dashboard',
        case: `Requests page, first rows in Chromium (${settings.listRequests} requests)`,
        service: spa,
        baseline: html,
        ratio,
        target: `time to first row, x server-rendered HTML (reported; ${Math.round(spa.seconds * 1000)} ms vs ${Math.round(html.seconds * 1000)} ms)`,
        met: spa.seconds < 2,
      },
    ];
  } finally {
    await service.stop();
    await baseline.stop();
  }
}
