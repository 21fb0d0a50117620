import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, connectAppDatabase, publicApi } from '../support/app';
import { LAPTOP, launchBrowser, recordVisitedUrls, screenshot } from '../support/browser';
import { clearOfDayChange, DAY_CHANGE_WAIT_MS } from '../support/clock';
import { nav, signUpWithToken } from '../support/onboarding';

const suffix = randomBytes(3).toString('hex');
const owner = { name: 'Otto Overview', email: `otto-${suffix}@example.com`, org: 'Tiles Corp' };

let browser: Browser;
let page: Page;
let inWindow: string[] = [];

// Fourteen hours ahead of UTC: the overview's days and the list's date filter must agree on what a day is.
const ZONE = 'Pacific/Kiritimati';
const dayIn = (at: number) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
// The 30-day window's first day there, and the instant it starts (set once no day starts during the run).
let firstDay = '';
let firstDayStart = 0;

beforeAll(async () => {
  await clearOfDayChange([ZONE, 'UTC']);
  firstDay = dayIn(Date.now() - 29 * 86_400_000);
  firstDayStart = Date.parse(`${firstDay}T00:00:00+14:00`);
  browser = await launchBrowser();
  const context = await browser.newContext({ baseURL: baseUrl(), viewport: LAPTOP, timezoneId: ZONE });
  recordVisitedUrls(context);
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on('console', (message) => message.type() === 'error' && console.error(`[browser] ${message.text()}`));
  const { workspaceApiKey, pat } = await signUpWithToken(page, owner, 'Shop');
  // The workspace has no integration: every request fails at once. One is from before the window,
  // two a minute either side of the start of its first day.
  const ids: string[] = [];
  for (const identifier of [`recent-${suffix}`, `older-${suffix}`, `edge-in-${suffix}`, `edge-out-${suffix}`]) {
    const created = await publicApi('POST', '/deletion-requests', pat, { workspaceApiKey, identifier });
    expect(created.status).toBe(201);
    ids.push(String(created.body?.id));
  }
  const [recent, older, edgeIn, edgeOut] = ids as [string, string, string, string];
  inWindow = [recent, edgeIn];
  const db = await connectAppDatabase();
  try {
    const setCreated = (id: string, at: Date) =>
      db.query(`UPDATE "DeletionRequest" SET "createdAt" = $2 WHERE id = $1`, [id, at]);
    await db.query(`UPDATE "DeletionRequest" SET "createdAt" = now() - interval '40 days' WHERE id = $1`, [older]);
    await setCreated(edgeIn, new Date(firstDayStart + 60_000));
    await setCreated(edgeOut, new Date(firstDayStart - 60_000));
  } finally {
    await db.end();
  }
}, 240_000 + DAY_CHANGE_WAIT_MS);
afterEach(async (context) => {
  if (context.task.result?.state === 'fail')
    await screenshot(page, `failed-overview-${context.task.name.replace(/\W+/g, '-')}`).catch(() => {});
});
afterAll(async () => {
  await browser?.close();
});

describe('the overview', () => {
  it('opens the Requests list from a tile with exactly the requests the tile counts', async () => {
    for (const label of ['Failed or errored', 'Requests, last 30 days']) {
      await nav(page, 'Overview').click();
      const tile = page.getByRole('region', { name: 'Totals' }).getByRole('link', { name: label });
      await expect.poll(() => tile.locator('.tile-value').textContent()).toBe(String(inWindow.length));
      await tile.click();
      await page.waitForURL(/\/requests\?/);
      for (const id of inWindow) await page.locator(`tr[data-request-id="${id}"]`).waitFor();
      expect(await page.locator('tbody tr').count()).toBe(inWindow.length);
      expect(await page.getByLabel('Created from').inputValue()).toBe(firstDay);
    }
  });
});
