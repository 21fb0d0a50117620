import { randomBytes } from 'node:crypto';
import { maskIdentifier } from '@shared/mask-identifier';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { baseUrl, connectAppDatabase, pageMutation } from '../support/app';
import { launchBrowser, newPage } from '../support/browser';
import { sentMails } from '../support/mail-sink';
import { createWorkspace, signUp } from '../support/onboarding';

/**
 * A system without an API: the owner of a manual integration gets the task by email (a real
 * SMTP server on loopback), opens its link without an account, answers Done with a file, and
 * the request finishes with a person's confirmation; the spent link shows nothing.
 */

const suffix = randomBytes(3).toString('hex');
const subject = `mona.subject+${suffix}@example.com`;
const owner = `crm-owner-${suffix}@vendor.example`;
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

let browser: Browser;
let member: Page;

beforeAll(async () => {
  browser = await launchBrowser();
  ({ page: member } = await newPage(browser, baseUrl()));
});
afterAll(async () => {
  await browser?.close();
});

const GONE = /This task link no longer opens/;

describe('manual integrations', () => {
  it('mails the owner a task link that works without signing in, once', async () => {
    const org = `Manual ${suffix}`;
    await signUp(member, { name: 'Max Manual', email: `max-${suffix}@example.com`, org });
    await createWorkspace(member, 'Production');
    const db = await connectAppDatabase();
    const { rows } = await db.query<{ id: string }>(
      'SELECT w.id FROM "Workspace" w JOIN "Organization" o ON o.id = w."organizationId" WHERE o.name = $1',
      [org],
    );
    await db.end();
    await pageMutation(member, 'integrations.create', {
      workspaceId: rows[0]!.id,
      name: 'Legacy CRM',
      type: 'MANUAL',
      config: { owners: [owner], instructions: 'Find {{email}} in the CRM and delete the contact.', daysToComplete: 5 },
    });

    await member.goto('/requests/new');
    await member.getByLabel('Identifier').fill(subject);
    await member.getByRole('button', { name: 'Create request' }).click();
    await member.getByRole('heading', { name: maskIdentifier(subject) }).waitFor();
    const requestUrl = member.url();

    // The owner's email reaches the loopback SMTP server, with a link and no identifier.
    const mailFile = inject('mailFile');
    await expect.poll(() => sentMails(mailFile).some((m) => m.to.includes(owner)), { timeout: 30_000 }).toBe(true);
    const mail = sentMails(mailFile).find((m) => m.to.includes(owner))!;
    expect(mail.subject).toBe('Deletion task: Legacy CRM');
    expect(mail.text).not.toContain(subject);
    const link = /(http\S+\/task#token=\S+)/.exec(mail.text)![1]!;

    // A browser with no session opens it.
    const { context: ownerContext, page: ownerPage } = await newPage(browser, baseUrl());
    await ownerPage.goto(link);
    await ownerPage.getByRole('heading', { name: 'Deletion task' }).waitFor();
    await ownerPage.getByText(maskIdentifier(subject), { exact: true }).waitFor();
    await ownerPage.getByRole('button', { name: 'Show email', exact: true }).click();
    await ownerPage.getByText(`Find ${subject} in the CRM and delete the contact.`).waitFor();
    await ownerPage.getByLabel('Done', { exact: true }).check();
    await ownerPage.getByLabel('What was deleted').fill('Contact and its notes deleted');
    await ownerPage
      .locator('input[type=file]')
      .setInputFiles({ name: 'deletion.pdf', mimeType: 'application/pdf', buffer: PDF });
    await ownerPage.getByRole('button', { name: 'Send answer' }).click();
    await ownerPage.getByText('your answer was recorded').waitFor();
    await ownerContext.close();

    // The request reaches SUCCESS; its page, audit trail and certificate show a person's confirmation.
    await expect
      .poll(
        async () => {
          await member.goto(requestUrl);
          await member.getByRole('heading', { name: 'Manual tasks' }).waitFor();
          return member.getByText('Confirmed by a person', { exact: true }).count();
        },
        { timeout: 30_000, interval: 1_000 },
      )
      .toBeGreaterThan(0);
    await expect.poll(() => member.getByText('Success').first().isVisible(), { timeout: 30_000 }).toBe(true);
    await member
      .getByText(/Done: confirmed by a person/)
      .first()
      .waitFor();
    const requestId = requestUrl.split('/').pop()!;
    const certificate = await member.evaluate(async (id) => {
      const response = await fetch(`/api/downloads/certificates/${id}.json`);
      return response.text();
    }, requestId);
    expect(certificate).toContain('confirmed by a person');
    expect(certificate).toContain('MANUAL');

    // The spent link: a page saying so, with nothing of the request.
    const { context: again, page: reused } = await newPage(browser, baseUrl());
    await reused.goto(link);
    await reused.getByText(GONE).waitFor();
    const body = await reused.locator('body').innerText();
    expect(body).not.toContain('Legacy CRM');
    expect(body).not.toContain(maskIdentifier(subject));
    expect(body).not.toContain(requestId);
    await again.close();
  });
});
