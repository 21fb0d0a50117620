import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, pageMutation } from '../support/app';
import { launchBrowser, newPage, screenshot } from '../support/browser';
import { createWorkspace, signUp } from '../support/onboarding';

/**
 * One person's view, as a privacy manager meets it: a search typed in capitals finds the
 * request, the create form warns before a second open request for the same person, and the
 * person's page lists their requests in both workspaces, with no identifier in its address or title.
 */
const suffix = randomBytes(3).toString('hex');
const email = `bad-noah.${suffix}@example.com`;

let browser: Browser;
let page: Page;
let firstId = '';
let secondId = '';

beforeAll(async () => {
  browser = await launchBrowser();
  ({ page } = await newPage(browser, baseUrl()));
});
afterEach(async (context) => {
  if (context.task.result?.state === 'fail')
    await screenshot(page, `failed-person-${context.task.name.replace(/\W+/g, '-')}`).catch(() => {});
});
afterAll(async () => {
  await browser?.close();
});

/** The id in the address of the request detail the browser is on. */
const requestIdInUrl = () => new URL(page.url()).pathname.split('/').pop()!;

describe("one person's requests", () => {
  it('signs up with two workspaces, each sending deletions to a system that is down (requests stay open)', async () => {
    await signUp(page, { name: 'Pat Person', email: `pat-${suffix}@example.com`, org: `People ${suffix}` });
    await createWorkspace(page, 'Shop EU');
    await pageMutation(page, 'workspaces.create', { name: 'Shop US' });
    const workspaces = await page.evaluate(async () => {
      const response = await fetch('/trpc/workspaces.list');
      return ((await response.json()) as { result: { data: { id: string; name: string }[] } }).result.data;
    });
    expect(workspaces.map((w) => w.name).sort()).toEqual(['Shop EU', 'Shop US']);
    for (const workspace of workspaces)
      await pageMutation(page, 'integrations.create', {
        workspaceId: workspace.id,
        name: 'Legacy CRM',
        type: 'WEBHOOK',
        accountId: null,
        config: { initiate: { method: 'POST', url: 'http://127.0.0.1:9/erase', body: '{"id":"{{identifier}}"}' } },
      });
  });

  it('creates a request in one workspace; a search in capitals finds it', async () => {
    await page.goto('/requests/new');
    await page.getByLabel('Workspace', { exact: true }).selectOption({ label: 'Shop EU' });
    await page.getByLabel('Identifier', { exact: true }).fill(email);
    await page.getByRole('button', { name: 'Create request', exact: true }).click();
    await page.waitForURL(/\/requests\/dr_/);
    firstId = requestIdInUrl();

    await page.goto('/requests');
    await page.getByLabel('Identifier (exact match)', { exact: true }).fill(email.toUpperCase());
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('link', { name: 'All requests for this person', exact: true }).waitFor();
    const table = page.getByRole('region', { name: 'Requests', exact: true });
    await expect.poll(() => table.locator(`a[href="/requests/${firstId}"]`).count()).toBeGreaterThan(0);
    expect(await page.getByText('No request matches these filters').count()).toBe(0);
  });

  it('the create form warns of the open request before creating a second, then creates it when asked', async () => {
    await page.goto('/requests/new');
    await page.getByLabel('Workspace', { exact: true }).selectOption({ label: 'Shop US' });
    await page.getByLabel('Identifier', { exact: true }).fill(`  ${email.replace('bad-noah', 'Bad-Noah')} `);
    await page.getByRole('button', { name: 'Create request', exact: true }).click();

    const warning = page.getByRole('region', { name: 'This person already has an open request', exact: true });
    await warning.waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('duplicate-heading');
    await warning.getByRole('link', { name: firstId, exact: true }).waitFor();
    expect(await warning.textContent()).not.toContain(email);
    expect(await warning.getByText('Shop EU').count()).toBe(1);
    expect(page.url()).toMatch(/\/requests\/new$/);
    await screenshot(page, 'person-duplicate-warning');

    await warning.getByRole('button', { name: 'Create anyway', exact: true }).click();
    await page.waitForURL((url) => /\/requests\/dr_/.test(url.pathname) && !url.pathname.endsWith(firstId));
    secondId = requestIdInUrl();
    expect(secondId).not.toBe(firstId);
  });

  it("the person's page lists the requests of both workspaces, with no identifier in its address or title", async () => {
    await page.getByRole('link', { name: 'All requests for this person', exact: true }).click();
    await page.waitForURL(`**/requests/${secondId}/person`);
    const workspace = (name: string) => page.getByRole('region', { name: `Workspace ${name}`, exact: true });
    await workspace('Shop EU').getByRole('link', { name: firstId, exact: true }).waitFor();
    await workspace('Shop US').getByRole('link', { name: secondId, exact: true }).waitFor();
    const lower = email.toLowerCase();
    expect(page.url().toLowerCase()).not.toContain(lower);
    expect((await page.title()).toLowerCase()).not.toContain(lower);
    expect((await page.locator('main').textContent())?.toLowerCase()).not.toContain(lower);
    await screenshot(page, 'person-page');
  });
});
