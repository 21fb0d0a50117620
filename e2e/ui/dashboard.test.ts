import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, connectAppDatabase, publicApi } from '../support/app';
import { launchBrowser, newPage, PHONE, recordVisitedUrls, screenshot } from '../support/browser';
import { nav, signUp } from '../support/onboarding';
import { maskIdentifier } from '@shared/mask-identifier';

const suffix = randomBytes(3).toString('hex');
const owner = { name: 'Olivia Owner', email: `olivia-${suffix}@example.com`, org: 'Acme Privacy' };
const member = { name: 'Max Member', email: `max-${suffix}@example.com`, org: 'Max Sandbox' };

let browser: Browser;
let page: Page;
// Filled in as the journey goes.
let workspaceApiKey = '';
let pat = '';
let requestId = '';
const identifier = `jane.doe+${suffix}@example.com`;

beforeAll(async () => {
  browser = await launchBrowser();
  ({ page } = await newPage(browser, baseUrl()));
  page.on('console', (message) => message.type() === 'error' && console.error(`[browser] ${message.text()}`));
});
afterEach(async (context) => {
  // What the screen showed when a step failed, next to the other screenshots.
  if (context.task.result?.state === 'fail')
    await screenshot(page, `failed-${context.task.name.replace(/\W+/g, '-')}`).catch(() => {});
});
afterAll(async () => {
  await browser?.close();
});

/** A link of the main navigation (the brand link also says "Requests"). */

describe('a new owner sets up and tracks a deletion request', () => {
  it('sends a signed-out visitor to sign in, keeping the deep link', async () => {
    await page.goto('/requests?status=FAILED');
    await page.waitForURL(/\/sign-in\?next=/);
    expect(decodeURIComponent(new URL(page.url()).searchParams.get('next') ?? '')).toBe('/requests?status=FAILED');
    await screenshot(page, '01-sign-in');
  });

  it('lets browsers keep the hashed assets, and revalidate the page that names them', async () => {
    // The Requests page is rendered for its viewer (server/src/http/requests-page.ts): never stored.
    for (const [pathname, caching] of [
      ['/', 'no-cache'],
      ['/requests', 'no-store'],
    ]) {
      const html = await fetch(`${baseUrl()}${pathname}`);
      expect(html.headers.get('cache-control')).toBe(caching);
      const script = /src="(\/assets\/[^"]+\.js)"/.exec(await html.text())?.[1];
      expect(script).toBeTruthy();
      const asset = await fetch(`${baseUrl()}${script}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    }
  });

  it('validates the sign-up form with the shared schema before calling the server', async () => {
    await page.goto('/sign-up');
    await page.getByLabel('Work email').fill('not-an-email');
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect(page.getByText('Enter a valid email address').isVisible()).resolves.toBe(true);
    await expect(page.getByText('Use at least 10 characters').isVisible()).resolves.toBe(true);
    expect(await page.getByLabel('Password').getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, '02-sign-up-validation');
  });

  it('signs up and creates a workspace, then reveals its key', async () => {
    await signUp(page, owner);
    // The Overview's setup checklist leads to each first step.
    await page.getByRole('region', { name: 'Get started' }).getByRole('link', { name: 'Create a workspace' }).click();
    await page.getByRole('heading', { name: 'Workspaces', level: 1 }).waitFor();
    await page.getByLabel('Workspace name').fill('Production');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    const card = page.getByRole('article', { name: 'Production' });
    await card.waitFor();
    await card.getByRole('button', { name: 'Reveal' }).click();
    workspaceApiKey = (await card.getByLabel('Workspace API key').textContent())?.trim() ?? '';
    expect(workspaceApiKey.length).toBeGreaterThan(20);
    await screenshot(page, '03-workspaces');
  });

  it('creates a personal access token that is shown once', async () => {
    await nav(page, 'Access tokens').click();
    await page.getByLabel('Token name').fill('CRM sync');
    await page.getByRole('button', { name: 'Create token' }).click();
    pat = (await page.getByLabel('New personal access token').textContent())?.trim() ?? '';
    expect(pat.length).toBeGreaterThan(20);
    await expect(page.getByText('It is shown only this once').isVisible()).resolves.toBe(true);
    await page.getByRole('row', { name: /CRM sync/ }).waitFor();
    await screenshot(page, '04-tokens');
  });

  it('creates a token limited to a scope and a workspace, shows its limits, and the API enforces them', async () => {
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByLabel('Token name').fill('Read only');
    await page.getByRole('checkbox', { name: /requests:read/ }).check();
    await page.getByRole('checkbox', { name: 'Production' }).check();
    await page.getByRole('button', { name: 'Create token' }).click();
    const readOnly = (await page.getByLabel('New personal access token').textContent())?.trim() ?? '';
    const row = page.getByRole('row', { name: /Read only/ });
    await row.getByText('requests:read').waitFor();
    await row.getByText('Production').waitFor();
    await screenshot(page, '04b-scoped-token');
    const refused = await publicApi('POST', '/deletion-requests', readOnly, {
      workspaceApiKey,
      identifier: 'scoped@example.com',
    });
    expect(refused.status).toBe(403);
    expect(String(refused.body?.message)).toContain('requests:write');
    await page.getByRole('button', { name: 'I have copied it' }).click();
  });

  it('shows a request created through the public API in the list without reloading', async () => {
    await nav(page, 'Requests').click();
    await page.getByText('No deletion requests yet').waitFor();
    const navigations: string[] = [];
    page.on('framenavigated', (frame) => frame === page.mainFrame() && navigations.push(frame.url()));

    const created = await publicApi('POST', '/deletion-requests', pat, { workspaceApiKey, identifier });
    expect(created.status).toBe(201);
    requestId = String(created.body?.id);

    const row = page.locator(`tr[data-request-id="${requestId}"]`);
    await row.waitFor({ timeout: 15_000 });
    // Masked until someone asks; "Reveal" shows it (audited), "Hide" masks it again.
    expect(await row.getByRole('link').textContent()).toBe(maskIdentifier(identifier));
    expect(await row.textContent()).not.toContain(identifier);
    await row.getByRole('button', { name: 'Reveal' }).click();
    await row.getByRole('link', { name: identifier }).waitFor();
    await row.getByRole('button', { name: 'Hide' }).click();
    await row.getByRole('link', { name: maskIdentifier(identifier) }).waitFor();
    expect(navigations).toEqual([]);
    await expect(row.textContent()).resolves.toContain('Olivia Owner');
    await screenshot(page, '05-requests');
  });

  it('finds the request by its exact identifier only', async () => {
    await page.getByLabel('Identifier (exact match)').fill(`  ${identifier} `);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator(`tr[data-request-id="${requestId}"]`).waitFor();
    await page.getByText('No request matches these filters').waitFor({ state: 'detached' });
    // The search is in the history entry's state and a POST body, never in the address bar.
    expect(page.url()).not.toContain(encodeURIComponent(identifier));
    expect(page.url()).not.toContain(identifier);
    // Typed and searched again if a live refresh of the list lands between the typing and the click.
    await expect
      .poll(
        async () => {
          await page.getByLabel('Identifier (exact match)').fill(identifier.slice(0, 8));
          await page.getByRole('button', { name: 'Search' }).click();
          return page
            .getByText('No request matches these filters')
            .waitFor({ timeout: 4_000 })
            .then(() => true)
            .catch(() => false);
        },
        { timeout: 20_000 },
      )
      .toBe(true);
    await page.getByRole('button', { name: 'Clear the filters' }).click();
    await page.locator(`tr[data-request-id="${requestId}"]`).waitFor();
  });

  it('opens the request detail with its audit trail, and the deep link survives a reload', async () => {
    await page.locator(`tr[data-request-id="${requestId}"]`).getByRole('link').click();
    await page.waitForURL(`**/requests/${requestId}`);
    await page.getByRole('heading', { name: maskIdentifier(identifier) }).waitFor();
    expect(await page.title()).toBe(`Request ${requestId} · Deletion Requests`);
    await page.getByRole('button', { name: 'Reveal' }).click();
    await page.getByRole('heading', { name: identifier }).waitFor();
    expect(await page.title()).not.toContain(identifier);
    await page.getByText('Identifier revealed').first().waitFor();
    await page.getByText('Request created').first().waitFor();
    await screenshot(page, '06-request-detail');
    // The workspace has no integration yet: retrying says so in the server's words.
    await page.getByRole('button', { name: 'Retry as submitted', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'no enabled integrations' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: maskIdentifier(identifier) }).waitFor();
    await expect(page.getByText(requestId).first().isVisible()).resolves.toBe(true);
  });

  it('creates a request from the dashboard', async () => {
    await page.goto('/requests/new');
    await page.getByRole('button', { name: 'Create request' }).click();
    await page.getByText('Enter an identifier').waitFor();
    // Focus lands on the field to fix.
    // Focus moves on the next animation frame after the errors render: wait for it.
    await expect
      .poll(() => page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name))
      .toBe('identifier');
    await page.getByLabel('Identifier').fill(`user-${suffix}`);
    await page.getByRole('button', { name: 'Create request' }).click();
    await page.getByRole('heading', { name: maskIdentifier(`user-${suffix}`) }).waitFor();
  });

  it('charts the overview', async () => {
    await nav(page, 'Overview').click();
    await page.getByRole('heading', { name: 'Requests per day' }).waitFor();
    await expect(page.locator('.tile').first().textContent()).resolves.toContain('2');
    await screenshot(page, '07-overview');
  });

  it('lists integrations and accounts (none yet)', async () => {
    await nav(page, 'Integrations').click();
    await page.getByText('No integrations yet').waitFor();
    await screenshot(page, '13-integrations');
    await nav(page, 'Accounts').click();
    await page.getByText('No accounts yet').waitFor();
    await screenshot(page, '14-accounts');
  });

  it('shows organization settings and the audit log', async () => {
    await nav(page, 'Organization').click();
    await page.getByLabel('Organization name').waitFor();
    await screenshot(page, '08-organization');
    await nav(page, 'Audit log').click();
    await page.getByText(/Audit chain verified: \d+ entr(y|ies) sealed, \d+ awaiting sealing/).waitFor();
    await page.locator('.timeline').getByText('Access token created').first().waitFor();
    await page.locator('.timeline').getByText('Workspace API key revealed').first().waitFor();
    await screenshot(page, '09-audit-log');
  });

  it('warns when a sealed audit entry was altered in the database, naming it, until it is restored', async () => {
    const db = await connectAppDatabase();
    try {
      // The workers seal new entries every second here (AUDIT_SEAL_INTERVAL_MS): wait for the organization's first sealed one.
      let first: { id: string; summary: string } | undefined;
      for (const deadline = Date.now() + 45_000; !first && Date.now() < deadline;) {
        const { rows } = await db.query<{ id: string; summary: string }>(
          `SELECT a.id::text AS id, a.summary FROM "AuditLog" a JOIN "Membership" m ON m."organizationId" = a."organizationId"
             JOIN "User" u ON u.id = m."userId" WHERE u.email = $1 AND a."chainSeq" = 1`,
          [owner.email],
        );
        first = rows[0];
        if (!first) await new Promise((r) => setTimeout(r, 500));
      }
      expect(first, 'no audit entry was sealed within 45 s').toBeDefined();
      // What someone with superuser rights could do: bypass the append-only trigger.
      const rewrite = (summary: string) =>
        db.query(
          `BEGIN; SET LOCAL session_replication_role = replica; UPDATE "AuditLog" SET summary = ${db.escapeLiteral(summary)} WHERE id = ${Number(first!.id)}; COMMIT`,
        );
      await rewrite('nothing happened');
      try {
        await page.getByRole('button', { name: 'Verify again' }).click();
        const alert = page.getByRole('alert').filter({ hasText: `Audit chain broken at entry ${first!.id}` });
        await alert.waitFor();
        expect(await alert.textContent()).toContain('(chain position 1): hash does not match');
        await screenshot(page, '29-audit-chain-broken');
      } finally {
        await rewrite(first!.summary);
      }
      await page.getByRole('button', { name: 'Verify again' }).click();
      await page.getByText(/Audit chain verified: \d+ entr(y|ies) sealed/).waitFor();
    } finally {
      await db.end();
    }
  });

  it('reads well at phone width', async () => {
    const phone = await browser.newContext({
      baseURL: baseUrl(),
      viewport: PHONE,
      storageState: await page.context().storageState(),
    });
    recordVisitedUrls(phone);
    const phonePage = await phone.newPage();
    await phonePage.goto('/requests');
    await phonePage.locator(`tr[data-request-id="${requestId}"]`).waitFor();
    const overflow = await phonePage.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    await screenshot(phonePage, '10-requests-phone');
    await phonePage.goto('/');
    await phonePage.getByRole('heading', { name: 'Requests per day' }).waitFor();
    await screenshot(phonePage, '11-overview-phone');
    await phone.close();
  });

  it('revokes the token, after which the public API refuses it', async () => {
    await page.goto('/settings/tokens');
    const row = page.getByRole('row', { name: /CRM sync/ });
    await row.getByRole('button', { name: /Revoke/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('gets 401 Unauthorized').waitFor();
    await dialog.getByRole('button', { name: 'Revoke token' }).click();
    await row.getByText('Revoked').waitFor();
    const refused = await publicApi('POST', '/deletion-requests', pat, {
      workspaceApiKey,
      identifier: 'after-revoke@example.com',
    });
    expect(refused.status).toBe(401);
  });

  it("shows the server's own message when sign-in fails", async () => {
    const { context, page: fresh } = await newPage(browser, baseUrl());
    await fresh.goto('/sign-in');
    await fresh.getByLabel('Email').fill(owner.email);
    await fresh.getByLabel('Password').fill('not the right password');
    await fresh.getByRole('button', { name: 'Sign in' }).click();
    const alert = fresh.locator('.form-error');
    await alert.waitFor();
    expect(await alert.textContent()).not.toMatch(/transform|unknown/i);
    await context.close();
  });
});

describe('a member of the organization', () => {
  it('switches to the organization and sees no admin actions', async () => {
    const { context, page: memberPage } = await newPage(browser, baseUrl());
    await signUp(memberPage, member);
    const db = await connectAppDatabase();
    try {
      const { rows } = await db.query<{ orgId: string; userId: string }>(
        `SELECT m."organizationId" AS "orgId", u.id AS "userId"
           FROM "User" u, "Membership" m JOIN "User" o ON o.id = m."userId"
          WHERE u.email = $1 AND o.email = $2`,
        [member.email, owner.email],
      );
      const target = rows[0]!;
      await db.query(
        `INSERT INTO "Membership" (id, "userId", "organizationId", role) VALUES ($1, $2, $3, 'MEMBER') ON CONFLICT DO NOTHING`,
        [`mem_e2e${suffix}`, target.userId, target.orgId],
      );
    } finally {
      await db.end();
    }
    await memberPage.reload();
    await memberPage.getByLabel('Organization').selectOption({ label: `${owner.org} (member)` });
    // The member's own Overview is on screen before the switch too: wait for the role the switch
    // brings, or a click on Workspaces can land before the switch and be taken back to the Overview.
    await memberPage.locator('.org-switcher .role', { hasText: /^member$/ }).waitFor();
    await memberPage.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();

    await nav(memberPage, 'Workspaces').click();
    const card = memberPage.getByRole('article', { name: 'Production' });
    await card.waitFor();
    await memberPage.getByText('Only owners and admins can create and change workspaces').waitFor();
    for (const action of ['Reveal', 'Rotate key', 'Rename', 'Delete']) {
      expect(await card.getByRole('button', { name: action }).count()).toBe(0);
    }
    expect(await memberPage.getByRole('button', { name: 'Create workspace' }).count()).toBe(0);
    expect(await nav(memberPage, 'Audit log').count()).toBe(0);
    expect(await nav(memberPage, 'Accounts').count()).toBe(0);
    await screenshot(memberPage, '12-member-workspaces');

    await memberPage.goto('/organization/audit-log');
    await memberPage.getByText('Only owners and admins can read the organization audit log').waitFor();
    await memberPage.goto('/organization');
    expect(await memberPage.getByRole('button', { name: 'Save name' }).count()).toBe(0);

    // Members still see and create requests.
    await memberPage.goto('/requests');
    await memberPage.locator(`tr[data-request-id="${requestId}"]`).waitFor();
    await context.close();
  });
});
