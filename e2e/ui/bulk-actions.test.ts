import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { maskIdentifier } from '@shared/mask-identifier';
import { baseUrl, connectAppDatabase, publicApi, pageMutation } from '../support/app';
import { launchBrowser, newPage, screenshot } from '../support/browser';
import { nav, signUp } from '../support/onboarding';

const suffix = randomBytes(3).toString('hex');
/** Subjects the destination does not know yet (after the first retry, still more than a page of the list), and one it deletes at once. */
const FAILING = 27;
const failing = Array.from({ length: FAILING }, (_, i) => `bulk-${i}-${suffix}@example.com`);
const fine = `bulk-fine-${suffix}@example.com`;
/** Subjects whose deletion the destination keeps putting off (429, come back in an hour): still running, so cancellable. */
const busy = Array.from({ length: 3 }, (_, i) => `bulk-busy-${i}-${suffix}@example.com`);

let browser: Browser;
let page: Page;
let pat = '';
let workspaceApiKey = '';
const ids = new Map<string, string>();

/**
 * The partner's system: refuses the subjects it does not know (422) until it is "fixed", deletes
 * the others; the "busy" subjects are always put off for an hour (429 with Retry-After).
 */
const destination = { fixed: false, url: '', putOff: new Set<string>() };
const receiver = http.createServer((request, response) => {
  let body = '';
  request.on('data', (chunk) => (body += chunk));
  request.on('end', () => {
    const email = String(JSON.parse(body || '{}').email ?? '');
    if (email.startsWith('bulk-busy-')) {
      destination.putOff.add(email);
      response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3600' });
      response.end(JSON.stringify({ error: 'busy, try again later' }));
      return;
    }
    const ok = destination.fixed || email.startsWith('bulk-fine-');
    response.writeHead(ok ? 200 : 422, { 'content-type': 'application/json' });
    response.end(JSON.stringify(ok ? { deleted: true } : { error: 'unknown subject' }));
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  destination.url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
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

/** A tRPC mutation from the signed-in page. */
const trpc = <T>(procedure: string, input: unknown) => pageMutation<T>(page, procedure, input);

async function waitForStatus(id: string, statuses: string[]) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { body } = await publicApi('GET', `/deletion-requests/${id}`, pat);
    if (statuses.includes(String(body?.status))) return;
    if (Date.now() > deadline) throw new Error(`${id} is still ${String(body?.status)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('bulk actions on the Requests screen', () => {
  it('sets up a workspace whose webhook refuses most subjects, and sends the requests through the API', async () => {
    await signUp(page, { name: 'Bea Bulk', email: `bea-${suffix}@example.com`, org: `Bulk ${suffix}` });

    const workspace = await trpc<{ id: string; apiKey: string }>('workspaces.create', { name: 'Production' });
    await trpc('integrations.create', {
      workspaceId: workspace.id,
      name: 'Internal CRM',
      type: 'WEBHOOK',
      accountId: null,
      config: {
        mode: 'sync',
        initiate: { method: 'POST', url: `${destination.url}/erase`, body: '{"email":"{{identifier}}"}' },
      },
    });
    workspaceApiKey = workspace.apiKey;
    pat = (await trpc<{ token: string }>('tokens.create', { name: 'bulk' })).token;
    for (const identifier of [...failing, fine]) {
      const created = await publicApi('POST', '/deletion-requests', pat, {
        workspaceApiKey: workspace.apiKey,
        identifier,
      });
      expect(created.status).toBe(201);
      ids.set(identifier, String(created.body?.id));
    }
    for (const identifier of failing) await waitForStatus(ids.get(identifier)!, ['FAILED']);
    await waitForStatus(ids.get(fine)!, ['SUCCESS']);
  });

  it('the overview says which integration failed and why', async () => {
    await nav(page, 'Overview').click();
    const attention = page.locator('section[aria-labelledby="attention"]');
    await attention.getByText(`${FAILING}`, { exact: true }).waitFor();
    const first = attention.getByRole('listitem').first();
    // Links to the integration (this is its owner) and to the request; the error in the destination's words.
    await first.getByRole('link', { name: 'Internal CRM' }).waitFor();
    expect(await first.textContent()).toMatch(/Failed: .*422/);
    await screenshot(page, 'overview-needs-attention');
    await first.getByRole('link', { name: 'Internal CRM' }).click();
    await page.waitForURL('**/integrations/int_*');
  });

  it('retries two chosen rows: the failed one is retried, the finished one skipped with the reason', async () => {
    await page.goto('/requests');
    // The newest failed request: the list is newest first, so it is on the first page.
    const failedRow = page.locator(`tr[data-request-id="${ids.get(failing[FAILING - 1]!)}"]`);
    const fineRow = page.locator(`tr[data-request-id="${ids.get(fine)}"]`);
    await fineRow.waitFor();
    await fineRow.getByRole('checkbox').check();
    await failedRow.getByRole('checkbox').check();
    const bar = page.getByRole('region', { name: 'Selected requests' });
    await bar.getByText('2 selected').waitFor();

    // The destination was fixed meanwhile; the retry will succeed this time.
    destination.fixed = true;
    await bar.getByRole('button', { name: 'Retry failed…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Retry 2 requests?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Retry 2 requests' }).click();

    const result = page.getByRole('region', { name: 'Result of the bulk action' });
    await result.getByText('1 request retried, 1 skipped.').waitFor();
    const retried = result.locator('li[data-outcome="retried"]');
    const skipped = result.locator('li[data-outcome="skipped"]');
    expect(await retried.getByRole('link').textContent()).toBe(maskIdentifier(failing[FAILING - 1]!));
    expect(await skipped.getByRole('link').textContent()).toBe(maskIdentifier(fine));
    await skipped.getByText('Nothing to retry: no integration request of this deletion request has failed').waitFor();
    await screenshot(page, 'bulk-retry-result');
    await waitForStatus(ids.get(failing[FAILING - 1]!)!, ['SUCCESS']);
    await failedRow.getByText('Succeeded', { exact: true }).waitFor({ timeout: 15_000 });
    await result.getByRole('button', { name: 'Dismiss' }).click();
    await result.waitFor({ state: 'detached' });
  });

  it('selects every failed request matching the filter beyond the first page, and retries them all after saying how many', async () => {
    await page.goto('/requests?status=FAILED');
    await page.locator('tbody tr').nth(24).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(25);
    await page.getByRole('checkbox', { name: 'Select all requests on this page' }).check();
    const bar = page.getByRole('region', { name: 'Selected requests' });
    await bar.getByText('25 selected').waitFor();
    await bar.getByRole('button', { name: `Select all ${FAILING - 1} matching this filter` }).click();
    await bar.getByText(`All ${FAILING - 1} requests matching this filter selected`).waitFor();

    await bar.getByRole('button', { name: 'Retry failed…' }).click();
    const dialog = page.getByRole('dialog', { name: `Retry ${FAILING - 1} requests?` });
    // "Don't retry" closes without acting.
    await dialog.getByRole('button', { name: "Don't retry" }).click();
    await dialog.waitFor({ state: 'hidden' });
    await bar.getByRole('button', { name: 'Retry failed…' }).click();
    await dialog.getByRole('button', { name: `Retry ${FAILING - 1} requests` }).click();

    const result = page.getByRole('region', { name: 'Result of the bulk action' });
    await result.getByText(`${FAILING - 1} requests retried.`).waitFor();
    expect(await result.locator('li[data-outcome="retried"]').count()).toBe(FAILING - 1);
    for (const identifier of failing.slice(0, -1)) await waitForStatus(ids.get(identifier)!, ['SUCCESS']);
    // Nothing is left failing: the filtered list empties itself.
    await page.getByText('No request matches these filters').waitFor({ timeout: 15_000 });
  });

  it('cancels several running requests after a confirmation that names the count; a finished one is skipped with the reason', async () => {
    // The first is sent and put off for an hour (429 with Retry-After), which moves the destination's
    // next slot an hour on: the others wait for it unsent. All three keep running.
    for (const identifier of busy) {
      const created = await publicApi('POST', '/deletion-requests', pat, { workspaceApiKey, identifier });
      expect(created.status).toBe(201);
      ids.set(identifier, String(created.body?.id));
      if (destination.putOff.size > 0) continue;
      for (let waited = 0; destination.putOff.size === 0; waited += 100) {
        if (waited > 30_000) throw new Error('the first busy subject was never sent');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    const running = busy.map((identifier) => ids.get(identifier)!);
    const finishedId = ids.get(fine)!;

    await page.goto('/requests');
    for (const id of [...running, finishedId]) {
      const row = page.locator(`tr[data-request-id="${id}"]`);
      await row.waitFor();
      await row.getByRole('checkbox').check();
    }
    const bar = page.getByRole('region', { name: 'Selected requests' });
    await bar.getByText('4 selected').waitFor();

    // The confirmation names the count and says what will happen; "Keep requests" closes it without acting.
    await bar.getByRole('button', { name: 'Cancel…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel 4 requests?' });
    await dialog.getByText(/Integrations that have not finished are asked to stop; this cannot be undone/).waitFor();
    await screenshot(page, 'bulk-cancel-confirmation');
    await dialog.getByRole('button', { name: 'Keep requests' }).click();
    await dialog.waitFor({ state: 'hidden' });
    for (const id of running) await waitForStatus(id, ['STAGING', 'PENDING', 'PROCESSING']);
    await bar.getByRole('button', { name: 'Cancel…' }).click();
    // Closed without being fulfilled: the dialog asks why, once for all of them.
    const confirm = dialog.getByRole('button', { name: 'Cancel 4 requests', exact: true });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel('Reason').selectOption({ label: 'Legal exemption' });
    await confirm.click();

    const result = page.getByRole('region', { name: 'Result of the bulk action' });
    await result.getByText('3 requests canceled, 1 skipped.').waitFor();
    const canceled = result.locator('li[data-outcome="canceled"]');
    expect((await canceled.getByRole('link').allTextContents()).sort()).toEqual(busy.map(maskIdentifier).sort());
    expect(await canceled.locator('.badge').allTextContents()).toEqual(['Canceled', 'Canceled', 'Canceled']);
    for (const identifier of busy) {
      const { body } = await publicApi('GET', `/deletion-requests/${ids.get(identifier)}`, pat);
      expect(body).toMatchObject({
        cancelReason: 'legal_exemption',
        statusReason: 'Closed — not fulfilled (Legal exemption)',
      });
    }
    const skipped = result.locator('li[data-outcome="skipped"]');
    expect(await skipped.getByRole('link').textContent()).toBe(maskIdentifier(fine));
    await skipped.getByText('This request has finished; nothing to cancel').waitFor();
    await screenshot(page, 'bulk-cancel-result');

    // The list shows them canceled, and so does the database; the finished request is left as it was.
    for (const id of running)
      await page.locator(`tr[data-request-id="${id}"]`).getByText('Canceled', { exact: true }).waitFor();
    const db = await connectAppDatabase();
    try {
      const { rows } = await db.query<{ id: string; status: string }>(
        'SELECT id, status FROM "DeletionRequest" WHERE id = ANY($1) ORDER BY id',
        [[...running, finishedId]],
      );
      expect(Object.fromEntries(rows.map((row) => [row.id, row.status]))).toEqual({
        ...Object.fromEntries(running.map((id) => [id, 'CANCELED'])),
        [finishedId]: 'SUCCESS',
      });
      const { rows: integrationStatuses } = await db.query<{ status: string }>(
        'SELECT status FROM "IntegrationRequest" WHERE "deletionRequestId" = ANY($1)',
        [running],
      );
      expect(integrationStatuses.map((row) => row.status)).toEqual(['CANCELED', 'CANCELED', 'CANCELED']);
    } finally {
      await db.end();
    }
  });
});
