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
  await signUp(page, owner);
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

  it('asks before deleting a deadline policy, and a refused deletion leaves no error behind once it succeeds', async () => {
    await nav(page, 'Organization').click();
    const section = page.locator('section[aria-labelledby="org-deadlines"]');
    await section.getByLabel('Policy name').fill('LGPD');
    await section.getByLabel('Days', { exact: true }).fill('15');
    await section.getByRole('button', { name: 'Add policy' }).click();
    const deleteButton = section.getByRole('button', { name: 'Delete policy LGPD' });
    await deleteButton.waitFor();
    const byDefault = section.getByLabel('Organization default');
    await byDefault.selectOption('LGPD');
    await expect.poll(() => byDefault.inputValue()).toBe('LGPD');

    const dialog = page.getByRole('dialog', { name: 'Delete policy LGPD?' });
    const inUse = page.getByText('is in use by the organization');
    // Nothing is deleted until confirmed.
    await deleteButton.click();
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.reload();
    await deleteButton.waitFor();

    // Refused while it is the organization's default: the dialog says why.
    await deleteButton.click();
    await dialog.getByRole('button', { name: 'Delete policy' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'is in use by the organization' }).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await inUse.isVisible()).toBe(false);

    await byDefault.selectOption('GDPR');
    await expect.poll(() => byDefault.inputValue()).toBe('GDPR');
    await deleteButton.click();
    await dialog.waitFor();
    expect(await inUse.isVisible()).toBe(false);
    await dialog.getByRole('button', { name: 'Delete policy' }).click();
    await deleteButton.waitFor({ state: 'detached' });
    await dialog.waitFor({ state: 'hidden' });
    expect(await inUse.isVisible()).toBe(false);
    expect(await section.locator('.form-error').count()).toBe(0);
  });
});
