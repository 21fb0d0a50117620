import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { appDatabasePort, baseUrl } from '../support/app';
import { launchBrowser, newPage, screenshot } from '../support/browser';
import { createWorkspace, nav, signUp } from '../support/onboarding';

const suffix = randomBytes(3).toString('hex');
const owner = { name: 'Tess Tester', email: `tess-${suffix}@example.com`, org: 'Probe Ltd' };

let browser: Browser;
let page: Page;

/** The partner's endpoint: answers 200 to everything and counts the calls. */
const calls: string[] = [];
const receiver = http.createServer((request, response) => {
  calls.push(`${request.method} ${request.url}`);
  response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
});
let okUrl = '';
/** A loopback port nothing listens on: connections to it are refused. */
let refusedPort = 0;

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  okUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  refusedPort = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
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

/** The colour a test result is drawn in, to tell a pass from a failure without reading it. */
const colourOf = (p: Page, selector: string) =>
  p.locator(selector).evaluate((el) => `${getComputedStyle(el).color} ${getComputedStyle(el).backgroundColor}`);

describe('testing a connection before the integration is saved', () => {
  it('signs up and opens the form of a new webhook', async () => {
    await signUp(page, owner);
    await createWorkspace(page, 'Probes');
    await nav(page, 'Integrations').click();
    await page.getByRole('link', { name: 'Connect integration' }).click();
    await page.getByRole('heading', { name: 'Connect an integration' }).waitFor();
    await page.getByLabel('Integration name').fill('Partner CRM');
  });

  it('shows a pass, with the host, for a destination that answers', async () => {
    await page.getByLabel('URL', { exact: true }).fill(`${okUrl}/gdpr/delete?email={{identifier}}`);
    await page.getByRole('button', { name: 'Test connection', exact: true }).click();
    const passed = page.getByRole('status').filter({ hasText: 'Connection works' });
    await passed.waitFor();
    await expect(passed.textContent()).resolves.toContain(`(${okUrl.replace('http://', '')})`);
    await expect(passed.textContent()).resolves.toContain('HTTP 200');
    await expect(passed.locator('.connection-icon').textContent()).resolves.toBe('✓');
    expect(calls.length).toBeGreaterThan(0);
    await screenshot(page, '70-test-connection-pass');
  });

  it('shows a failure that looks different and says why, for a refused port', async () => {
    const pass = await colourOf(page, '.connection-pass');
    await page.getByLabel('URL', { exact: true }).fill(`http://127.0.0.1:${refusedPort}/erase`);
    await page.getByRole('button', { name: 'Test connection', exact: true }).click();
    const failed = page.getByRole('alert').filter({ hasText: 'Connection failed' });
    await failed.waitFor();
    const text = (await failed.textContent()) ?? '';
    expect(text).toContain(`(127.0.0.1:${refusedPort})`);
    expect(text).toMatch(/ECONNREFUSED/);
    await expect(failed.locator('.connection-icon').textContent()).resolves.toBe('✕');
    await expect.poll(() => page.locator('.connection-pass').count()).toBe(0);
    expect(await colourOf(page, '.connection-fail')).not.toBe(pass);
    await screenshot(page, '71-test-connection-fail');
  });

  it('tests database credentials typed in the new-account form, before saving them', async () => {
    await page.getByLabel('Type', { exact: true }).selectOption({ label: 'PostgreSQL' });
    // No PostgreSQL account yet: the new-account form is open; its fields are filled, not saved.
    await page.getByLabel('Account name').fill('Probe DB');
    await page.getByLabel('Host', { exact: true }).fill('127.0.0.1');
    await page.getByLabel(/^Port/).fill(String(refusedPort));
    await page.getByLabel('Database', { exact: true }).fill('postgres');
    await page.getByLabel('User', { exact: true }).fill('postgres');
    await page.getByLabel('Password', { exact: true }).fill('postgres');
    await page.getByLabel('SSL mode').selectOption('disable');
    await page.getByRole('button', { name: 'Test connection', exact: true }).click();
    const failed = page.getByRole('alert').filter({ hasText: 'Connection failed' });
    await failed.waitFor();
    await expect(failed.textContent()).resolves.toContain(`(127.0.0.1:${refusedPort})`);
    await expect(failed.textContent()).resolves.not.toContain('postgres@');

    await page.getByLabel(/^Port/).fill(String(appDatabasePort()));
    await page.getByRole('button', { name: 'Test connection', exact: true }).click();
    const passed = page.getByRole('status').filter({ hasText: 'Connection works' });
    await passed.waitFor();
    await expect(passed.textContent()).resolves.toContain('Connected: PostgreSQL');
  });

  it('saved nothing: the integration exists only once "Connect integration" is pressed', async () => {
    await nav(page, 'Integrations').click();
    await page.getByText('No integrations yet').waitFor();
    await nav(page, 'Accounts').click();
    await page.getByRole('heading', { name: 'Accounts', level: 1 }).waitFor();
    expect(await page.getByText('Probe DB').count()).toBe(0);
  });
});
