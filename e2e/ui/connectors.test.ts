import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startAuth0Fake } from '../../server/src/integrations/auth0/fake';
import { startBrazeFake } from '../../server/src/integrations/braze/fake';
import { startCustomerioFake } from '../../server/src/integrations/customerio/fake';
import { startHubspotFake } from '../../server/src/integrations/hubspot/fake';
import { startIntercomFake } from '../../server/src/integrations/intercom/fake';
import { startKlaviyoFake } from '../../server/src/integrations/klaviyo/fake';
import { startMailchimpFake } from '../../server/src/integrations/mailchimp/fake';
import { startSendgridFake } from '../../server/src/integrations/sendgrid/fake';
import { startStripeFake } from '../../server/src/integrations/stripe/fake';
import { startZendeskFake } from '../../server/src/integrations/zendesk/fake';
import { baseUrl, publicApi } from '../support/app';
import { launchBrowser, newPage, screenshot } from '../support/browser';
import { nav, signUpWithToken } from '../support/onboarding';

// Each SaaS connector is created from its schema form in the dashboard and one request runs
// through all of them, against the same loopback fakes the contract tests check with the SDKs.
const suffix = randomBytes(3).toString('hex');
const owner = { name: 'Sam SaaS', email: `sam-${suffix}@example.com`, org: 'SaaS Co' };
const subject = `subject-${suffix}@example.com`;
const ZENDESK_ADMIN = 'admin@acme.example';
const MAILCHIMP_KEY = '0123456789abcdef0123456789abcdef-us6';

let browser: Browser;
let page: Page;
let workspaceApiKey = '';
let pat = '';
let fakes: Awaited<ReturnType<typeof startFakes>>;

async function startFakes() {
  const [stripe, hubspot, zendesk, intercom, mailchimp, sendgrid, auth0, braze, klaviyo, customerio] =
    await Promise.all([
      startStripeFake(),
      startHubspotFake(),
      startZendeskFake(),
      startIntercomFake(),
      startMailchimpFake(),
      startSendgridFake({ jobMs: 200 }),
      startAuth0Fake(),
      startBrazeFake({ deleteLagMs: 200 }),
      startKlaviyoFake({ jobMs: 200 }),
      startCustomerioFake({ deleteLagMs: 200 }),
    ]);
  stripe.state.secretKeys.add('sk_test_e2e_stripe');
  hubspot.state.tokens.add('pat-e2e-hubspot');
  zendesk.state.credentials.add(`${ZENDESK_ADMIN}/token:zd-e2e-token`);
  intercom.state.tokens.add('ic-e2e-token');
  mailchimp.state.apiKeys.add(MAILCHIMP_KEY);
  sendgrid.state.apiKeys.add('SG.e2e');
  auth0.state.clients.set('e2e-client', 'e2e-client-secret');
  braze.state.apiKeys.add('braze-e2e-key');
  klaviyo.state.apiKeys.add('pk_e2e');
  customerio.state.appApiKeys.add('cio-app-e2e');
  return { stripe, hubspot, zendesk, intercom, mailchimp, sendgrid, auth0, braze, klaviyo, customerio };
}

beforeAll(async () => {
  fakes = await startFakes();
  // The subject, in every system.
  fakes.stripe.addCustomer(subject);
  fakes.hubspot.addContact(subject);
  fakes.zendesk.addUser(subject);
  fakes.intercom.addContact(subject);
  fakes.mailchimp.addMember(subject);
  fakes.sendgrid.addContact(subject);
  fakes.auth0.addUser(subject);
  fakes.braze.addProfile(subject);
  fakes.klaviyo.addProfile(subject);
  fakes.customerio.addPerson(null, subject);
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
  await Promise.all(Object.values(fakes ?? {}).map((f) => f.close()));
});

interface Connector {
  search: string;
  label: string;
  name: string;
  account: () => Record<string, string>;
  config: () => Record<string, string>;
}

const connectors: Connector[] = [
  {
    search: 'stripe',
    label: 'Stripe',
    name: 'Billing',
    account: () => ({ 'API key': 'sk_test_e2e_stripe' }),
    config: () => ({ 'Base URL': fakes.stripe.url }),
  },
  {
    search: 'hubspot',
    label: 'HubSpot',
    name: 'CRM',
    account: () => ({ 'API key': 'pat-e2e-hubspot' }),
    config: () => ({ 'Base URL': fakes.hubspot.url }),
  },
  {
    search: 'zendesk',
    label: 'Zendesk',
    name: 'Helpdesk',
    account: () => ({ 'API key': 'zd-e2e-token' }),
    config: () => ({ Subdomain: 'acme', 'Agent email': ZENDESK_ADMIN, 'Base URL': fakes.zendesk.url }),
  },
  {
    search: 'intercom',
    label: 'Intercom',
    name: 'Messenger',
    account: () => ({ 'API key': 'ic-e2e-token' }),
    config: () => ({ 'Base URL': fakes.intercom.url }),
  },
  {
    search: 'mailchimp',
    label: 'Mailchimp',
    name: 'Newsletter',
    account: () => ({ 'API key': MAILCHIMP_KEY }),
    config: () => ({ 'List id': fakes.mailchimp.state.listId, 'Base URL': fakes.mailchimp.url }),
  },
  {
    search: 'sendgrid',
    label: 'SendGrid',
    name: 'Email contacts',
    account: () => ({ 'API key': 'SG.e2e' }),
    config: () => ({ 'Base URL': fakes.sendgrid.url }),
  },
  {
    search: 'identity',
    label: 'Auth0',
    name: 'Login',
    account: () => ({ 'API key': 'e2e-client', 'Secret key': 'e2e-client-secret' }),
    config: () => ({ Domain: fakes.auth0.state.domain, 'Base URL': fakes.auth0.url }),
  },
  {
    search: 'braze',
    label: 'Braze',
    name: 'Engagement',
    account: () => ({ 'API key': 'braze-e2e-key' }),
    config: () => ({ 'Rest endpoint': fakes.braze.url }),
  },
  {
    search: 'klaviyo',
    label: 'Klaviyo',
    name: 'Email marketing',
    account: () => ({ 'API key': 'pk_e2e' }),
    config: () => ({ 'Base URL': fakes.klaviyo.url }),
  },
  {
    search: 'customer.io',
    label: 'Customer.io',
    name: 'Lifecycle',
    account: () => ({ 'API key': fakes.customerio.state.trackApiKey, 'Secret key': 'cio-app-e2e' }),
    config: () => ({ 'Site id': fakes.customerio.state.siteId, 'Base URL': fakes.customerio.url }),
  },
];

/** A form field by its label, optional ones included ("Base URL (optional)"). */
const fieldNamed = (p: Page, label: string) =>
  p.getByLabel(new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( \\(optional\\))?$`));

describe('SaaS connectors from the dashboard to SUCCESS', () => {
  it('signs up with a workspace and a personal access token', async () => {
    ({ workspaceApiKey, pat } = await signUpWithToken(page, owner, 'Customers'));
    expect(pat).toMatch(/^dds_pat_/);
  });

  for (const connector of connectors) {
    it(`connects ${connector.label} from its schema form, found with the picker's search`, async () => {
      await nav(page, 'Integrations').click();
      await page.getByRole('link', { name: 'Connect integration' }).click();
      await page.getByRole('heading', { name: 'Connect an integration' }).waitFor();
      await page.getByLabel('Search integrations').fill(connector.search);
      await expect(page.getByLabel('Type', { exact: true }).locator('option:checked').textContent()).resolves.toBe(
        connector.label,
      );
      await page.getByLabel('About this integration').waitFor();
      await page.getByLabel('Integration name').fill(connector.name);
      await page.getByRole('combobox', { name: 'Account', exact: true }).selectOption({ label: 'New account…' });
      await page.getByLabel('Account name').fill(`${connector.label} account`);
      for (const [label, value] of Object.entries(connector.account()))
        await page.getByLabel(label, { exact: true }).fill(value);
      await page.getByRole('button', { name: 'Save account' }).click();
      const account = page.getByRole('combobox', { name: 'Account', exact: true });
      await expect
        .poll(() => account.evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.textContent ?? ''))
        .toBe(`${connector.label} account`);
      for (const [label, value] of Object.entries(connector.config())) await fieldNamed(page, label).fill(value);
      if (connector.label === 'HubSpot') await screenshot(page, '40-integration-saas-form');
      await page.getByRole('button', { name: 'Connect integration' }).click();
      await page.getByText(`Integration “${connector.name}” saved`).waitFor();
    });
  }

  it('runs one request through all ten to SUCCESS, and the subject is gone from every fake', async () => {
    await nav(page, 'Requests').click();
    const created = await publicApi('POST', '/deletion-requests', pat, { workspaceApiKey, identifier: subject });
    expect(created.status).toBe(201);
    const id = String(created.body?.id);
    await page
      .locator(`tr[data-request-id="${id}"] .badge`, { hasText: 'Succeeded' })
      .first()
      .waitFor({ timeout: 60_000 });
    await page.locator(`tr[data-request-id="${id}"]`).getByRole('link').click();
    for (const connector of connectors)
      await expect(page.getByRole('article', { name: connector.name }).getAttribute('data-status')).resolves.toBe(
        'SUCCESS',
      );
    await screenshot(page, '41-request-saas-success');

    expect([...fakes.stripe.state.customers.values()].some((c) => c.email === subject)).toBe(false);
    expect([...fakes.hubspot.state.contacts.values()].some((c) => c.properties.email === subject)).toBe(false);
    expect(fakes.zendesk.state.erased).toHaveLength(1);
    expect([...fakes.intercom.state.contacts.values()].some((c) => c.email === subject)).toBe(false);
    expect(fakes.mailchimp.state.erased.has(subject)).toBe(true);
    expect([...fakes.sendgrid.state.contacts.values()].some((c) => c.email === subject)).toBe(false);
    expect([...fakes.auth0.state.users.values()].some((u) => u.email === subject)).toBe(false);
    expect([...fakes.braze.state.profiles.values()].some((p) => p.external_id === subject)).toBe(false);
    expect([...fakes.klaviyo.state.profiles.values()].some((p) => p.email === subject)).toBe(false);
    expect([...fakes.customerio.state.people.values()].some((p) => p.email === subject)).toBe(false);
  });
});
