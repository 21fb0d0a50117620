import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, publicApi } from '../support/app';
import { LAPTOP, launchBrowser, recordVisitedUrls, screenshot } from '../support/browser';
import { signUpWithToken } from '../support/onboarding';

const suffix = randomBytes(3).toString('hex');
const owner = { name: 'Tess Zone', email: `tess-${suffix}@example.com`, org: 'Zone Corp' };
// A zone whose calendar day differs from UTC's right now (UTC-11 before 10:00 UTC, UTC+14 from then on),
// so "today" and a day filter mean different instants in the viewer's zone and in UTC.
const viewerZone = new Date().getUTCHours() < 10 ? 'Pacific/Pago_Pago' : 'Pacific/Kiritimati';

let browser: Browser;
let page: Page;
let workspaceApiKey = '';
let pat = '';

beforeAll(async () => {
  browser = await launchBrowser();
  const context = await browser.newContext({ baseURL: baseUrl(), viewport: LAPTOP, timezoneId: viewerZone });
  recordVisitedUrls(context);
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on('console', (message) => message.type() === 'error' && console.error(`[browser] ${message.text()}`));
});
afterEach(async (context) => {
  if (context.task.result?.state === 'fail')
    await screenshot(page, `failed-time-zone-${context.task.name.replace(/\W+/g, '-')}`).catch(() => {});
});
afterAll(async () => {
  await browser?.close();
});

const timesToggle = () => page.getByRole('button', { name: /^Times: / });

async function chooseTimes(zone: 'UTC' | 'local') {
  if ((await timesToggle().textContent()) !== `Times: ${zone}`) await timesToggle().click();
  await page.getByRole('button', { name: `Times: ${zone}` }).waitFor();
}

describe('the viewer switches between local times and UTC', () => {
  it('keeps a token shown once and a half-typed name on screen while the times change zone', async () => {
    ({ workspaceApiKey, pat } = await signUpWithToken(page, owner, 'Shop'));
    expect(pat.length).toBeGreaterThan(20);
    await page.getByLabel('Token name').fill('half typed');
    await chooseTimes('UTC');
    expect((await page.getByLabel('New personal access token').textContent())?.trim()).toBe(pat);
    expect(await page.getByLabel('Token name').inputValue()).toBe('half typed');
    await chooseTimes('local');
    expect((await page.getByLabel('New personal access token').textContent())?.trim()).toBe(pat);
  });

  it('formats the Requests list again in the chosen zone, keeping the search being typed', async () => {
    const created = await publicApi('POST', '/deletion-requests', pat, {
      workspaceApiKey,
      identifier: `zone-${suffix}@example.com`,
    });
    expect(created.status).toBe(201);
    await page.goto('/requests');
    await chooseTimes('local');
    const time = page.locator(`tr[data-request-id="${String(created.body?.id)}"] td[data-label="Created"] time`);
    await time.waitFor();
    expect(await time.getAttribute('title')).not.toMatch(/UTC$/);
    await page.getByLabel('Identifier (exact match)').fill('not yet sent');
    await chooseTimes('UTC');
    await expect.poll(() => time.getAttribute('title')).toMatch(/UTC$/);
    expect(await page.getByLabel('Identifier (exact match)').inputValue()).toBe('not yet sent');
    await chooseTimes('local');
    await expect.poll(() => time.getAttribute('title')).not.toMatch(/UTC$/);
    expect(await page.getByLabel('Identifier (exact match)').inputValue()).toBe('not yet sent');
  });
});
