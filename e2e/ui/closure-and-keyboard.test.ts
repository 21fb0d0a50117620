import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, publicApi, pageMutation } from '../support/app';
import { launchBrowser, newPage, screenshot, WIDTHS } from '../support/browser';
import { nav, PASSWORD, signUp } from '../support/onboarding';

/**
 * A privacy manager closes a request without fulfilling it (with the reason), changes a
 * teammate's role and removes them (asked first, told after), and works the dashboard from the
 * keyboard; the account forms keep secrets in password fields.
 */
const suffix = randomBytes(3).toString('hex');
const teammate = { name: 'Theo Teammate', email: `theo-${suffix}@example.com` };

let browser: Browser;
let page: Page;
let pat = '';
let workspaceApiKey = '';

/** A destination that keeps putting deletions off (429, in an hour): requests stay open, so they can be canceled. */
const destination = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3600' });
    response.end(JSON.stringify({ error: 'busy, try again later' }));
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => destination.listen(0, '127.0.0.1', resolve));
  browser = await launchBrowser();
  ({ page } = await newPage(browser, baseUrl()));
  page.on('console', (message) => message.type() === 'error' && console.error(`[browser] ${message.text()}`));
});
afterEach(async (context) => {
  if (context.task.result?.state === 'fail')
    await screenshot(page, `failed-closure-${context.task.name.replace(/\W+/g, '-')}`).catch(() => {});
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => destination.close(resolve));
});

/** A tRPC mutation from the signed-in page. */
const trpc = <T>(procedure: string, input: unknown) => pageMutation<T>(page, procedure, input);

const focusedText = () => page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
const focusedTag = () => page.evaluate(() => document.activeElement?.tagName ?? '');

async function createRequest(identifier: string): Promise<string> {
  const created = await publicApi('POST', '/deletion-requests', pat, { workspaceApiKey, identifier });
  expect(created.status).toBe(201);
  return String(created.body?.id);
}

describe('keyboard', () => {
  it('the first Tab reaches "Skip to content", after signing up and after a reload', async () => {
    await signUp(page, { name: 'Cleo Closer', email: `cleo-${suffix}@example.com`, org: `Closer ${suffix}` });
    await page.keyboard.press('Tab');
    expect(await focusedText()).toBe('Skip to content');
    await page.reload();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.keyboard.press('Tab');
    expect(await focusedText()).toBe('Skip to content');
  });

  it('after "Try again" focus stays in the part of the screen that reloads, not on the body', async () => {
    await nav(page, 'Workspaces').click();
    await page.route('**/trpc/**members.list**', (route) => route.abort('connectionrefused'));
    await nav(page, 'Organization').click();
    const retry = page
      .locator('section[aria-labelledby="org-members"]')
      .getByRole('button', { name: 'Try again' })
      .first();
    await retry.waitFor();
    await page.unroute('**/trpc/**members.list**');
    await retry.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('listitem', { name: 'Cleo Closer' }).waitFor();
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-labelledby')))
      .toBe('org-members');
    expect(await focusedTag()).not.toBe('BODY');
  });
});

describe('closing a request without fulfilling it', () => {
  it('sets up a workspace whose destination keeps the requests open', async () => {
    const workspace = await trpc<{ id: string; apiKey: string }>('workspaces.create', { name: 'Production' });
    await trpc('integrations.create', {
      workspaceId: workspace.id,
      name: 'Slow CRM',
      type: 'WEBHOOK',
      accountId: null,
      config: {
        mode: 'sync',
        initiate: {
          method: 'POST',
          url: `http://127.0.0.1:${(destination.address() as AddressInfo).port}/erase`,
          body: '{"email":"{{identifier}}"}',
        },
      },
    });
    workspaceApiKey = workspace.apiKey;
    pat = (await trpc<{ token: string }>('tokens.create', { name: 'closure' })).token;
  });

  it('the extension dialog says its button waits for a reason of 10 characters', async () => {
    const id = await createRequest(`extend-${suffix}@example.com`);
    await page.goto(`/requests/${id}`);
    await page.getByRole('button', { name: 'Extend deadline' }).click();
    const dialog = page.getByRole('dialog', { name: 'Extend the deadline' });
    await dialog.getByText('at least 10 characters (10 more)').waitFor();
    await dialog.getByLabel('Reason (told to the subject)').fill('too short');
    await dialog.getByText('(1 more)').waitFor();
    expect(await dialog.getByRole('button', { name: 'Extend' }).isDisabled()).toBe(true);
    await dialog.getByLabel('Reason (told to the subject)').fill('Backlog after a migration');
    expect(await dialog.getByRole('button', { name: 'Extend' }).isDisabled()).toBe(false);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  it('asks why, and the request then reads "Closed — not fulfilled" with the reason, on its page and in the list', async () => {
    const id = await createRequest(`withdrawn-${suffix}@example.com`);
    await page.goto(`/requests/${id}`);
    await page.getByRole('button', { name: 'Cancel request' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this deletion request?' });
    const confirm = dialog.getByRole('button', { name: 'Cancel request' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel('Reason').selectOption({ label: 'Other' });
    // "Other" says nothing by itself.
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel('Say why (required for “Other”)').fill('The person moved to another company');
    await confirm.click();
    const summary = page.getByRole('region', { name: 'Summary' });
    await summary.getByText('Closed — not fulfilled (Other: The person moved to another company)').waitFor();
    for (const viewport of WIDTHS) {
      await page.setViewportSize(viewport);
      await screenshot(page, `request-closed-not-fulfilled-${viewport.width}`);
    }
    await page.setViewportSize(WIDTHS[2]);

    await page.goto('/requests');
    const due = page.locator(`tr[data-request-id="${id}"] td[data-label="Due"]`);
    await due.getByText('Closed — not fulfilled').waitFor();
    expect(await due.textContent()).toContain('Other: The person moved to another company');
    expect(await due.textContent()).not.toContain('fulfilled ');
  });
});

describe('roles and members', () => {
  it('asks before changing a role, naming the person and the role, and says it was done', async () => {
    const { link } = await trpc<{ link: string }>('members.invite', { email: teammate.email, role: 'MEMBER' });
    const { context, page: theirs } = await newPage(browser, baseUrl());
    await theirs.goto(link);
    await theirs.getByLabel('Your name').fill(teammate.name);
    await theirs.getByLabel('Choose a password').fill(PASSWORD);
    await theirs.getByRole('button', { name: 'Create account and join' }).click();
    await theirs.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await context.close();

    await nav(page, 'Organization').click();
    await page.getByRole('heading', { name: 'Organization', level: 1 }).waitFor();
    await page.reload();
    const role = page.getByLabel(`Role of ${teammate.name}`);
    await role.selectOption('OWNER');
    const ask = page.getByRole('dialog', { name: `Make ${teammate.name} an owner?` });
    await ask.getByText(`${teammate.email} is a member now.`).waitFor();
    await ask.getByRole('button', { name: 'Keep a member' }).click();
    expect(await role.inputValue()).toBe('MEMBER');
    // Nothing was saved: a fresh page says the same.
    await page.reload();
    expect(await role.inputValue()).toBe('MEMBER');

    await role.selectOption('ADMIN');
    await page
      .getByRole('dialog', { name: `Make ${teammate.name} an admin?` })
      .getByRole('button', { name: 'Make an admin' })
      .click();
    await page.getByRole('status').getByText(`${teammate.name} is now an admin.`).waitFor();
    // The list is read again after the change.
    await expect.poll(() => role.inputValue(), { timeout: 10_000 }).toBe('ADMIN');
    await screenshot(page, 'member-role-changed');

    await page.getByRole('button', { name: `Remove ${teammate.name}` }).click();
    await page
      .getByRole('dialog', { name: `Remove ${teammate.name}?` })
      .getByRole('button', { name: 'Remove member' })
      .click();
    await page.getByRole('status').getByText(`${teammate.name} was removed from the organization.`).waitFor();
  });
});

describe('forms', () => {
  it('types every secret of an account into a password field', async () => {
    await nav(page, 'Accounts').click();
    await page.getByRole('button', { name: 'New account' }).click();
    const form = page.getByRole('group', { name: 'New account' });
    await page.getByLabel('For integrations of type').selectOption({ label: 'Segment' });
    expect(await form.getByLabel('API key', { exact: true }).getAttribute('type')).toBe('password');
    await page.getByLabel('For integrations of type').selectOption({ label: 'Amazon DynamoDB' });
    expect(await form.getByLabel('Secret access key').getAttribute('type')).toBe('password');
    expect(await form.getByLabel('Session token (optional)').getAttribute('type')).toBe('password');
    await form.getByText('Only for DynamoDB Local').waitFor();
    await page.getByLabel('For integrations of type').selectOption({ label: 'Redis' });
    expect(await form.getByLabel('Password (optional)').getAttribute('type')).toBe('password');
    await form.getByLabel('TLS', { exact: true }).waitFor();
  });

  it("the date field's calendar button shows a focus ring", async () => {
    await page.goto('/requests/new');
    const date = page.getByLabel(/^Received on/);
    await date.focus();
    // Month, day, year, then the calendar button.
    for (let i = 0; i < 3; i++) await page.keyboard.press('Tab');
    expect(await date.evaluate((input) => input.matches(':focus-within'))).toBe(true);
    const outline = await date.evaluate((input) => {
      const style = getComputedStyle(input);
      return { style: style.outlineStyle, width: style.outlineWidth };
    });
    expect(outline).toEqual({ style: 'solid', width: '3px' });
  });
});
