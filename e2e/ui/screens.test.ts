import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { baseUrl, connectAppDatabase, publicApi } from '../support/app';
import { nav, signUp, signUpWithToken } from '../support/onboarding';
import { launchBrowser, newPage, recordVisitedUrls, screenshot, watchConsole, WIDTHS } from '../support/browser';

/**
 * Every screen at a phone, a tablet and a laptop width: a clean console on each (signed in and
 * signed out), screenshots for reviewers, the layout rules a phone needs; then the actions that
 * cannot be undone ask first (and asking is all that happens when the member says no), and the
 * "Live" note on the Requests list tells the truth when refreshes fail.
 */

const suffix = randomBytes(3).toString('hex');
const owner = { name: 'Sam Screens', email: `sam-${suffix}@example.com`, org: 'Screens Ltd' };

let browser: Browser;
let page: Page;
/** The page a step is looking at, for the screenshot of a failed step. */
let current: Page | undefined;
let workspaceApiKey = '';
let pat = '';
let crmIntegrationId = '';
/** Requests that finished at once (the CRM answers 200), and two kept running (the archive answers 429). */
const finished: string[] = [];
const running: string[] = [];

/** The partner's systems on loopback: /crm deletes at once, /archive is busy for an hour (429 with Retry-After). */
const calls: string[] = [];
const receiver = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    calls.push(request.url ?? '');
    if (request.url?.startsWith('/archive')) {
      response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3600' });
      response.end(JSON.stringify({ error: 'busy, try again later' }));
    } else {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ deleted: true }));
    }
  });
});
let receiverUrl = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  browser = await launchBrowser();
  ({ page } = await newPage(browser, baseUrl()));
});
afterEach(async (context) => {
  if (context.task.result?.state === 'fail')
    await screenshot(current ?? page, `failed-${context.task.name.replace(/\W+/g, '-')}`).catch(() => {});
  current = undefined;
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => receiver.close(resolve));
});

async function connectWebhook(p: Page, name: string, url: string) {
  await p.goto('/integrations/new');
  await p.getByRole('heading', { name: 'Connect an integration' }).waitFor();
  await p.getByLabel('Integration name').fill(name);
  await p.getByLabel('URL', { exact: true }).fill(url);
  await p.getByRole('button', { name: 'Connect integration' }).click();
  await p.getByRole('article', { name }).waitFor();
}

async function createRequest(identifier: string): Promise<string> {
  const created = await publicApi('POST', '/deletion-requests', pat, { workspaceApiKey, identifier });
  expect(created.status).toBe(201);
  return String(created.body?.id);
}

/** Polls the public API until the request's integration requests satisfy `done`. */
async function waitForIntegrations(
  id: string,
  done: (irs: { name: string; status: string; lastError: string | null }[]) => boolean,
  timeoutMs = 30_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await publicApi('GET', `/deletion-requests/${id}`, pat);
    const irs = (body?.integrationRequests ?? []) as { name: string; status: string; lastError: string | null }[];
    if (done(irs)) return;
    if (Date.now() > deadline) throw new Error(`request ${id} has integration requests ${JSON.stringify(irs)}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** Integration request statuses and audit actions of one request, read from the database. */
async function recorded(id: string): Promise<{ statuses: string[]; actions: string[] }> {
  const db = await connectAppDatabase();
  try {
    const irs = await db.query<{ status: string }>(
      `SELECT status::text FROM "IntegrationRequest" WHERE "deletionRequestId" = $1 ORDER BY "integrationName"`,
      [id],
    );
    const audit = await db.query<{ action: string }>(
      `SELECT action FROM "AuditLog" WHERE "deletionRequestId" = $1 ORDER BY id`,
      [id],
    );
    return { statuses: irs.rows.map((r) => r.status), actions: audit.rows.map((r) => r.action) };
  } finally {
    await db.end();
  }
}

/** Waits for the screen to have loaded: its heading shown, nothing left loading, the network quiet. */
async function settle(p: Page) {
  // Every screen has a heading; an unusable invitation link has its message's title instead.
  await p.locator('h1, .state-title').first().waitFor();
  await p
    .locator('.state-loading')
    .first()
    .waitFor({ state: 'detached', timeout: 15_000 })
    .catch(() => {});
  await p.waitForLoadState('networkidle');
}

describe('every screen, at every width', () => {
  it('sets up an organization with two destinations and requests in every state', async () => {
    ({ workspaceApiKey, pat } = await signUpWithToken(page, owner, 'Storefront'));
    expect(pat).toMatch(/^dds_pat_/);

    await connectWebhook(page, 'CRM', `${receiverUrl}/crm/delete?email={{identifier}}`);
    crmIntegrationId = new URL(
      await page.getByRole('link', { name: 'Edit CRM' }).evaluate((a) => (a as HTMLAnchorElement).href),
    ).pathname
      .split('/')
      .pop()!;
    for (let i = 0; i < 3; i++) finished.push(await createRequest(`done-${i}-${suffix}@example.com`));
    for (const id of finished) await waitForIntegrations(id, (irs) => irs.length === 1 && irs[0]!.status === 'SUCCESS');

    await connectWebhook(page, 'Archive', `${receiverUrl}/archive/erase?email={{identifier}}`);
    // The CRM confirms; the archive asks to come back in an hour: that deletion keeps running, and
    // the archive's next slot moves an hour on, so the second request waits for it without a call.
    running.push(await createRequest(`running-0-${suffix}@example.com`));
    await waitForIntegrations(
      running[0]!,
      (irs) =>
        irs.some((ir) => ir.name === 'CRM' && ir.status === 'SUCCESS') &&
        irs.some((ir) => ir.name === 'Archive' && ir.status === 'PENDING'),
    );
    running.push(await createRequest(`running-1-${suffix}@example.com`));
    await waitForIntegrations(
      running[1]!,
      (irs) =>
        irs.some((ir) => ir.name === 'CRM' && ir.status === 'SUCCESS') &&
        irs.some((ir) => ir.name === 'Archive' && ir.status === 'STAGING'),
    );
    expect(calls.filter((c) => c.startsWith('/archive'))).toHaveLength(1);
  });

  const signedIn = () => [
    { name: 'overview', path: '/' },
    { name: 'requests', path: '/requests' },
    { name: 'request-new', path: '/requests/new' },
    { name: 'request-detail', path: `/requests/${running[0]}` },
    { name: 'workspaces', path: '/workspaces' },
    { name: 'integrations', path: '/integrations' },
    { name: 'integration-new', path: '/integrations/new' },
    { name: 'integration-edit', path: `/integrations/${crmIntegrationId}` },
    { name: 'accounts', path: '/accounts' },
    { name: 'tokens', path: '/settings/tokens' },
    { name: 'callbacks', path: '/settings/callbacks' },
    { name: 'organization', path: '/organization' },
    { name: 'audit-log', path: '/organization/audit-log' },
    { name: 'not-found', path: '/no-such-screen' },
  ];
  const signedOut = [
    { name: 'sign-in', path: '/sign-in' },
    { name: 'sign-up', path: '/sign-up' },
    { name: 'forgot-password', path: '/forgot-password' },
    { name: 'accept-invitation-unknown', path: '/invite/dds_inv_unknown' },
  ];

  for (const width of WIDTHS) {
    it(`shows every signed-in screen at ${width.width} px with a clean console, and writes its screenshot`, async () => {
      const context = await browser.newContext({
        baseURL: baseUrl(),
        viewport: width,
        storageState: await page.context().storageState(),
      });
      recordVisitedUrls(context);
      try {
        const p = await context.newPage();
        current = p;
        const messages = watchConsole(p);
        for (const screen of signedIn()) {
          // A full load of each address, as a bookmark or a reload would: that is where start-up warnings show.
          await p.goto(screen.path);
          await settle(p);
          expect(
            await horizontalOverflow(p),
            `${screen.name} scrolls sideways at ${width.width} px`,
          ).toBeLessThanOrEqual(1);
          await screenshot(p, `${screen.name}-${width.width}`);
        }
        expect(messages).toEqual([]);
      } finally {
        await context.close();
      }
    });

    it(`shows every signed-out screen at ${width.width} px with a clean console`, async () => {
      const context = await browser.newContext({ baseURL: baseUrl(), viewport: width });
      recordVisitedUrls(context);
      try {
        const p = await context.newPage();
        current = p;
        const messages = watchConsole(p);
        for (const screen of signedOut) {
          await p.goto(screen.path);
          await settle(p);
          expect(
            await horizontalOverflow(p),
            `${screen.name} scrolls sideways at ${width.width} px`,
          ).toBeLessThanOrEqual(1);
          await screenshot(p, `${screen.name}-${width.width}`);
        }
        await p.getByText('This invitation cannot be used').waitFor();
        expect(messages).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }
});

async function horizontalOverflow(p: Page): Promise<number> {
  return p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

describe('a phone and a tablet read each screen', () => {
  let context: BrowserContext;
  let phone: Page;
  beforeAll(async () => {
    context = await browser.newContext({
      baseURL: baseUrl(),
      viewport: WIDTHS[0],
      storageState: await page.context().storageState(),
    });
    recordVisitedUrls(context);
    phone = await context.newPage();
    phone.on('crash', () => console.error('[phone] the page crashed'));
    phone.on('pageerror', (error) => console.error(`[phone] ${error.message}`));
    phone.on('console', (message) => message.type() === 'error' && console.error(`[phone] ${message.text()}`));
  });
  afterAll(async () => {
    await context?.close();
  });

  beforeEach(() => {
    current = phone;
  });

  it('keeps the chart axis labels readable and the integration health columns named', async () => {
    await phone.goto('/');
    await phone.getByRole('heading', { name: 'Requests per day' }).waitFor();
    const tickHeights = await phone
      .locator('.chart-tick')
      .evaluateAll((ticks) => ticks.map((t) => t.getBoundingClientRect().height));
    expect(tickHeights.length).toBeGreaterThan(2);
    expect(Math.min(...tickHeights)).toBeGreaterThanOrEqual(10);
    const cells = await phone.locator('.integration-stats tbody td').evaluateAll((tds) =>
      tds.map((td) => ({
        label: td.getAttribute('data-label'),
        shown: getComputedStyle(td, '::before').content,
        visible: td.getBoundingClientRect().height > 0,
      })),
    );
    expect(cells.length).toBeGreaterThan(0);
    for (const cell of cells)
      expect(cell).toEqual({ label: expect.any(String), shown: `"${cell.label}"`, visible: true });
  });

  it('folds the filters behind one line, so the first requests are on the first screen, as compact cards', async () => {
    await phone.goto('/requests');
    await phone.locator(`tr[data-request-id="${finished[0]}"]`).waitFor();
    const filters = phone.locator('details.filters-panel');
    await expect(filters.evaluate((d) => (d as HTMLDetailsElement).open)).resolves.toBe(false);
    await expect(phone.getByLabel('Identifier (exact match)').isVisible()).resolves.toBe(false);
    const rows = await phone
      .locator('tr[data-request-id]')
      .evaluateAll((trs) => trs.map((tr) => tr.getBoundingClientRect()));
    expect(rows.length).toBe(finished.length + running.length);
    // The first two requests are in view without scrolling, and no card is taller than about 120 px.
    expect(rows[1]!.bottom).toBeLessThan(844);
    for (const row of rows) expect(row.height).toBeLessThanOrEqual(130);
    // Opened, the filters work as on a laptop.
    await phone.getByText('Filters', { exact: true }).click();
    await phone.getByLabel('Identifier (exact match)').waitFor();
  });

  it("keeps the current screen's tab in view", async () => {
    for (const [path, tab] of [
      ['/settings/callbacks', 'Callbacks'],
      ['/settings/tokens', 'Access tokens'],
      ['/', 'Overview'],
    ] as const) {
      await phone.goto(path);
      await settle(phone);
      const box = await nav(phone, tab).evaluate((a) => ({
        left: a.getBoundingClientRect().left,
        right: a.getBoundingClientRect().right,
        current: a.getAttribute('aria-current'),
      }));
      expect(box.current).toBe('page');
      expect(box.left).toBeGreaterThanOrEqual(0);
      expect(box.right).toBeLessThanOrEqual(WIDTHS[0].width);
    }
  });

  it('keeps the header on one row with a long organization name, cut with an ellipsis and read in full', async () => {
    /** The header's height, and whether its parts sit side by side (each overlaps every other vertically). */
    const header = (p: Page) =>
      p.locator('header.topbar').evaluate((el) => {
        const parts = [...el.children].map((child) => child.getBoundingClientRect());
        return {
          height: el.getBoundingClientRect().height,
          oneRow: parts.every((a) => parts.every((b) => a.top < b.bottom && b.top < a.bottom)),
        };
      });
    await phone.goto('/requests');
    await settle(phone);
    const usual = await header(phone);
    expect(usual.oneRow).toBe(true);

    const longName = `Northwind Consolidated Holdings Data Protection Office ${suffix}`;
    expect(longName).toHaveLength(61);
    for (const viewport of [WIDTHS[0], WIDTHS[1]]) {
      const context = await browser.newContext({ baseURL: baseUrl(), viewport });
      recordVisitedUrls(context);
      try {
        const p = await context.newPage();
        current = p;
        await signUp(p, {
          name: 'Lena Long',
          email: `lena-${viewport.width}-${suffix}@example.com`,
          org: longName,
        });
        await p.goto('/requests');
        await settle(p);
        const measured = await header(p);
        expect(measured.oneRow, `the header keeps one row at ${viewport.width} px`).toBe(true);
        if (viewport.width === WIDTHS[0].width) expect(measured.height).toBeLessThanOrEqual(usual.height + 1);
        const name = p.locator('header .org-name');
        const shown = await name.evaluate((el) => ({
          title: el.getAttribute('title'),
          text: el.textContent,
          cut: el.scrollWidth > el.clientWidth,
          overflow: getComputedStyle(el).textOverflow,
        }));
        expect(shown).toEqual({ title: longName, text: longName, cut: true, overflow: 'ellipsis' });
        // A screen reader reads the whole name: the ellipsis is only drawn.
        expect(await p.getByRole('banner').ariaSnapshot()).toContain(longName);
        expect(await horizontalOverflow(p)).toBeLessThanOrEqual(1);
        await screenshot(p, `header-long-organization-name-${viewport.width}`);
      } finally {
        await context.close();
      }
    }
  });

  it('shows who is signed in on a tablet', async () => {
    const tablet = await browser.newContext({
      baseURL: baseUrl(),
      viewport: WIDTHS[1],
      storageState: await page.context().storageState(),
    });
    try {
      const p = await tablet.newPage();
      await p.goto('/requests');
      await settle(p);
      await expect(p.getByText(owner.name, { exact: true }).first().isVisible()).resolves.toBe(true);
    } finally {
      await tablet.close();
    }
  });
});

describe('actions that cannot be undone ask first', () => {
  it('cancels one integration only once confirmed; keeping it running changes nothing', async () => {
    const id = running[0]!;
    await page.goto(`/requests/${id}`);
    const archive = page.locator('article[aria-label="Archive"]');
    // Put off by the archive's 429 (no attempt used): pending until the hour is over.
    await page.locator('article[aria-label="Archive"][data-status="PENDING"]').waitFor();
    // A running integration says how long its type typically takes (the catalogue's figure).
    expect(await archive.locator('dt:has-text("Typical time") + dd').textContent()).toBe('as your system reports');
    await archive.getByRole('button', { name: 'Cancel Archive' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel the deletion at Archive?' });
    await dialog.waitFor();
    expect(await dialog.getByRole('button').allTextContents()).toEqual(['Keep it running', 'Cancel at Archive']);
    await dialog.getByRole('button', { name: 'Keep it running' }).click();
    await dialog.waitFor({ state: 'hidden' });
    // Escape is another way of saying no.
    await archive.getByRole('button', { name: 'Cancel Archive' }).click();
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await page.waitForTimeout(1_000);
    expect(await recorded(id)).toEqual({
      statuses: ['PENDING', 'SUCCESS'],
      actions: expect.not.arrayContaining(['deletion.canceled', 'request.canceled']),
    });
    await expect(archive.getAttribute('data-status')).resolves.toBe('PENDING');

    await archive.getByRole('button', { name: 'Cancel Archive' }).click();
    await dialog.getByRole('button', { name: 'Cancel at Archive' }).click();
    await page.locator('article[aria-label="Archive"][data-status="CANCELED"]').waitFor();
    expect((await recorded(id)).statuses).toEqual(['CANCELED', 'SUCCESS']);
  });

  it('cancels a whole request only once confirmed, with "Keep request" and "Cancel request"', async () => {
    const id = running[1]!;
    await page.goto(`/requests/${id}`);
    await page.locator('article[aria-label="Archive"][data-status="STAGING"]').waitFor();
    await page.getByRole('button', { name: 'Cancel request', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this deletion request?' });
    await dialog.waitFor();
    expect(await dialog.getByRole('button').allTextContents()).toEqual(['Keep request', 'Cancel request']);
    await dialog.getByRole('button', { name: 'Keep request' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.waitForTimeout(1_000);
    expect((await recorded(id)).statuses).toEqual(['STAGING', 'SUCCESS']);
    await screenshot(page, 'request-detail-running-1440');

    await page.getByRole('button', { name: 'Cancel request', exact: true }).click();
    await dialog.getByLabel('Reason').selectOption({ label: 'Duplicate request' });
    await dialog.getByRole('button', { name: 'Cancel request' }).click();
    await page.locator('article[aria-label="Archive"][data-status="CANCELED"]').waitFor();
    expect((await recorded(id)).statuses).toEqual(['CANCELED', 'SUCCESS']);
  });

  it('applies the retention policy now only once confirmed, saying how many requests it hashes', async () => {
    const db = await connectAppDatabase();
    const count = async (hashed: boolean) =>
      Number(
        (
          await db.query(
            `SELECT count(*) AS n FROM "DeletionRequest" dr JOIN "Membership" m ON m."organizationId" = dr."organizationId" JOIN "User" u ON u.id = m."userId"
              WHERE u.email = $1 AND dr.hashed = $2 AND dr."completedAt" IS NOT NULL`,
            [owner.email, hashed],
          )
        ).rows[0].n,
      );
    try {
      const due = await count(false);
      expect(due).toBe(finished.length + running.length);
      await nav(page, 'Organization').click();
      await page.getByLabel('After completion', { exact: true }).selectOption('HASH');
      await page.getByLabel('Days after completion').fill('0');
      await page.getByRole('button', { name: 'Save policy' }).click();
      await page.getByText('Identifiers are replaced by a one-way hash as soon as they complete').waitFor();

      await page.getByRole('button', { name: 'Apply now' }).click();
      const dialog = page.getByRole('dialog', { name: `Hash the identifiers of ${due} finished requests?` });
      await dialog.waitFor();
      expect(await dialog.getByRole('button').allTextContents()).toEqual(['Not now', `Hash ${due} identifiers`]);
      await screenshot(page, 'retention-confirm-1440');
      await dialog.getByRole('button', { name: 'Not now' }).click();
      await dialog.waitFor({ state: 'hidden' });
      await page.waitForTimeout(500);
      expect(await count(true)).toBe(0);

      await page.getByRole('button', { name: 'Apply now' }).click();
      await dialog.getByRole('button', { name: `Hash ${due} identifiers` }).click();
      await page.getByText(`Applied: ${due} requests hashed, 0 deleted.`).waitFor();
      expect(await count(true)).toBe(due);
      expect(await count(false)).toBe(0);
    } finally {
      await db.end();
    }
  });
});

describe('the Live note on the Requests list', () => {
  const note = () => page.locator('.live-note');
  /** Waits for the next good refresh and returns its time as the note shows it ("9:15:02 AM UTC"). */
  async function nextGoodRefresh(): Promise<string> {
    await page.locator('.live-note[data-live-state="live"]').waitFor({ timeout: 15_000 });
    const shown = async () => /refreshed (.+)$/.exec((await note().textContent()) ?? '')?.[1] ?? '';
    const before = await shown();
    await expect.poll(shown, { timeout: 15_000, interval: 50 }).not.toBe(before);
    return shown();
  }

  it('turns offline while the browser is offline, keeping the time of the last good refresh, and live again', async () => {
    await page.goto('/requests');
    const last = await nextGoodRefresh();
    await page.context().setOffline(true);
    try {
      await page.locator('.live-note[data-live-state="offline"]').waitFor();
      const text = (await note().textContent()) ?? '';
      expect(text).toContain('Offline: statuses are not being refreshed.');
      expect(text).toContain(`Last refreshed ${last} (`);
      await screenshot(page, 'requests-offline-1440');
    } finally {
      await page.context().setOffline(false);
    }
    await nextGoodRefresh();
  });

  it('turns stale while the server answers 502, saying when it last refreshed, and live again once it answers', async () => {
    const last = await nextGoodRefresh();
    // A proxy in front of a stopped server: every refresh of the list gets 502 Bad Gateway.
    await page.route('**/trpc/**', (route) =>
      route.fulfill({ status: 502, contentType: 'text/html', body: '<h1>502 Bad Gateway</h1>' }),
    );
    try {
      await page.locator('.live-note[data-live-state="stale"]').waitFor({ timeout: 15_000 });
      const text = (await note().textContent()) ?? '';
      expect(text).toContain('Not up to date: the server is not answering refreshes.');
      expect(text).toContain(`Last refreshed ${last} (`);
      // It stays stale (and keeps the same time) while the failures go on.
      await page.waitForTimeout(5_000);
      await expect(note().getAttribute('data-live-state')).resolves.toBe('stale');
      expect(await note().textContent()).toContain(`Last refreshed ${last} (`);
      await screenshot(page, 'requests-stale-1440');
    } finally {
      await page.unroute('**/trpc/**');
    }
    await nextGoodRefresh();
  });
});
