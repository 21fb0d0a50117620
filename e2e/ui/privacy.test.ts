import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { maskIdentifier } from '@shared/mask-identifier';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { baseUrl, connectAppDatabase, publicApi } from '../support/app';
import { launchBrowser, newPage, visitedUrlsFile } from '../support/browser';
import { createWorkspace, signUp } from '../support/onboarding';

/**
 * Personal data stays in its place: after a member searches for subjects, opens and reveals
 * them, and a partner creates requests through the API, no identifier used in this run (by
 * this file or any suite before it) is in the server's log, in any URL a browser loaded or
 * showed, or in a document title.
 */

const suffix = randomBytes(3).toString('hex');
const fromDashboard = `dana.subject+${suffix}@example.com`;
const fromApi = `api-subject-${suffix}`;
const neverCreated = `nobody+${suffix}@example.org`;

let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser();
  ({ page } = await newPage(browser, baseUrl()));
});
afterAll(async () => {
  await browser?.close();
});

/** Every way an identifier can be written into a URL or a log line. */
function spellings(identifier: string): string[] {
  return [
    ...new Set([
      identifier,
      encodeURIComponent(identifier),
      encodeURI(identifier),
      identifier.replace('@', '%40'),
      JSON.stringify(identifier).slice(1, -1),
    ]),
  ];
}

describe('identifiers stay out of URLs, logs and titles', () => {
  it('searches, opens and reveals subjects in the dashboard', async () => {
    await signUp(page, { name: 'Pia Privacy', email: `pia-${suffix}@example.com`, org: `Privacy ${suffix}` });
    await createWorkspace(page, 'Production');

    await page.goto('/requests/new');
    await page.getByLabel('Identifier').fill(fromDashboard);
    await page.getByRole('button', { name: 'Create request' }).click();
    await page.getByRole('heading', { name: maskIdentifier(fromDashboard) }).waitFor();
    await page.getByRole('button', { name: 'Reveal' }).click();
    await page.getByRole('heading', { name: fromDashboard }).waitFor();
    expect(await page.title()).toMatch(/^Request dr_/);

    await page.goto('/requests');
    for (const identifier of [fromDashboard, neverCreated]) {
      await page.getByLabel('Identifier (exact match)').fill(identifier);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForResponse(
        (r) => r.url().includes('dashboard.searchRequests') && r.request().method() === 'POST',
      );
    }
    await page.getByText('No request matches these filters').waitFor();
    await page.goBack().catch(() => {});
    await page.reload();
  });

  it('a partner creates and lists requests through the public API', async () => {
    const workspaceApiKey = await page.evaluate(async () => {
      const created = await fetch('/trpc/workspaces.create', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'API' }),
      });
      return ((await created.json()) as { result: { data: { apiKey: string } } }).result.data.apiKey;
    });
    const pat = await page.evaluate(async () => {
      const created = await fetch('/trpc/tokens.create', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'privacy check' }),
      });
      return ((await created.json()) as { result: { data: { token: string } } }).result.data.token;
    });
    expect((await publicApi('POST', '/deletion-requests', pat, { workspaceApiKey, identifier: fromApi })).status).toBe(
      201,
    );
    expect((await publicApi('GET', '/deletion-requests/organization', pat)).status).toBe(200);
  });

  it('finds none of them in the server log, the URLs the browsers visited or the titles they showed', async () => {
    const db = await connectAppDatabase();
    const stored = await db.query<{ identifier: string }>(
      'SELECT identifier FROM "DeletionRequest" WHERE identifier IS NOT NULL AND NOT hashed',
    );
    await db.end();
    const identifiers = [...new Set([fromDashboard, fromApi, neverCreated, ...stored.rows.map((r) => r.identifier)])];
    expect(stored.rows.map((r) => r.identifier)).toEqual(expect.arrayContaining([fromDashboard, fromApi]));
    // Give the server a moment to write the last request lines.
    await new Promise((r) => setTimeout(r, 500));
    const serverLog = fs.readFileSync(path.join(inject('dataDir'), 'server.log'), 'utf8');
    const visited = fs.readFileSync(visitedUrlsFile(), 'utf8');
    expect(serverLog).toContain('"msg":"request"');
    expect(visited).toContain('/requests');
    const hits: string[] = [];
    for (const identifier of identifiers) {
      for (const spelling of spellings(identifier)) {
        if (serverLog.includes(spelling)) hits.push(`server log: ${spelling}`);
        for (const line of visited.split('\n'))
          if (line.includes(spelling)) hits.push(`browser: ${line.slice(0, 200)}`);
      }
    }
    expect(hits).toEqual([]);
  });
});
