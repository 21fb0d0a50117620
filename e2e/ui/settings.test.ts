import { randomBytes } from 'node:crypto';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl } from '../support/app';
import { launchBrowser, newPage, screenshot } from '../support/browser';
import { nav, signUp } from '../support/onboarding';

const suffix = randomBytes(3).toString('hex');
const owner = { name: 'Sam Settings', email: `sam-${suffix}@example.com`, org: 'Settings Corp' };

let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser();
  ({ page } = await newPage(browser, baseUrl()));
  page.on('console', (message) => message.type() === 'error' && console.error(`[browser] ${message.text()}`));
});
afterEach(async (context) => {
  if (context.task.result?.state === 'fail')
    await screenshot(page, `failed-settings-${context.task.name.replace(/\W+/g, '-')}`).catch(() => {});
});
afterAll(async () => {
  await browser?.close();
});

const isFocused = (locator: Locator) => locator.evaluate((element) => element === document.activeElement);

describe('an owner fills in the settings forms', () => {
  it('lands on the first field to fix when an account cannot be saved', async () => {
    await signUp(page, owner);
    await nav(page, 'Accounts').click();
    await page.getByRole('button', { name: 'New account' }).click();
    await page.getByLabel('For integrations of type').selectOption({ label: 'PostgreSQL' });
    const form = page.getByRole('group', { name: 'New account' });
    await form.getByLabel('Account name').fill('Warehouse');
    await form.getByLabel('Host').fill('db.internal');
    await form.getByRole('button', { name: 'Save account' }).click();
    const database = form.getByLabel('Database', { exact: true });
    expect(await database.getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => isFocused(database)).toBe(true);

    await form.getByLabel('Account name').fill('');
    await form.getByRole('button', { name: 'Save account' }).click();
    await expect.poll(() => isFocused(form.getByLabel('Account name'))).toBe(true);
  });
});
