import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { maskIdentifier } from '@shared/mask-identifier';
import { appDatabasePort, baseUrl, connectAppDatabase, publicApi } from '../support/app';
import { launchBrowser, newPage, PHONE, recordVisitedUrls, screenshot } from '../support/browser';
import { nav, PASSWORD, signUpWithToken } from '../support/onboarding';

const suffix = randomBytes(3).toString('hex');
const owner = { name: 'Irene Integrator', email: `irene-${suffix}@example.com`, org: 'Shop Inc' };
const invitee = { name: 'Mia Member', email: `mia-${suffix}@example.com` };
const customerDb = `customer_${suffix}`;
const subject = `jane-${suffix}@example.com`;

let browser: Browser;
let page: Page;
let workspaceApiKey = '';
let pat = '';

/** The partner's internal system: records each deletion call, answers 200 (or 400 while "broken"). */
const webhook = {
  mode: 'ok' as 'ok' | 'fail',
  calls: [] as { url: string; authorization?: string; body: string }[],
  url: '',
};
const receiver = http.createServer((request, response) => {
  let body = '';
  request.on('data', (chunk) => (body += chunk));
  request.on('end', () => {
    webhook.calls.push({ url: request.url ?? '', authorization: request.headers.authorization, body });
    // While "broken", only the partner's new endpoint (/gdpr/v2/) answers 200.
    const ok = webhook.mode === 'ok' || request.url?.startsWith('/gdpr/v2/') === true;
    response.writeHead(ok ? 200 : 400, { 'content-type': 'application/json' });
    response.end(JSON.stringify(ok ? { deleted: true } : { error: 'unknown customer list' }));
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  webhook.url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  // The customer's own database, in the same PostgreSQL cluster as the app's.
  const admin = await connectAppDatabase();
  await admin.query(`CREATE DATABASE ${customerDb}`);
  await admin.end();
  const db = await connectAppDatabase(customerDb);
  await db.query(`
    CREATE TABLE users (id serial PRIMARY KEY, email text NOT NULL UNIQUE, phone text, deleted_at timestamptz);
    CREATE TABLE orders (id serial PRIMARY KEY, user_email text NOT NULL REFERENCES users(email), total integer NOT NULL);
    INSERT INTO users (email, phone) VALUES ('${subject}', '+1 555 0100'), ('someone-else@example.com', NULL);
    INSERT INTO orders (user_email, total) VALUES ('${subject}', 10), ('${subject}', 25), ('someone-else@example.com', 7);`);
  await db.end();
  browser = await launchBrowser();
  ({ page } = await newPage(browser, baseUrl()));
  page.on('console', (message) => message.type() === 'error' && console.error(`[browser] ${message.text()}`));
});
afterEach(async (context) => {
  if (context.task.result?.state === 'fail')
    await screenshot(page, `failed-${context.task.name.replace(/\W+/g, '-')}`).catch(() => {});
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => receiver.close(resolve));
});

async function rowsOf(table: string): Promise<number> {
  const db = await connectAppDatabase(customerDb);
  try {
    return Number(
      (
        await db.query(`SELECT count(*) AS n FROM ${table} WHERE ${table === 'users' ? 'email' : 'user_email'} = $1`, [
          subject,
        ])
      ).rows[0].n,
    );
  } finally {
    await db.end();
  }
}

async function fillDatabaseAccount(p: Page, name: string) {
  await p.getByLabel('Account name').fill(name);
  await p.getByLabel('Host', { exact: true }).fill('127.0.0.1');
  await p.getByLabel(/^Port/).fill(String(appDatabasePort()));
  await p.getByLabel('Database', { exact: true }).fill(customerDb);
  await p.getByLabel('User', { exact: true }).fill('postgres');
  await p.getByLabel('Password', { exact: true }).fill('postgres');
  await p.getByLabel('SSL mode').selectOption('disable');
  await p.getByRole('button', { name: 'Save account' }).click();
}

/** Waits, without reloading, until the request's row in the list shows `label`. */
async function waitForRowStatus(p: Page, requestId: string, label: string) {
  await p.locator(`tr[data-request-id="${requestId}"] .badge`, { hasText: label }).first().waitFor({ timeout: 30_000 });
}

describe('an owner connects destinations and tracks deletions through them', () => {
  it('signs up, creates a workspace and a personal access token', async () => {
    ({ workspaceApiKey, pat } = await signUpWithToken(page, owner, 'Shop'));
    expect(pat).toMatch(/^dds_pat_/);
  });

  it('connects a webhook with a secret account created inline, validating the form with the shared schema', async () => {
    await nav(page, 'Integrations').click();
    await page.getByRole('link', { name: 'Connect integration' }).click();
    await page.getByRole('heading', { name: 'Connect an integration' }).waitFor();
    await page.getByLabel('Integration name').fill('CRM webhook');
    // Submitting without a URL: the schema's own message, next to the field.
    await page.getByRole('button', { name: 'Connect integration' }).click();
    const url = page.getByLabel('URL', { exact: true });
    await expect(url.getAttribute('aria-invalid')).resolves.toBe('true');
    await page.getByText('Required').first().waitFor();

    await page.getByRole('combobox', { name: 'Account', exact: true }).selectOption({ label: 'New account…' });
    await page.getByLabel('Account name').fill('CRM secrets');
    await page.getByRole('button', { name: 'Add secret' }).click();
    await page.getByLabel('Secret name 1').fill('token');
    await page.getByLabel('Secret value 1').fill('s3cret-crm-token');
    await page.getByRole('button', { name: 'Save account' }).click();
    await page.getByText('token: ••••').waitFor();

    await url.fill(`${webhook.url}/gdpr/delete?email={{identifier}}`);
    // The message goes once the field is valid.
    await expect(url.getAttribute('aria-invalid')).resolves.toBeNull();
    await page.getByRole('button', { name: 'Add header' }).click();
    await page.getByLabel('Header name 1').fill('Authorization');
    await page.getByLabel('Header value 1').fill('Bearer {{token}}');
    await page.getByLabel('Body (optional)').fill('{"email": "{{identifier}}"}');
    await screenshot(page, '20-integration-webhook-form');
    await page.getByRole('button', { name: 'Connect integration' }).click();
    await page.getByRole('article', { name: 'CRM webhook' }).waitFor();
    await page.getByText('Integration “CRM webhook” saved').waitFor();
  });

  it('connects PostgreSQL with the rule builder and previews the rules with a dry run', async () => {
    await page.getByRole('link', { name: 'Connect integration' }).click();
    await page.getByLabel('Type', { exact: true }).selectOption({ label: 'PostgreSQL' });
    await page.getByLabel('Integration name').fill('Customer DB');
    // No PostgreSQL account yet: the new-account form is open.
    await fillDatabaseAccount(page, 'Customer DB (primary)');
    await page.getByRole('button', { name: 'Add rule' }).waitFor();

    await page.getByRole('button', { name: 'Add rule' }).click();
    const rule1 = page.getByRole('region', { name: 'Rule 1' });
    await page.getByLabel('Table (rule 1)').selectOption('public.users');
    await rule1.getByRole('checkbox', { name: /^email/ }).check();
    // Only nullable columns are offered for set NULL; the email column is NOT NULL.
    await page.getByLabel('Action (rule 1)').selectOption('set_null');
    const changeable = rule1.getByRole('group', { name: 'Columns to change (rule 1)' });
    await changeable.getByRole('checkbox', { name: /^phone/ }).waitFor();
    expect(await changeable.getByRole('checkbox', { name: /^email/ }).count()).toBe(0);
    expect(await changeable.getByRole('checkbox', { name: /^id\b/ }).count()).toBe(0);
    await page.getByLabel('Action (rule 1)').selectOption('delete');

    await page.getByRole('button', { name: 'Add rule' }).click();
    await expect(page.getByLabel('Table (rule 2)').inputValue()).resolves.toBe('public.orders');
    await expect(
      page
        .getByRole('region', { name: 'Rule 2' })
        .getByRole('checkbox', { name: /^user_email/ })
        .isChecked(),
    ).resolves.toBe(true);
    // Orders reference users: they must go first.
    await page.getByRole('button', { name: 'Move rule 2 up' }).click();
    await expect(page.getByLabel('Table (rule 1)').inputValue()).resolves.toBe('public.orders');

    await page.getByLabel('Identifier to preview').fill(subject);
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect(page.locator('tr[data-dry-run-table="public.orders"] td').last().textContent()).resolves.toBe('2');
    await expect(page.locator('tr[data-dry-run-table="public.users"] td').last().textContent()).resolves.toBe('1');
    expect(await rowsOf('orders')).toBe(2);
    await screenshot(page, '21-integration-postgres-rules');

    await page.getByRole('button', { name: 'Connect integration' }).click();
    await page.getByRole('article', { name: 'Customer DB' }).waitFor();
    await screenshot(page, '22-integrations-connected');
  });

  let requestId = '';
  it('follows a request created through the public API to SUCCESS in the list, without reloading', async () => {
    await nav(page, 'Requests').click();
    await page.getByRole('heading', { name: 'Requests', level: 1 }).waitFor();
    await page.waitForLoadState('networkidle');
    const navigations: string[] = [];
    const track = (frame: { url(): string }) => frame === page.mainFrame() && navigations.push(frame.url());
    page.on('framenavigated', track);
    const created = await publicApi('POST', '/deletion-requests', pat, { workspaceApiKey, identifier: subject });
    expect(created.status).toBe(201);
    requestId = String(created.body?.id);
    await waitForRowStatus(page, requestId, 'Succeeded');
    page.off('framenavigated', track);
    expect(navigations).toEqual([]);
    expect(await rowsOf('orders')).toBe(0);
    expect(await rowsOf('users')).toBe(0);
    const call = webhook.calls.at(-1)!;
    expect(call.url).toBe(`/gdpr/delete?email=${encodeURIComponent(subject)}`);
    expect(call.authorization).toBe('Bearer s3cret-crm-token');
    expect(JSON.parse(call.body)).toEqual({ email: subject });
  });

  it("shows the SQL statements in the request's audit trail", async () => {
    await page.locator(`tr[data-request-id="${requestId}"]`).getByRole('link').click();
    // The detail shows the identifier masked until a member reveals it.
    await page.getByRole('heading', { name: maskIdentifier(subject) }).waitFor();
    const database = page.getByRole('article', { name: 'Customer DB' });
    await expect(database.getAttribute('data-status')).resolves.toBe('SUCCESS');
    for (const summary of await page.locator('details.audit-block > summary').all()) await summary.click();
    await page
      .getByText(/DELETE FROM "public"\."orders"/)
      .first()
      .waitFor();
    await screenshot(page, '23-request-detail-sql');
  });

  it('re-verification finds rows that came back: the detail says where, and "Delete again" erases them once more', async () => {
    await nav(page, 'Organization').click();
    const reverification = page.getByRole('region', { name: 'Re-verification' });
    await reverification.getByLabel('Verify again after (days)').fill('1');
    await reverification.getByRole('button', { name: 'Save' }).click();
    await reverification.getByText('verified again 1 day(s) after they succeeded').waitFor();

    // A backup restored into the customer's database brings the subject back.
    const customer = await connectAppDatabase(customerDb);
    await customer.query(`INSERT INTO users (email, phone) VALUES ($1, '+1 555 0100')`, [subject]);
    await customer.query(`INSERT INTO orders (user_email, total) VALUES ($1, 10)`, [subject]);
    await customer.end();
    expect(await rowsOf('users')).toBe(1);
    // More than a day has passed since the deletion succeeded: its completion moved back two days in the service's database.
    const service = await connectAppDatabase();
    await service.query(
      `UPDATE "IntegrationRequest" SET "completedAt" = "completedAt" - interval '2 days' WHERE "deletionRequestId" = $1`,
      [requestId],
    );
    await service.end();

    // The hourly job's run, at once, through the CLI against the app's database.
    const root = path.resolve(import.meta.dirname, '../..');
    const { stdout } = await promisify(execFile)(
      path.join(root, 'node_modules/.bin/tsx'),
      ['server/src/cli/index.ts', 'reverify:run', '--json'],
      {
        cwd: root,
        env: {
          ...process.env,
          DATABASE_URL: `postgresql://postgres:postgres@127.0.0.1:${appDatabasePort()}/deletion_service`,
          ENCRYPTION_KEY: fs.readFileSync(path.join(inject('dataDir'), 'encryption.key'), 'utf8').trim(),
          OUTBOUND_ALLOWLIST: '127.0.0.0/8,localhost',
        },
      },
    );
    expect(stdout).toMatch(/"reappeared": 1/);

    await page.goto(`/requests/${requestId}`);
    const reappeared = page.getByRole('region', { name: 'Data reappeared' });
    await reappeared.getByText(/Customer DB: data matching the subject was found again at re-verification/).waitFor();
    expect(await reappeared.textContent()).not.toContain(subject);
    await screenshot(page, '23b-request-data-reappeared');
    await reappeared.getByRole('button', { name: 'Delete again' }).click();
    await page.waitForURL((url) => /^\/requests\/dr_/.test(url.pathname) && !url.pathname.endsWith(requestId));
    const againPath = new URL(page.url()).pathname;
    await page.locator('article[aria-label="Customer DB"][data-status="SUCCESS"]').waitFor({ timeout: 30_000 });
    expect(await rowsOf('users')).toBe(0);
    expect(await rowsOf('orders')).toBe(0);
    // The first request keeps its finding; "Delete again" there leads to the same new request, not another one.
    await page.goto(`/requests/${requestId}`);
    await page.getByRole('region', { name: 'Data reappeared' }).getByRole('button', { name: 'Delete again' }).click();
    await page.waitForURL((url) => url.pathname === againPath);
  });

  it('retries a failed webhook as submitted, then with its edited URL: the new URL is called, attempts are numbered across retries', async () => {
    webhook.mode = 'fail';
    await nav(page, 'Requests').click();
    const created = await publicApi('POST', '/deletion-requests', pat, {
      workspaceApiKey,
      identifier: `retry-${suffix}@example.com`,
    });
    const id = String(created.body?.id);
    await waitForRowStatus(page, id, 'Failed');
    await page.locator(`tr[data-request-id="${id}"]`).getByRole('link').click();
    const hook = page.getByRole('article', { name: 'CRM webhook' });
    await hook
      .getByText(/400|unknown customer list/)
      .first()
      .waitFor();
    await screenshot(page, '24-request-failed');
    const trail = page.locator('.timeline');
    const attempt = (n: number) => trail.locator('.timeline-item').filter({ hasText: new RegExp(`Attempt ${n}:`) });

    // As submitted: the same (old) URL again, as attempt 2.
    // Both are offered side by side, for the request and for the failed integration.
    await hook.getByRole('button', { name: 'Retry CRM webhook with the current configuration', exact: true }).waitFor();
    await hook.getByRole('button', { name: 'Retry CRM webhook as submitted', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Retry with the current configuration', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Retry as submitted', exact: true }).click();
    await attempt(2).waitFor({ timeout: 30_000 });
    await page.locator('article[aria-label="CRM webhook"][data-status="FAILED"]').waitFor();
    expect(await attempt(2).textContent()).toContain('as submitted');
    expect(webhook.calls.at(-1)!.url).toBe(`/gdpr/delete?email=${encodeURIComponent(`retry-${suffix}@example.com`)}`);

    // The partner moved the endpoint: the integration is edited to the new URL.
    await nav(page, 'Integrations').click();
    await page.getByRole('link', { name: 'Edit CRM webhook' }).click();
    await page.getByLabel('URL', { exact: true }).fill(`${webhook.url}/gdpr/v2/delete?email={{identifier}}`);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Integration “CRM webhook” saved').waitFor();

    // With the current configuration: the edited URL is called, as attempt 3, and the card says so.
    await page.goto(`/requests/${id}`);
    const callsBefore = webhook.calls.length;
    await page.getByRole('button', { name: 'Retry with the current configuration', exact: true }).click();
    await page.locator('article[aria-label="CRM webhook"][data-status="SUCCESS"]').waitFor({ timeout: 30_000 });
    await page.locator('.summary-card .badge', { hasText: 'Succeeded' }).waitFor({ timeout: 30_000 });
    expect(webhook.calls.slice(callsBefore).map((c) => c.url)).toEqual([
      `/gdpr/v2/delete?email=${encodeURIComponent(`retry-${suffix}@example.com`)}`,
    ]);
    await attempt(3).waitFor();
    expect(await attempt(3).textContent()).toMatch(/current at retry, \d{4}-\d{2}-\d{2}T/);
    await trail.getByText(/Retry requested with the integration's current configuration/).waitFor();
    const facts = Object.fromEntries(
      await hook
        .locator('.facts > div')
        .evaluateAll((rows) =>
          rows.map((row) => [row.querySelector('dt')?.textContent, row.querySelector('dd')?.textContent]),
        ),
    );
    expect(facts.Attempts).toBe('3');
    expect(facts.Configuration).toMatch(/^Current at retry, /);
    await screenshot(page, '24b-request-retried-with-current-configuration');
    webhook.mode = 'ok';
  });

  it('swaps the database account and keeps requests waiting for a maintenance window, then cancels one', async () => {
    await nav(page, 'Integrations').click();
    await page.getByRole('article', { name: 'CRM webhook' }).getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('article', { name: 'CRM webhook' }).getByText('Disabled').waitFor();
    await page.getByRole('link', { name: 'Edit Customer DB' }).click();
    await page.getByRole('heading', { name: 'Customer DB' }).waitFor();

    await page.getByLabel('Swap to account').selectOption({ label: 'New account…' });
    await fillDatabaseAccount(page, 'Customer DB (rotated)');
    await page.getByRole('button', { name: 'Swap account' }).click();
    await page.getByText('Now using Customer DB (rotated)').waitFor();

    const hour = new Date().getUTCHours();
    await page.getByLabel('Only run deletions in a daily window (UTC)').check();
    await page.getByLabel('From hour (UTC)').fill(String((hour + 2) % 24));
    await page.getByLabel('Until hour (UTC)').fill(String((hour + 3) % 24));
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Integration “Customer DB” saved').waitFor();
    await page.getByRole('article', { name: 'Customer DB' }).getByText('Customer DB (rotated)').waitFor();

    const created = await publicApi('POST', '/deletion-requests', pat, {
      workspaceApiKey,
      identifier: `later-${suffix}@example.com`,
    });
    const id = String(created.body?.id);
    await page.goto(`/requests/${id}`);
    await page.locator('article[aria-label="Customer DB"][data-status="PENDING"]').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Cancel request' }).click();
    await page.getByRole('dialog').getByLabel('Reason').selectOption({ label: 'Withdrawn by the person' });
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel request' }).click();
    await page.locator('article[aria-label="Customer DB"][data-status="CANCELED"]').waitFor();
    await page.locator('.summary-card .badge', { hasText: 'Canceled' }).waitFor();
  });

  it('manages accounts: secrets stay write-only, deleting one in use is refused saying where', async () => {
    await nav(page, 'Accounts').click();
    const crm = page.getByRole('article', { name: 'CRM secrets' });
    await crm.getByText('token').first().waitFor();
    expect(await page.content()).not.toContain('s3cret-crm-token');
    await crm.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete account' }).click();
    await page
      .getByRole('dialog')
      .getByText(/used by "CRM webhook"/)
      .waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();

    await crm.getByRole('button', { name: 'Replace secrets' }).click();
    await crm.getByRole('button', { name: 'Add secret' }).click();
    await crm.getByLabel('Secret name 1').fill('token');
    await crm.getByLabel('Secret value 1').fill('rotated-crm-token-0001');
    await crm.getByRole('button', { name: 'Replace secrets' }).click();
    await crm.getByText('Secrets replaced.').waitFor();
    await crm.getByText('••••0001').waitFor();

    // The primary database account is no longer used after the swap.
    const old = page.getByRole('article', { name: 'Customer DB (primary)' });
    await old.getByText('No integration').waitFor();
    await old.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete account' }).click();
    await old.waitFor({ state: 'detached' });
    await screenshot(page, '25-accounts');
  });

  it('edits the retention policy', async () => {
    await nav(page, 'Organization').click();
    await page.getByLabel('After completion', { exact: true }).selectOption('HASH');
    await page.getByLabel('Days after completion').fill('30');
    await page.getByRole('button', { name: 'Save policy' }).click();
    await page.getByText('Identifiers are replaced by a one-way hash 30 days after they complete').waitFor();
  });

  it('invites a member through a one-time link; the member sees no admin actions', async () => {
    await page.getByLabel('Email to invite').fill(invitee.email);
    await page.getByRole('button', { name: 'Create invitation link' }).click();
    const link = (await page.getByLabel('Invitation link').textContent())?.trim() ?? '';
    expect(link).toMatch(new RegExp(`^${baseUrl()}/invite/dds_inv_`));
    await page.getByRole('listitem', { name: `Invitation of ${invitee.email}` }).waitFor();
    await screenshot(page, '26-organization-members');

    const { context, page: memberPage } = await newPage(browser, baseUrl());
    await memberPage.goto(link);
    await memberPage.getByRole('heading', { name: `Join ${owner.org}` }).waitFor();
    await screenshot(memberPage, '27-accept-invitation');
    await memberPage.getByLabel('Your name').fill(invitee.name);
    await memberPage.getByLabel('Choose a password').fill(PASSWORD);
    await memberPage.getByRole('button', { name: 'Create account and join' }).click();
    await memberPage.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();

    expect(await nav(memberPage, 'Accounts').count()).toBe(0);
    expect(await nav(memberPage, 'Audit log').count()).toBe(0);
    await nav(memberPage, 'Integrations').click();
    await memberPage.getByRole('article', { name: 'Customer DB' }).waitFor();
    for (const action of ['Connect integration', 'Edit Customer DB', 'Swap'])
      expect(await memberPage.getByRole('link', { name: action }).count()).toBe(0);
    for (const action of ['Disable', 'Enable', 'Test connection', 'Delete'])
      expect(await memberPage.getByRole('button', { name: action }).count()).toBe(0);
    await memberPage.goto('/integrations/new');
    await memberPage.getByText('Only owners and admins can connect and change integrations').waitFor();
    await nav(memberPage, 'Organization').click();
    await memberPage.getByRole('listitem', { name: owner.name }).waitFor();
    for (const action of ['Create invitation link', 'Save policy', 'Remove'])
      expect(await memberPage.getByRole('button', { name: action }).count()).toBe(0);
    // The link worked once.
    await memberPage.goto(link);
    await memberPage.getByText('This invitation cannot be used').waitFor();

    // Promoted by the owner, the member gets the admin screens.
    await page.reload();
    await page.getByLabel(`Role of ${invitee.name}`).selectOption('ADMIN');
    await page
      .getByRole('dialog', { name: `Make ${invitee.name} an admin?` })
      .getByRole('button', { name: 'Make an admin' })
      .click();
    await page.getByRole('status').getByText(`${invitee.name} is now an admin.`).waitFor();
    await expect
      .poll(
        async () => {
          await memberPage.goto('/');
          await memberPage.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
          return nav(memberPage, 'Accounts').count();
        },
        { timeout: 15_000 },
      )
      .toBe(1);
    await context.close();
  });

  it("starts a new integration at its vendor's documented rate, which an admin may change or clear", async () => {
    await page.goto('/integrations/new?type=STRIPE');
    const rate = page.getByLabel('Calls per second', { exact: true });
    await expect.poll(() => rate.inputValue()).toBe('25');
    await expect.poll(() => page.getByText('The vendor documents 25 per second.').count()).toBe(1);
    await page.goto('/integrations/new?type=WEBHOOK');
    await expect.poll(() => rate.inputValue()).toBe('');
    await expect.poll(() => page.getByText('The vendor documents no single rate.').count()).toBe(1);
    await rate.fill('0');
    await page.getByRole('button', { name: 'Connect integration', exact: true }).click();
    await expect.poll(() => page.getByText('At least 0.01').count()).toBe(1);
  });

  it('reads the integration form at phone width', async () => {
    const phone = await browser.newContext({
      baseURL: baseUrl(),
      viewport: PHONE,
      storageState: await page.context().storageState(),
    });
    recordVisitedUrls(phone);
    const phonePage = await phone.newPage();
    await phonePage.goto('/integrations/new?type=POSTGRES');
    await phonePage
      .getByRole('combobox', { name: 'Account', exact: true })
      .selectOption({ label: 'Customer DB (rotated)' });
    await phonePage.getByRole('button', { name: 'Add rule' }).click();
    await phonePage.getByLabel('Table (rule 1)').waitFor();
    const overflow = await phonePage.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    await screenshot(phonePage, '28-integration-form-phone');
    await phone.close();
  });
});
