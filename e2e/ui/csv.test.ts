import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { maskIdentifier } from '@shared/mask-identifier';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl } from '../support/app';
import { launchBrowser, newPage, screenshot } from '../support/browser';
import { createWorkspace, signUp } from '../support/onboarding';

const suffix = randomBytes(3).toString('hex');
const owner = { name: 'Carla Csv', email: `carla-${suffix}@example.com`, org: 'Bulk Corp' };
const hostile = `=cmd|' /C calc'!A0 ${suffix}`;
const file = {
  name: `subjects-${suffix}.csv`,
  mimeType: 'text/csv',
  buffer: Buffer.from(
    [
      'identifier,workspace,regulation',
      `ann-${suffix}@example.com,Bulk shop,GDPR`,
      ',Bulk shop,',
      `"${hostile}",Bulk shop,CCPA`,
      '',
    ].join('\r\n'),
  ),
};

let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser();
  ({ page } = await newPage(browser, baseUrl()));
  page.on('console', (message) => message.type() === 'error' && console.error(`[browser] ${message.text()}`));
});
afterEach(async (context) => {
  if (context.task.result?.state === 'fail')
    await screenshot(page, `failed-csv-${context.task.name.replace(/\W+/g, '-')}`).catch(() => {});
});
afterAll(async () => {
  await browser?.close();
});

async function upload() {
  await page.goto('/requests/import');
  await page.getByLabel('CSV file').setInputFiles(file);
  await page.getByRole('button', { name: 'Import' }).click();
  return page.getByRole('region', { name: 'Import report' });
}

describe('a privacy team imports and exports requests as CSV', () => {
  it('signs up and creates a workspace', async () => {
    await signUp(page, owner);
    await createWorkspace(page, 'Bulk shop');
  });

  it('imports a file with one bad row: a report per row, and nothing new on a second upload', async () => {
    const report = await upload();
    await report.getByText('2 created, 0 already existed, 1 with errors.').waitFor();
    const bad = report.locator('tr[data-result="error"]');
    expect(await bad.count()).toBe(1);
    expect(await bad.locator('td').first().textContent()).toBe('3');
    expect(await bad.textContent()).toContain('identifier must not be empty');
    expect(await report.locator('tr[data-result="created"]').count()).toBe(2);
    await screenshot(page, 'csv-01-import-report');

    const again = await upload();
    await again.getByText('0 created, 2 already existed, 1 with errors.').waitFor();
    expect(await again.locator('tr[data-result="existing"]').count()).toBe(2);
  });

  it('exports the list as CSV with the formula cell neutralised, and a request audit trail', async () => {
    await page.goto('/requests');
    await page.getByRole('button', { name: 'Export CSV' }).waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^deletion-requests-.*\.csv$/);
    const csv = fs.readFileSync((await download.path())!, 'utf8');
    expect(csv.split('\r\n')[0]).toMatch(/^id,workspace,workspaceId,maskedIdentifier,status,/);
    // The identifier is masked as on screen, keeping its first characters: the formula stays text.
    expect(csv).toContain(`'${maskIdentifier(hostile)}`);
    expect(csv).not.toMatch(/(^|,)=/m);
    expect(csv).toContain(maskIdentifier(`ann-${suffix}@example.com`));
    expect(csv).not.toContain(`ann-${suffix}`);

    const link = page.locator('tbody tr a[href^="/requests/dr_"]').first();
    await link.click();
    await page.waitForURL(/\/requests\/dr_/);
    const id = page.url().split('/').pop()!;
    const [trail] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download the whole audit trail (CSV)' }).click(),
    ]);
    expect(trail.suggestedFilename()).toBe(`audit-trail-${id}.csv`);
    const text = fs.readFileSync((await trail.path())!, 'utf8');
    expect(text).toContain('request.created');
  });
});
