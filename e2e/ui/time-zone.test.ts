import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, connectAppDatabase, publicApi } from '../support/app';
import { LAPTOP, launchBrowser, recordVisitedUrls, screenshot } from '../support/browser';
import { clearOfDayChange, DAY_CHANGE_WAIT_MS } from '../support/clock';
import { nav, signUpWithToken } from '../support/onboarding';

const suffix = randomBytes(3).toString('hex');
const owner = { name: 'Tess Zone', email: `tess-${suffix}@example.com`, org: 'Zone Corp' };
// A zone whose calendar day differs from UTC's during the run (UTC-11 before 10:00 UTC, UTC+14 from
// then on), so "today" and a day filter mean different instants in the viewer's zone and in UTC.
const ZONES = ['Pacific/Pago_Pago', 'Pacific/Kiritimati'] as const;
let viewerZone: string = ZONES[0];

let browser: Browser;
let page: Page;
let workspaceApiKey = '';
let pat = '';

beforeAll(async () => {
  // No day may start in UTC or either zone while the tests run (the choice would no longer hold).
  await clearOfDayChange(['UTC', ...ZONES]);
  viewerZone = ZONES[new Date().getUTCHours() < 10 ? 0 : 1];
  browser = await launchBrowser();
  const context = await browser.newContext({ baseURL: baseUrl(), viewport: LAPTOP, timezoneId: viewerZone });
  recordVisitedUrls(context);
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on('console', (message) => message.type() === 'error' && console.error(`[browser] ${message.text()}`));
  ({ workspaceApiKey, pat } = await signUpWithToken(page, owner, 'Shop'));
  await page.getByRole('button', { name: 'I have copied it' }).click();
}, 240_000 + DAY_CHANGE_WAIT_MS);
afterEach(async (context) => {
  if (context.task.result?.state === 'fail')
    await screenshot(page, `failed-time-zone-${context.task.name.replace(/\W+/g, '-')}`).catch(() => {});
});
afterAll(async () => {
  await browser?.close();
});

const timesToggle = () => page.getByRole('button', { name: /^Times: / });

async function chooseTimes(zone: 'UTC' | 'local') {
  // The Requests page may still be the server's copy, which does not answer clicks.
  await page.locator('html[data-app="ready"]').waitFor({ state: 'attached' });
  if ((await timesToggle().textContent()) !== `Times: ${zone}`) await timesToggle().click();
  await page.getByRole('button', { name: `Times: ${zone}` }).waitFor();
}

describe('the viewer switches between local times and UTC', () => {
  it('keeps a token shown once and a half-typed name on screen while the times change zone', async () => {
    await nav(page, 'Access tokens').click();
    await page.getByLabel('Token name').fill('Reports');
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByRole('row', { name: /Reports/ }).waitFor();
    const token = (await page.getByLabel('New personal access token').textContent())?.trim();
    expect(token?.length).toBeGreaterThan(20);
    await page.getByLabel('Token name').fill('half typed');
    await chooseTimes('UTC');
    expect((await page.getByLabel('New personal access token').textContent())?.trim()).toBe(token);
    expect(await page.getByLabel('Token name').inputValue()).toBe('half typed');
    await chooseTimes('local');
    expect((await page.getByLabel('New personal access token').textContent())?.trim()).toBe(token);
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

  it('takes the Requests date filter, and its CSV export, as UTC days when times show in UTC', async () => {
    const created = await publicApi('POST', '/deletion-requests', pat, {
      workspaceApiKey,
      identifier: `old-${suffix}@example.com`,
    });
    expect(created.status).toBe(201);
    const oldId = String(created.body?.id);
    // 10:30 UTC on 10 January: 9 January in UTC-11, 11 January in UTC+14.
    const db = await connectAppDatabase();
    try {
      await db.query(`UPDATE "DeletionRequest" SET "createdAt" = '2026-01-10T10:30:00Z' WHERE id = $1`, [oldId]);
    } finally {
      await db.end();
    }
    await page.goto('/requests?from=2026-01-10&to=2026-01-10');
    await chooseTimes('local');
    await page.getByText('No request matches these filters').waitFor();
    await chooseTimes('UTC');
    await page.locator(`tr[data-request-id="${oldId}"]`).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(1);
    expect(await page.getByLabel('Created from (UTC)').inputValue()).toBe('2026-01-10');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    const rows = fs
      .readFileSync((await download.path())!, 'utf8')
      .trim()
      .split('\r\n');
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatch(new RegExp(`^${oldId},`));
  });

  it('takes the audit log date filter as UTC days when times show in UTC', async () => {
    const todayInUtc = new Date().toISOString().slice(0, 10);
    await nav(page, 'Audit log').click();
    await chooseTimes('UTC');
    await page.getByLabel(/^From/).fill(todayInUtc);
    await page.getByLabel(/^To( \(UTC\))?$/).fill(todayInUtc);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.locator('.timeline').getByText('Workspace created').waitFor();
    // The same day in the viewer's zone is another stretch of time: nothing of today's is in it.
    await chooseTimes('local');
    await page.getByText('No entry matches these filters').waitFor();
    await chooseTimes('UTC');
    await page.locator('.timeline').getByText('Workspace created').waitFor();
  });

  it("shows the viewer's choice on the server's copy of the Requests page, before the app takes over", async () => {
    for (const zone of ['UTC', 'local'] as const) {
      await chooseTimes(zone);
      const noScript = await browser.newContext({
        baseURL: baseUrl(),
        viewport: LAPTOP,
        timezoneId: viewerZone,
        storageState: await page.context().storageState(),
        javaScriptEnabled: false,
      });
      try {
        const still = await noScript.newPage();
        await still.goto('/requests');
        // The server's markup is inert (out of the accessibility tree) until the app replaces it.
        const time = still.locator('tr[data-request-id] td[data-label="Created"] time').first();
        await time.waitFor();
        expect(await still.locator('.time-zone-toggle').textContent()).toBe(`Times: ${zone}`);
        if (zone === 'UTC') expect(await time.getAttribute('title')).toMatch(/UTC$/);
        else expect(await time.getAttribute('title')).not.toMatch(/UTC$/);
      } finally {
        await noScript.close();
      }
    }
  });

  it("cuts the overview's days in UTC when times show in UTC", async () => {
    const created = await publicApi('POST', '/deletion-requests', pat, {
      workspaceApiKey,
      identifier: `now-${suffix}`,
    });
    expect(created.status).toBe(201);
    await nav(page, 'Overview').click();
    const lastBar = page.locator('section[aria-labelledby="per-day"] svg title').last();
    const today = (timeZone: string | undefined) =>
      page.evaluate(
        (zone) =>
          new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: zone }).format(new Date()),
        timeZone,
      );
    await chooseTimes('local');
    const localToday = await today(undefined);
    await expect.poll(() => lastBar.textContent()).toMatch(new RegExp(`^${localToday}: [1-9]`));
    await chooseTimes('UTC');
    const utcToday = await today('UTC');
    expect(utcToday).not.toBe(localToday);
    await expect.poll(() => lastBar.textContent()).toMatch(new RegExp(`^${utcToday}: [1-9]`));
  });
});

describe('a viewer in Tokyo picks the day a request was received', () => {
  /** A page in Tokyo, signed in as the owner, its clock at `time` (the real one when absent). */
  async function tokyoPage(time?: Date) {
    const context = await browser.newContext({
      baseURL: baseUrl(),
      viewport: LAPTOP,
      timezoneId: 'Asia/Tokyo',
      storageState: await page.context().storageState(),
    });
    recordVisitedUrls(context);
    const tokyo = await context.newPage();
    tokyo.setDefaultTimeout(15_000);
    if (time) await tokyo.clock.setFixedTime(time);
    // Times (and days) in the viewer's own zone, whatever the earlier tests left chosen.
    await tokyo.addInitScript(() => localStorage.removeItem('dds.timeZone'));
    return { context, tokyo };
  }

  it("offers Tokyo's date as the latest day on the morning of 28 November, when it is still the 27th in UTC", async () => {
    const { context, tokyo } = await tokyoPage(new Date('2026-11-27T23:30:00Z'));
    try {
      await tokyo.goto('/requests/new');
      const received = tokyo.getByLabel(/^Received on/);
      await received.waitFor();
      expect(await received.getAttribute('max')).toBe('2026-11-28');
      expect(await tokyo.getByText('Received on (a day in your time zone)').count()).toBe(1);
      // Times shown in UTC: the days are UTC's too.
      await tokyo.getByRole('button', { name: /^Times: / }).click();
      await tokyo.getByRole('button', { name: 'Times: UTC' }).waitFor();
      await expect.poll(() => received.getAttribute('max')).toBe('2026-11-27');
      await tokyo.getByRole('button', { name: 'Times: UTC' }).click();
    } finally {
      await context.close();
    }
  });

  it("takes today's date in Tokyo as received today, not as a day still to come", async () => {
    const { context, tokyo } = await tokyoPage();
    try {
      const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Tokyo' }).format(new Date());
      await tokyo.goto('/requests/new');
      await tokyo.getByLabel('Identifier', { exact: true }).fill(`tokyo-${suffix}@example.com`);
      await tokyo.getByLabel(/^Received on/).fill(today);
      await tokyo.getByRole('button', { name: 'Create request' }).click();
      await tokyo.waitForURL(/\/requests\/dr_/);
      const id = new URL(tokyo.url()).pathname.split('/').pop()!;
      const { body } = await publicApi('GET', `/deletion-requests/${id}`, pat);
      // The start of that day in Tokyo: 15:00 UTC the day before.
      expect(body?.receivedAt).toBe(new Date(`${today}T00:00:00+09:00`).toISOString());
    } finally {
      await context.close();
    }
  });
});
