import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, connectAppDatabase, publicApi } from '../support/app';
import { LAPTOP, launchBrowser, recordVisitedUrls, screenshot } from '../support/browser';
import { nav, signUpWithToken } from '../support/onboarding';

const suffix = randomBytes(3).toString('hex');
const owner = { name: 'Otto Overview', email: `otto-${suffix}@example.com`, org: 'Tiles Corp' };

let browser: Browser;
let page: Page;
let recentId = '';

beforeAll(async () => {
  browser = await launchBrowser();
  // Fourteen hours ahead of UTC: the overview's days and the list's date filter must agree on what a day is.
  const context = await browser.newContext({ baseURL: baseUrl(), viewport: LAPTOP, timezoneId: 'Pacific/Kiritimati' });
  recordVisitedUrls(context);
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on('console', (message) => message.type() === 'error' && console.error(`[browser] ${message.text()}`));
  const { workspaceApiKey, pat } = await signUpWithToken(page, owner, 'Shop');
  // The workspace has no integration: both requests fail at once. One is from before the overview's window.
  const ids: string[] = [];
  for (const identifier of [`recent-${suffix}`, `older-${suffix}`]) {
    const created = await publicApi('POST', '/deletion-requests', pat, { workspaceApiKey, identifier });
    expect(created.status).toBe(201);
    ids.push(String(created.body?.id));
  }
  recentId = ids[0]!;
  const db = await connectAppDatabase();
  try {
    await db.query(`UPDATE "DeletionRequest" SET "createdAt" = now() - interval '40 days' WHERE id = $1`, [ids[1]]);
  } finally {
    await db.end();
  }
});
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
      await expect.poll(() => tile.locator('.tile-value').textContent()).toBe('1');
      await tile.click();
      await page.waitForURL(/\/requests\?/);
      await page.locator(`tr[data-request-id="${recentId}"]`).waitFor();
      expect(await page.locator('tbody tr').count()).toBe(1);
      expect(await page.getByLabel('Created from').inputValue()).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });
});
