import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { maskIdentifier } from '@shared/mask-identifier';
import { baseUrl, pageMutation } from '../support/app';
import { launchBrowser, newPage, screenshot, WIDTHS } from '../support/browser';
import { createWorkspace, signUp } from '../support/onboarding';

/**
 * The identifiers of a person stay masked in what a request's audit trail recorded (the URL,
 * body and response of each exchange): expanding "Exchanges" shows them masked, and only the
 * audited "Show exchanges unmasked" shows them in full, which the trail then says.
 */
const suffix = randomBytes(3).toString('hex');
const email = `Mira.Subject+${suffix}@Example.com`;
const userId = `usr-${suffix}-77`;
const anonymousId = `anon-${suffix}-zz`;
const identifiers = [email, userId, anonymousId];

let browser: Browser;
let page: Page;
let requestId = '';

/** The identity service finds the person's anonymous id; the CRM erases and echoes every identifier back, in several spellings. */
const systems = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json' });
    if (request.url?.startsWith('/identities')) {
      response.end(JSON.stringify({ identifiers: [{ type: 'anonymous_id', value: anonymousId }] }));
      return;
    }
    response.end(
      `{"erased":"${email.toUpperCase()}","as":"${email.replace('@', '\\u0040')}",` +
        `"link":"https://crm.test/people?e=${encodeURIComponent(email.toLowerCase())}",` +
        `"ids":["${userId}","${anonymousId}"]}`,
    );
  });
});
const systemsUrl = () => `http://127.0.0.1:${(systems.address() as AddressInfo).port}`;

beforeAll(async () => {
  await new Promise<void>((resolve) => systems.listen(0, '127.0.0.1', resolve));
  browser = await launchBrowser();
  ({ page } = await newPage(browser, baseUrl()));
});
afterEach(async (context) => {
  if (context.task.result?.state === 'fail')
    await screenshot(page, `failed-masking-${context.task.name.replace(/\W+/g, '-')}`).catch(() => {});
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => systems.close(resolve));
});

/** Every spelling of every identifier found in the page's text (case-folded): URL-encoded and JSON-escaped too. */
async function identifiersInPage(): Promise<string[]> {
  const text = ((await page.evaluate(() => document.body.textContent)) ?? '').toLowerCase();
  return identifiers.flatMap((value) =>
    [...new Set([value, encodeURIComponent(value), value.replace('@', '\\u0040')])].filter((spelling) =>
      text.includes(spelling.toLowerCase()),
    ),
  );
}

describe('identifiers in recorded exchanges', () => {
  it('sets up an identity lookup and a webhook destination, and a request reaches both', async () => {
    await signUp(page, { name: 'Mo Masking', email: `mo-${suffix}@example.com`, org: `Masking ${suffix}` });
    await createWorkspace(page, 'Production');
    const [workspace] = await page.evaluate(async () => {
      const response = await fetch('/trpc/workspaces.list');
      return ((await response.json()) as { result: { data: { id: string }[] } }).result.data;
    });
    await pageMutation(page, 'identities.createType', { name: 'anonymous_id' });
    await pageMutation(page, 'identities.createLookup', {
      workspaceId: workspace!.id,
      kind: 'webhook',
      name: 'identity service',
      url: `${systemsUrl()}/identities`,
      timeoutMs: 5_000,
      maxIdentifiers: 5,
    });
    await pageMutation(page, 'integrations.create', {
      workspaceId: workspace!.id,
      name: 'Internal CRM',
      type: 'WEBHOOK',
      accountId: null,
      config: {
        mode: 'sync',
        initiate: {
          method: 'POST',
          url: `${systemsUrl()}/erase?email={{identifier}}`,
          body: '{"email":"{{identifier}}"}',
        },
      },
    });

    await page.goto('/requests/new');
    await page.getByLabel('Identifier', { exact: true }).fill(email);
    await page.getByRole('button', { name: 'Add identifier' }).click();
    await page.getByLabel('Other type 1', { exact: true }).selectOption('user_id');
    await page.getByLabel('Other value 1', { exact: true }).fill(userId);
    await page.getByRole('button', { name: 'Create request' }).click();
    await page.getByRole('article', { name: 'Internal CRM' }).and(page.locator('[data-status="SUCCESS"]')).waitFor({
      timeout: 30_000,
    });
    requestId = /\/requests\/(dr_[0-9a-z]+)/.exec(page.url())?.[1] ?? '';
    expect(requestId).not.toBe('');
  });

  it('expanding Exchanges shows every identifier masked, the lookup’s finding included', async () => {
    const trail = page.getByRole('region', { name: 'Audit trail' });
    const exchanges = trail.locator('details').filter({ has: page.locator('summary', { hasText: 'Exchanges' }) });
    await expect.poll(() => exchanges.count(), { timeout: 15_000 }).toBeGreaterThan(0);
    for (const block of await exchanges.all()) await block.locator('summary').click();
    await expect.poll(() => trail.locator('details[open]').count()).toBe(await exchanges.count());
    expect(await trail.locator('details[open] pre').first().textContent()).toContain('/erase?email=');
    expect(await identifiersInPage()).toEqual([]);
    await screenshot(page, 'masking-exchanges-masked-1366');
  });

  it('the audited reveal shows them in full, and the audit trail says who did', async () => {
    const trail = page.getByRole('region', { name: 'Audit trail' });
    await trail.getByRole('button', { name: 'Show exchanges unmasked', exact: true }).click();
    await trail.getByRole('status').filter({ hasText: 'recorded in the audit trail' }).waitFor();
    await expect.poll(async () => (await identifiersInPage()).length).toBeGreaterThan(0);
    const shown = await identifiersInPage();
    for (const value of identifiers) expect(shown).toContain(value);
    await trail.getByText('Exchanges shown unmasked', { exact: true }).waitFor();
    await expect(trail.getByText('By Mo Masking (dashboard)').last().isVisible()).resolves.toBe(true);
    await screenshot(page, 'masking-exchanges-revealed-1366');

    await trail.getByRole('button', { name: 'Mask exchanges again', exact: true }).click();
    await expect.poll(() => identifiersInPage()).toEqual([]);
  });

  it('the Requests list tells rows apart by masked identifier, tag and request id', async () => {
    for (const viewport of WIDTHS) {
      await page.setViewportSize(viewport);
      await page.goto('/requests');
      const row = page.locator(`tr[data-request-id="${requestId}"]`);
      await row.waitFor();
      // Masked as every list masks, with the keyed tag and the request id beside it.
      const text = (await row.textContent()) ?? '';
      expect(text).toContain(requestId);
      expect(text).toContain(maskIdentifier(email));
      expect(text).toMatch(/#[0-9a-z]{4}/);
      if (viewport.width > 800) await page.getByRole('columnheader', { name: 'Request id', exact: true }).waitFor();
      expect(await identifiersInPage()).toEqual([]);
      await screenshot(page, `requests-list-id-column-${viewport.width}`);
    }
  });
});
