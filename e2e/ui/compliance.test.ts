import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, connectAppDatabase } from '../support/app';
import { launchBrowser, newPage, screenshot } from '../support/browser';
import { createWorkspace, signUp } from '../support/onboarding';

const suffix = randomBytes(3).toString('hex');
const owner = { name: 'Priya Privacy', email: `priya-${suffix}@example.com`, org: 'Deadline Corp' };

let browser: Browser;
let page: Page;
const requestIds: Record<string, string> = {};

beforeAll(async () => {
  browser = await launchBrowser();
  ({ page } = await newPage(browser, baseUrl()));
  page.on('console', (message) => message.type() === 'error' && console.error(`[browser] ${message.text()}`));
});
afterEach(async (context) => {
  if (context.task.result?.state === 'fail')
    await screenshot(page, `failed-compliance-${context.task.name.replace(/\W+/g, '-')}`).catch(() => {});
});
afterAll(async () => {
  await browser?.close();
});

async function createRequest(identifier: string, regulation: string) {
  await page.goto('/requests/new');
  await page.getByLabel('Identifier').fill(identifier);
  await page.getByLabel('Regulation').selectOption(regulation);
  await page.getByRole('button', { name: 'Create request' }).click();
  await page.waitForURL(/\/requests\/dr_/);
  return page.url().split('/').pop()!;
}

describe('a privacy team tracks legal deadlines', () => {
  it('signs up and creates a workspace', async () => {
    await signUp(page, owner);
    await createWorkspace(page, 'EU shop');
  });

  it('creates requests under GDPR and CCPA, and shows the deadline on the detail', async () => {
    requestIds.gdpr = await createRequest(`gdpr-${suffix}@example.com`, 'GDPR');
    const panel = page.getByRole('region', { name: 'Deadline' });
    await panel.getByText('Deadline (GDPR)').waitFor();
    await expect(panel.textContent()).resolves.toMatch(/(2[89]|3[012]) days left/);
    requestIds.ccpa = await createRequest(`ccpa-${suffix}@example.com`, 'CCPA');
    await page.getByRole('region', { name: 'Deadline' }).getByText('45 days left').waitFor();
  });

  it('lists the deadline with days left, and filters the overdue ones', async () => {
    // Time travel for one request: its deadline passed two days ago.
    const db = await connectAppDatabase();
    try {
      await db.query(`UPDATE "DeletionRequest" SET "dueAt" = now() - interval '2 days 1 hour' WHERE id = $1`, [
        requestIds.gdpr,
      ]);
    } finally {
      await db.end();
    }
    await page.goto('/requests');
    await page.getByRole('columnheader', { name: 'Due' }).waitFor();
    const late = page.locator(`tr[data-request-id="${requestIds.gdpr}"]`);
    await late.getByText('2 days overdue').waitFor();
    await page.locator(`tr[data-request-id="${requestIds.ccpa}"]`).getByText('45 days left').waitFor();
    await screenshot(page, 'compliance-01-deadline-column');

    // The deadline filter is one of those folded under "More filters"; set, it keeps them open and counted.
    await expect(page.getByLabel('Deadline').count()).resolves.toBe(0);
    await page.getByText('More filters', { exact: true }).click();
    await page.getByLabel('Deadline').selectOption('overdue');
    await page.waitForURL(/due=overdue/);
    await page.getByText('More filters · 1 active', { exact: true }).waitFor();
    await page.locator(`tr[data-request-id="${requestIds.ccpa}"]`).waitFor({ state: 'detached' });
    await late.waitFor();
    expect(await page.locator('tbody tr').count()).toBe(1);
    await screenshot(page, 'compliance-02-overdue-filter');

    await page.goto('/');
    await page.getByText('Overdue', { exact: true }).waitFor();
  });

  it('downloads the certificate of a finished request as a PDF', async () => {
    // The workspace has no integration, so the request finished at once (FAILED, nothing to delete).
    await page.goto(`/requests/${requestIds.ccpa}`);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download PDF' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`certificate-${requestIds.ccpa}.pdf`);
    const file = await download.path();
    const bytes = (await import('node:fs')).readFileSync(file!);
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(bytes.toString('latin1')).not.toContain(`ccpa-${suffix}@example.com`);
  });

  it('enters a request received by email days ago: its deadline runs from that day', async () => {
    const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
    await page.goto('/requests/new');
    await page.getByLabel('Identifier').fill(`by-mail-${suffix}@example.com`);
    await page.getByLabel('Regulation').selectOption('CCPA');
    // A day still to come is refused, saying why; nothing is created.
    await page.getByLabel(/^Received on/).fill(day(1));
    await page.getByRole('button', { name: 'Create request' }).click();
    await page.getByText('receivedAt is in the future').waitFor();
    expect(page.url()).toMatch(/\/requests\/new$/);
    await page.getByLabel(/^Received on/).fill(day(-10));
    await page.getByRole('button', { name: 'Create request' }).click();
    await page.waitForURL(/\/requests\/dr_/);
    await page.getByText('(the deadline runs from then)').waitFor();
    await expect(page.getByRole('region', { name: 'Deadline' }).textContent()).resolves.toMatch(/3[456] days left/);
  });

  it('records the confirmation of receipt a CCPA request is due within 10 business days, once', async () => {
    // The overview counts the two CCPA requests (this one and the one received by email) still to confirm.
    await page.goto('/');
    const tile = page.getByRole('region', { name: 'Totals' }).getByRole('link', { name: 'Receipt to confirm (CCPA)' });
    await expect.poll(() => tile.locator('.tile-value').textContent()).toBe('2');
    await page.goto(`/requests/${requestIds.ccpa}`);
    const panel = page.getByRole('region', { name: 'Deadline' });
    await panel.getByText('Receipt confirmed to the subject').waitFor();
    await expect(panel.textContent()).resolves.toMatch(/not recorded, (9|10) business days left/);
    // The list finds it among those still to confirm; the GDPR request is not one of them.
    await page.goto('/requests?due=unconfirmed');
    await page.locator(`tr[data-request-id="${requestIds.ccpa}"]`).waitFor();
    expect(await page.locator(`tr[data-request-id="${requestIds.gdpr}"]`).count()).toBe(0);
    await page.goto(`/requests/${requestIds.ccpa}`);
    await page.getByRole('button', { name: 'Record confirmation of receipt' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('How it was sent (optional)').fill('Emailed from privacy@');
    await dialog.getByRole('button', { name: 'Record confirmation' }).click();
    await expect.poll(() => panel.textContent()).not.toMatch(/not recorded/);
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.getByRole('button', { name: 'Record confirmation of receipt' }).count()).toBe(0);
    await screenshot(page, 'compliance-03-receipt-confirmed');
    // In the request's audit trail, with how it was sent.
    await page.getByText('Receipt confirmed to the subject on').first().waitFor();
    // Off the list of those still to confirm; the one received by email is still on it.
    await page.goto('/requests?due=unconfirmed');
    await page.locator('tr[data-request-id]').first().waitFor();
    expect(await page.locator(`tr[data-request-id="${requestIds.ccpa}"]`).count()).toBe(0);
    expect(await page.locator('tbody tr').count()).toBe(1);
    await page.goto('/');
    await expect.poll(() => tile.locator('.tile-value').textContent()).toBe('1');
  });

  it('an owner withdraws a confirmation recorded by mistake, with a reason: the receipt is to confirm again', async () => {
    await page.goto(`/requests/${requestIds.ccpa}`);
    const panel = page.getByRole('region', { name: 'Deadline' });
    await page.getByRole('button', { name: 'Correct the confirmation' }).click();
    const dialog = page.getByRole('dialog');
    const withdraw = dialog.getByRole('button', { name: 'Withdraw the record' });
    await dialog.getByLabel('It was not sent (withdraw the record)').check();
    // Not without a reason.
    expect(await withdraw.isDisabled()).toBe(true);
    await dialog.getByLabel('Reason for the correction').fill('Recorded on the wrong request');
    await withdraw.click();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => panel.textContent()).toMatch(/not recorded, \d+ business days? left/);
    await page.getByRole('button', { name: 'Record confirmation of receipt' }).waitFor();
    await page.getByText('Confirmation of receipt withdrawn').first().waitFor();
    // Among those to confirm again, nearest confirmation deadline first, with the business days left.
    await page.goto('/');
    const tile = page.getByRole('region', { name: 'Totals' }).getByRole('link', { name: 'Receipt to confirm (CCPA)' });
    await expect.poll(() => tile.locator('.tile-value').textContent()).toBe('2');
    await tile.click();
    await page.waitForURL(/due=unconfirmed/);
    expect(new URL(page.url()).searchParams.get('sort')).toBe('due');
    const row = page.locator(`tr[data-request-id="${requestIds.ccpa}"]`);
    await expect.poll(() => row.textContent()).toMatch(/receipt: \d+ business days? left/);
  });
});
