import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startCallbackReceiver } from '../../server/src/test/fakes/callback-receiver';
import { baseUrl, publicApi } from '../support/app';
import { launchBrowser, newPage, recordVisitedUrls, screenshot, WIDTHS } from '../support/browser';
import { signUpWithToken } from '../support/onboarding';

/**
 * Every screen with its long content shown (a failure's message in "Needs attention", an expanded
 * audit trail, an import report, a callback's delivery log) fits a 390 px phone without sideways
 * scrolling; each is photographed at a phone, a tablet and a laptop width.
 */

const suffix = randomBytes(3).toString('hex');
const owner = { name: 'Pia Phone', email: `pia-${suffix}@example.com`, org: 'Pocket Privacy' };
// Long enough to overflow a phone's width wherever it is not allowed to wrap or be cut.
const longIdentifier = `a.very.long.mailbox.name.for.layout.checks+${suffix}@subsidiary.example-company.com`;

let browser: Browser;
let page: Page;
/** The page a step is looking at, for the screenshot of a failed step. */
let current: Page | undefined;
let workspaceApiKey = '';
let pat = '';
let failedRequestId = '';
let integrationId = '';
let callbacks: Awaited<ReturnType<typeof startCallbackReceiver>>;

/** A destination that refuses every deletion with a long message (HTTP 400: a permanent failure). */
const refusing = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(400, { 'content-type': 'text/plain' });
    response.end(
      'The subject could not be found in the tenant directory because the identifier did not match any record; check the mapping configuration_for_this_destination_without_spaces',
    );
  });
});
let refusingUrl = '';

const importFile = {
  name: `phone-${suffix}.csv`,
  mimeType: 'text/csv',
  buffer: Buffer.from(
    [
      'identifier,workspace,regulation',
      `imported-${suffix}@example.com,Shop,GDPR`,
      `other-${suffix}@example.com,A workspace whose name nobody ever created anywhere,GDPR`,
      '',
    ].join('\r\n'),
  ),
};

beforeAll(async () => {
  await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
  refusingUrl = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
  callbacks = await startCallbackReceiver();
  browser = await launchBrowser();
  ({ page } = await newPage(browser, baseUrl()));
});
afterEach(async (context) => {
  if (context.task.result?.state === 'fail')
    await screenshot(current ?? page, `failed-phone-${context.task.name.replace(/\W+/g, '-')}`).catch(() => {});
  current = undefined;
});
afterAll(async () => {
  await browser?.close();
  await callbacks?.close();
  await new Promise((resolve) => refusing.close(resolve));
});

/**
 * How many pixels the page is wider than the window once its content has settled (polled for a
 * few seconds, as content may still arrive): 0 when nothing scrolls sideways.
 */
async function sidewaysScroll(p: Page): Promise<number> {
  const measure = () => p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  const until = Date.now() + 3_000;
  let overflow = await measure();
  while (overflow > 0 && Date.now() < until) {
    await p.waitForTimeout(250);
    overflow = await measure();
  }
  return Math.max(0, overflow);
}

/** The innermost elements reaching past the window's right edge, to say what overflows. */
function overflowing(p: Page): Promise<string[]> {
  return p.evaluate(() => {
    const past = (el: Element) => el.getBoundingClientRect().right > window.innerWidth + 0.5;
    // Inside a box that scrolls or clips on its own (the navigation row, a wide table's frame) is not the page's overflow.
    const contained = (el: Element) => {
      for (let box = el.parentElement; box && box !== document.body; box = box.parentElement)
        if (getComputedStyle(box).overflowX !== 'visible') return true;
      return false;
    };
    return [...document.body.querySelectorAll('*')]
      .filter((el) => past(el) && !contained(el) && ![...el.children].some(past))
      .slice(0, 6)
      .map(
        (el) => `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} "${(el.textContent ?? '').slice(0, 40)}"`,
      );
  });
}

/** Waits for a screen's heading, nothing left loading, and the network quiet. */
async function settle(p: Page) {
  await p.locator('h1').first().waitFor();
  await p
    .locator('.state-loading')
    .first()
    .waitFor({ state: 'detached', timeout: 15_000 })
    .catch(() => {});
  await p.waitForLoadState('networkidle');
}

interface Screen {
  name: string;
  path: string;
  /** What must be on screen before measuring: the content that could overflow. */
  ready?: (p: Page) => Promise<void>;
}

const signedIn = (): Screen[] => [
  {
    name: 'overview',
    path: '/',
    ready: async (p) => {
      const link = p.locator('.attention-row a[href^="/requests/"]').first();
      await link.waitFor({ state: 'attached' });
      // The link to the request is readable, not squeezed to nothing by the failure's message.
      await expect.poll(() => link.evaluate((a) => a.getBoundingClientRect().width)).toBeGreaterThan(60);
    },
  },
  { name: 'requests', path: '/requests', ready: (p) => p.locator('tr[data-request-id]').first().waitFor() },
  {
    name: 'request-detail',
    path: `/requests/${failedRequestId}`,
    ready: async (p) => {
      await p.locator('details.audit-block > summary').first().waitFor();
      for (const summary of await p.locator('details.audit-block > summary').all()) await summary.click();
      await p.locator('details.audit-block[open] pre').first().waitFor();
    },
  },
  { name: 'request-new', path: '/requests/new', ready: (p) => p.getByLabel('Identifier', { exact: true }).waitFor() },
  {
    name: 'request-import',
    path: '/requests/import',
    ready: async (p) => {
      await p.getByLabel('CSV file').setInputFiles(importFile);
      await p.getByRole('button', { name: 'Import', exact: true }).click();
      await p.getByRole('region', { name: 'Import report' }).locator('tr[data-result="error"]').waitFor();
    },
  },
  { name: 'workspaces', path: '/workspaces', ready: (p) => p.getByRole('article', { name: 'Shop' }).waitFor() },
  { name: 'integrations', path: '/integrations', ready: (p) => p.getByRole('article', { name: 'Refusing' }).waitFor() },
  { name: 'integration-new', path: '/integrations/new' },
  { name: 'integration-edit', path: `/integrations/${integrationId}` },
  { name: 'accounts', path: '/accounts' },
  {
    name: 'callbacks',
    path: '/settings/callbacks',
    ready: async (p) => {
      const card = p.getByRole('article', { name: callbacks.url });
      await card.waitFor();
      const log = card.getByRole('button', { name: 'Delivery log' });
      if ((await log.getAttribute('aria-expanded')) === 'false') await log.click();
      await card.locator('tr[data-delivery-id]').first().waitFor();
    },
  },
  { name: 'tokens', path: '/settings/tokens', ready: (p) => p.getByRole('row', { name: /Backend/ }).waitFor() },
  { name: 'organization', path: '/organization' },
  {
    name: 'audit-log',
    path: '/organization/audit-log',
    ready: (p) => p.locator('.timeline li').first().waitFor(),
  },
];

const signedOut: Screen[] = [
  { name: 'sign-in', path: '/sign-in' },
  { name: 'sign-up', path: '/sign-up' },
];

describe('every screen fits a phone', () => {
  it('sets up a failed request, a callback with deliveries and a token', async () => {
    ({ workspaceApiKey, pat } = await signUpWithToken(page, owner, 'Shop'));

    await page.goto('/integrations/new');
    await page.getByLabel('Integration name').fill('Refusing');
    await page.getByLabel('URL', { exact: true }).fill(`${refusingUrl}/erase?email={{identifier}}`);
    await page.getByRole('button', { name: 'Connect integration' }).click();
    await page.getByRole('article', { name: 'Refusing' }).waitFor();
    integrationId = new URL(
      await page.getByRole('link', { name: 'Edit Refusing' }).evaluate((a) => (a as HTMLAnchorElement).href),
    ).pathname
      .split('/')
      .pop()!;

    const created = await publicApi('POST', '/deletion-requests', pat, { workspaceApiKey, identifier: longIdentifier });
    expect(created.status).toBe(201);
    failedRequestId = String(created.body?.id);
    await expect
      .poll(async () => (await publicApi('GET', `/deletion-requests/${failedRequestId}`, pat)).body?.status, {
        timeout: 30_000,
      })
      .toBe('FAILED');

    await page.goto('/settings/callbacks');
    await page.getByLabel('URL').fill(callbacks.url);
    await page.getByLabel('Description').fill('Partner CRM');
    for (const event of await page.getByRole('checkbox', { name: /deletion_request\./ }).all()) await event.check();
    await page.getByRole('button', { name: 'Register endpoint' }).click();
    await page.getByRole('button', { name: 'I have copied it' }).click();
    const card = page.getByRole('article', { name: callbacks.url });
    await card.getByRole('button', { name: /Send test event/ }).click();
    await card.locator('tr[data-status="DELIVERED"]').first().waitFor({ timeout: 30_000 });
  });

  for (const viewport of WIDTHS) {
    it(`shows every signed-in screen at ${viewport.width} px without sideways scrolling`, async () => {
      const context: BrowserContext = await browser.newContext({
        baseURL: baseUrl(),
        viewport,
        storageState: await page.context().storageState(),
      });
      recordVisitedUrls(context);
      try {
        const p = await context.newPage();
        p.setDefaultTimeout(15_000);
        current = p;
        // How far each screen scrolls sideways, and what sticks out: every screen measured before the verdict.
        const overflows: Record<string, string> = {};
        for (const screen of signedIn()) {
          await p.goto(screen.path);
          await settle(p);
          await screen.ready?.(p);
          const overflow = await sidewaysScroll(p);
          if (overflow > 0) overflows[screen.name] = `${overflow} px: ${(await overflowing(p)).join('; ')}`;
          await screenshot(p, `phone-layout-${screen.name}-${viewport.width}`);
        }
        expect(overflows).toEqual({});
      } finally {
        await context.close();
      }
    });

    it(`shows the sign-in and sign-up screens at ${viewport.width} px without sideways scrolling`, async () => {
      const context = await browser.newContext({ baseURL: baseUrl(), viewport });
      recordVisitedUrls(context);
      try {
        const p = await context.newPage();
        current = p;
        const overflows: Record<string, string> = {};
        for (const screen of signedOut) {
          await p.goto(screen.path);
          await settle(p);
          const overflow = await sidewaysScroll(p);
          if (overflow > 0) overflows[screen.name] = `${overflow} px: ${(await overflowing(p)).join('; ')}`;
          await screenshot(p, `phone-layout-${screen.name}-${viewport.width}`);
        }
        expect(overflows).toEqual({});
      } finally {
        await context.close();
      }
    });
  }
});
