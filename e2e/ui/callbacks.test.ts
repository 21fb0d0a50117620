import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startCallbackReceiver } from '../../server/src/test/fakes/callback-receiver';
import { baseUrl, connectAppDatabase } from '../support/app';
import { launchBrowser, newPage, screenshot } from '../support/browser';
import { createWorkspace, nav, signUp } from '../support/onboarding';

const suffix = randomBytes(3).toString('hex');
const owner = { name: 'Cal Callback', email: `cal-${suffix}@example.com`, org: 'Hooks Inc' };

let browser: Browser;
let page: Page;
let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;
let secret = '';

beforeAll(async () => {
  // The partner's endpoint on loopback (the e2e app allowlists 127.0.0.0/8 for outbound calls).
  receiver = await startCallbackReceiver();
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
  await receiver?.close();
});

describe('an admin registers a callback endpoint and tries it', () => {
  it('registers an endpoint and sees its signing secret once', async () => {
    await signUp(page, owner);
    await createWorkspace(page, 'Hooks');

    await nav(page, 'Callbacks').click();
    await page.getByRole('heading', { name: 'Status callbacks' }).waitFor();
    // The shared schema's message next to the field, before anything is sent.
    await page.getByLabel('URL').fill('not a url');
    await page.getByRole('button', { name: 'Register endpoint' }).click();
    await expect(page.getByLabel('URL').getAttribute('aria-invalid')).resolves.toBe('true');

    await page.getByLabel('URL').fill(receiver.url);
    await page.getByLabel('Description').fill('Partner CRM');
    await page.getByRole('checkbox', { name: /deletion_request\.created/ }).check();
    await page.getByRole('button', { name: 'Register endpoint' }).click();
    secret = (await page.getByLabel('Signing secret', { exact: true }).textContent())?.trim() ?? '';
    expect(secret).toMatch(/^whsec_/);
    await screenshot(page, '40-callbacks-registered');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    // Shown once: gone from the page, and not in what the list answers.
    await expect(page.getByText(secret).count()).resolves.toBe(0);
    await page.reload();
    const card = page.getByRole('article', { name: receiver.url });
    await card.waitFor();
    expect(await card.textContent()).not.toContain(secret);
    await expect(card.getByText('deletion_request.created').count()).resolves.toBe(1);
  });

  it('sends a test event: the receiver gets a signed delivery and the log shows it delivered', async () => {
    const card = page.getByRole('article', { name: receiver.url });
    await card.getByRole('button', { name: /Send test event/ }).click();
    const row = card.locator('tr[data-delivery-id]').first();
    await row.waitFor();
    await card
      .locator('tr[data-status="DELIVERED"] .badge', { hasText: 'Delivered' })
      .first()
      .waitFor({ timeout: 30_000 });
    const deliveryId = await row.getAttribute('data-delivery-id');
    expect(receiver.received).toHaveLength(1);
    const [call] = receiver.received;
    expect(call!.headers['webhook-id']).toBe(deliveryId);
    // Verified with the secret the screen showed once, by the standardwebhooks package.
    expect(new Webhook(secret).verify(call!.body, call!.headers)).toMatchObject({ type: 'callback.test' });
    await expect(row.getByText('HTTP 204').count()).resolves.toBe(1);
    await screenshot(page, '41-callbacks-delivery-log');

    // Resend: the same webhook-id again.
    await row.getByRole('button', { name: /Resend/ }).click();
    await expect.poll(() => receiver.received.length, { timeout: 30_000 }).toBe(2);
    expect(receiver.received[1]!.headers['webhook-id']).toBe(deliveryId);
  });

  it('rotates the secret with an overlap: the next delivery verifies with the old and the new secret', async () => {
    const card = page.getByRole('article', { name: receiver.url });
    await card.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('dialog').getByLabel('The old secret keeps signing for').selectOption('24');
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = (await card.getByLabel('Signing secret', { exact: true }).textContent())?.trim() ?? '';
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await card.getByRole('button', { name: 'I have copied it' }).click();
    await card.getByText('Previous secret').waitFor();
    const before = receiver.received.length;
    await card.getByRole('button', { name: /Send test event/ }).click();
    await expect.poll(() => receiver.received.length, { timeout: 30_000 }).toBe(before + 1);
    const call = receiver.received.at(-1)!;
    expect(new Webhook(rotated).verify(call.body, call.headers)).toMatchObject({ type: 'callback.test' });
    expect(new Webhook(secret).verify(call.body, call.headers)).toMatchObject({ type: 'callback.test' });
  });

  it('shows the delivery log 50 at a time, older deliveries on demand', async () => {
    // Sixty older deliveries, all recorded in the same instant (a burst).
    const db = await connectAppDatabase();
    try {
      await db.query(
        `INSERT INTO "CallbackDelivery" (id, "organizationId", "endpointId", "eventType", body, status, "createdAt")
         SELECT 'msg_burst_' || g, e."organizationId", e.id, 'deletion_request.created', '{}', 'DELIVERED'::"CallbackDeliveryStatus", now() - interval '1 day'
           FROM "CallbackEndpoint" e, generate_series(1, 60) g WHERE e.url = $1`,
        [receiver.url],
      );
    } finally {
      await db.end();
    }
    await page.reload();
    const card = page.getByRole('article', { name: receiver.url });
    await card.getByRole('button', { name: 'Delivery log' }).click();
    const rows = card.locator('tr[data-delivery-id]');
    await expect.poll(() => rows.count()).toBe(50);
    await card.getByRole('button', { name: 'Load older deliveries' }).click();
    await card.getByText('62 deliveries shown · none older').waitFor();
    const ids = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-delivery-id')));
    expect(new Set(ids).size).toBe(62);
  });

  it('disables and deletes the endpoint', async () => {
    const card = page.getByRole('article', { name: receiver.url });
    await card.getByRole('button', { name: 'Disable' }).click();
    await card.getByText('Disabled', { exact: true }).waitFor();
    await card.getByRole('button', { name: 'Enable' }).waitFor();
    await card.getByRole('button', { name: /^Delete/ }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByText('No endpoints yet').waitFor();
  });
});
