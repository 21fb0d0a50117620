import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl } from '../support/app';
import { launchBrowser, newPage, screenshot } from '../support/browser';
import { nav, signUp } from '../support/onboarding';

const suffix = randomBytes(3).toString('hex');
const owner = { name: 'Nina Newcomer', email: `nina-${suffix}@example.com`, org: `Newcomers ${suffix}` };

let browser: Browser;
let page: Page;

/** The partner's CRM on loopback: answers everything (the connection test asks its origin). */
const crm = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
});
let crmUrl = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => crm.listen(0, '127.0.0.1', resolve));
  crmUrl = `http://127.0.0.1:${(crm.address() as AddressInfo).port}`;
  browser = await launchBrowser();
  ({ page } = await newPage(browser, baseUrl()));
  page.on('console', (message) => message.type() === 'error' && console.error(`[browser] ${message.text()}`));
});
afterEach(async (context) => {
  if (context.task.result?.state === 'fail')
    await screenshot(page, `failed-first-steps-${context.task.name.replace(/\W+/g, '-')}`).catch(() => {});
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => crm.close(resolve));
});

const checklist = () => page.getByRole('region', { name: 'Get started' });
const step = (key: string): Locator => checklist().locator(`li[data-step="${key}"]`);

/** Goes back to the Overview and waits for its checklist to show exactly these steps done (it asks again on each visit). */
async function expectDoneOnOverview(steps: string[]) {
  const answered = page.waitForResponse((response) => response.url().includes('dashboard.setupProgress'));
  await nav(page, 'Overview').click();
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  // The fresh answer, not the one kept from the last visit.
  await answered;
  await expect
    .poll(() =>
      checklist()
        .locator('li.setup-step.done')
        .evaluateAll((items) => items.map((li) => li.getAttribute('data-step') ?? '')),
    )
    .toEqual(steps);
}

describe('a new owner is guided through the first steps', () => {
  it('lands on the Overview with a checklist of first steps, none done, and an empty overview that says where to start', async () => {
    await signUp(page, owner);
    expect(new URL(page.url()).pathname).toBe('/');
    await checklist().getByText('0 of 5 done').waitFor();
    expect(await checklist().locator('li.setup-step').count()).toBe(5);
    await page.getByText(`No requests in the last 30 days`).waitFor();
    await page.getByText('Start by creating a workspace').waitFor();
    expect(await page.getByText('Create one from').count()).toBe(0);
    await screenshot(page, 'first-steps-01-checklist');
  });

  it('ticks the workspace once created from the link of its step', async () => {
    await step('workspaceCreated').getByRole('link', { name: 'Create a workspace' }).click();
    await page.getByLabel('Workspace name').fill('Shop');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByRole('article', { name: 'Shop' }).waitFor();
    await expectDoneOnOverview(['workspaceCreated']);
  });

  it('ticks the integration once its connection test passes, not when it is only connected', async () => {
    await step('integrationTested').getByRole('link', { name: 'Connect and test an integration' }).click();
    await page.goto('/integrations/new');
    await page.getByLabel('Integration name').fill('CRM');
    await page.getByLabel('URL', { exact: true }).fill(`${crmUrl}/erase?email={{identifier}}`);
    await page.getByRole('button', { name: 'Connect integration' }).click();
    const card = page.getByRole('article', { name: 'CRM' });
    await card.waitFor();
    await expectDoneOnOverview(['workspaceCreated']);

    await nav(page, 'Integrations').click();
    await card.getByRole('button', { name: /Test connection/ }).click();
    await card.getByText(/answered HTTP 200/).waitFor();
    await expectDoneOnOverview(['workspaceCreated', 'integrationTested']);
  });

  it('ticks the first request, the teammate and the token from the links of their steps', async () => {
    await step('firstRequest').getByRole('link', { name: 'Create a request' }).click();
    await page.getByLabel('Identifier', { exact: true }).fill(`first-${suffix}@example.com`);
    await page.getByRole('button', { name: 'Create request' }).click();
    await page.waitForURL(/\/requests\/dr_/);
    await expectDoneOnOverview(['workspaceCreated', 'integrationTested', 'firstRequest']);

    await step('teammateInvited').getByRole('link', { name: 'Invite a member' }).click();
    await page.getByLabel('Email to invite').fill(`teammate-${suffix}@example.com`);
    await page.getByRole('button', { name: 'Create invitation link' }).click();
    await page.getByLabel('Invitation link').waitFor();
    await expectDoneOnOverview(['workspaceCreated', 'integrationTested', 'firstRequest', 'teammateInvited']);
    await screenshot(page, 'first-steps-02-four-done');

    await step('callbackOrToken').getByRole('link', { name: 'personal access token' }).click();
    await page.getByLabel('Token name').fill('CRM sync');
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByLabel('New personal access token').waitFor();
    await page.getByRole('button', { name: 'I have copied it' }).click();
  });

  it('is gone from the Overview once every step is done', async () => {
    await nav(page, 'Overview').click();
    await page.getByRole('heading', { name: 'Needs attention' }).waitFor();
    await expect.poll(() => checklist().count()).toBe(0);
  });

  it('can be hidden before then, and stays hidden after a reload', async () => {
    const { context, page: other } = await newPage(browser, baseUrl());
    try {
      await signUp(other, { name: 'Hal Hider', email: `hal-${suffix}@example.com`, org: `Hiders ${suffix}` });
      await other.getByRole('region', { name: 'Get started' }).getByRole('button', { name: 'Hide this list' }).click();
      await other.getByRole('region', { name: 'Get started' }).waitFor({ state: 'detached' });
      await other.reload();
      await other.getByRole('heading', { name: 'Needs attention' }).waitFor();
      await other.waitForLoadState('networkidle');
      expect(await other.getByRole('region', { name: 'Get started' }).count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
