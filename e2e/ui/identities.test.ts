import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, pageMutation } from '../support/app';
import { launchBrowser, newPage, screenshot } from '../support/browser';
import { createWorkspace, nav, signUp } from '../support/onboarding';

/**
 * One person, every identifier, as a privacy manager sets it up: an identifier type of the
 * organization, a workspace whose identity service (a webhook lookup) finds the person's
 * anonymous id, and a request created in the dashboard with an email and a user id; the
 * request detail lists every identifier with where it came from, masked until shown.
 */
const suffix = randomBytes(3).toString('hex');
const email = `ida.person+${suffix}@example.com`;
const userId = `u-${suffix}`;

let browser: Browser;
let page: Page;
/** The company's identity service: signed requests only, answers the anonymous id of a user id. */
const identityService = { secret: '', calls: 0 };
const hook = http.createServer((request, response) => {
  let body = '';
  request.on('data', (chunk) => (body += chunk));
  request.on('end', () => {
    try {
      const payload = new Webhook(identityService.secret).verify(body, request.headers as Record<string, string>) as {
        identifiers: { type: string; value: string }[];
      };
      identityService.calls++;
      const user = payload.identifiers.find((i) => i.type === 'user_id')?.value;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ identifiers: user ? [{ type: 'anonymous_id', value: `anon-${user}` }] : [] }));
    } catch {
      response.writeHead(401).end();
    }
  });
});
/** Where the deletion goes: an internal system that answers at once. */
const destination = http.createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end('{"deleted":true}');
});
const urlOf = (server: http.Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

beforeAll(async () => {
  await Promise.all([hook, destination].map((s) => new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))));
  browser = await launchBrowser();
  ({ page } = await newPage(browser, baseUrl()));
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([hook, destination].map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A tRPC mutation from the signed-in page. */
const trpc = <T>(procedure: string, input: unknown) => pageMutation<T>(page, procedure, input);

describe('one person, every identifier, in the dashboard', () => {
  it('sets up an identifier type and an identity lookup', async () => {
    await signUp(page, { name: 'Ida Identity', email: `ida-${suffix}@example.com`, org: `Identities ${suffix}` });
    await createWorkspace(page, 'Production');

    await nav(page, 'Organization').click();
    await page.getByLabel('New type').fill('anonymous_id');
    await page.getByRole('button', { name: 'Add type' }).click();
    await page.getByText('anonymous_id', { exact: true }).waitFor();

    await nav(page, 'Workspaces').click();
    const card = page.getByRole('article', { name: 'Production' });
    const lookups = card.getByRole('region', { name: 'Identity lookups of Production' });
    await lookups.getByLabel('Kind').selectOption('webhook');
    await lookups.getByLabel('Name').fill('identity service');
    await lookups.getByLabel('URL').fill(`${urlOf(hook)}/identities`);
    await lookups.getByRole('button', { name: 'Add lookup' }).click();
    identityService.secret = ((await lookups.getByLabel('Signing secret').textContent()) ?? '').trim();
    expect(identityService.secret).toMatch(/^whsec_/);
    await lookups.getByText('identity service').waitFor();
  });

  it('creates a request with an email and a user id; the detail shows every identifier, where it came from, masked until shown', async () => {
    const [workspace] = await page.evaluate(async () => {
      const response = await fetch('/trpc/workspaces.list');
      return ((await response.json()) as { result: { data: { id: string }[] } }).result.data;
    });
    await trpc('integrations.create', {
      workspaceId: workspace!.id,
      name: 'Internal CRM',
      type: 'WEBHOOK',
      accountId: null,
      config: {
        mode: 'sync',
        initiate: { method: 'POST', url: `${urlOf(destination)}/erase`, body: '{"id":"{{identifier}}"}' },
      },
    });

    await page.goto('/requests/new');
    await page.getByLabel('Identifier', { exact: true }).fill(email);
    await page.getByRole('button', { name: 'Add identifier' }).click();
    await page.getByLabel('Other type 1', { exact: true }).selectOption('user_id');
    await page.getByLabel('Other value 1', { exact: true }).fill(userId);
    await page.getByRole('button', { name: 'Create request' }).click();

    const section = page.getByRole('region', { name: 'Identifiers' });
    const found = section.getByRole('row').filter({ hasText: 'Found by the lookup “identity service”' });
    await found.waitFor({ timeout: 30_000 });
    await expect(section.getByRole('row').filter({ hasText: 'user_id' }).textContent()).resolves.toContain(
      'Given with the request',
    );
    // Masked: no value in full on the page until one is shown.
    const text = (await section.textContent()) ?? '';
    for (const value of [email, userId, `anon-${userId}`]) expect(text).not.toContain(value);
    await screenshot(page, 'request-identifiers-1366');

    await found.getByRole('button', { name: 'Show the anonymous_id in full' }).click();
    await found.getByText(`anon-${userId}`).waitFor();
    await found.getByRole('button', { name: 'Mask the anonymous_id again' }).click();
    await found.getByText(`anon-${userId}`).waitFor({ state: 'detached' });
    expect(identityService.calls).toBe(1);
    // The title never carries an identifier.
    expect(await page.title()).toMatch(/^Request dr_/);
  });
});
