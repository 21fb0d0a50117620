import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestWorker, waitForRequest } from '../../test/engine';
import { startSlackWebhook } from '../../test/fakes/slack-webhook';
import { startSmtpSink, toAddresses } from '../../test/fakes/smtp-sink';
import { startWebhookServer } from '../../test/fakes/webhook-server';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';
import { DAY_MS } from '@shared/days-left';
import { buildDigest } from './digest';
import { NOTICE_SETTLE_MS, runNotifications } from './notify';

let env: TestEnv;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let slack: Awaited<ReturnType<typeof startSlackWebhook>>;
let org: Awaited<ReturnType<typeof seedOrganization>>;

beforeAll(async () => {
  smtp = await startSmtpSink();
  slack = await startSlackWebhook();
  env = await createTestEnv({
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(smtp.port),
    SMTP_FROM: 'Deletions <no-reply@example.test>',
    MAX_ATTEMPTS: '1',
  });
  org = await seedOrganization(env.deps, 'notify');
});
afterAll(async () => {
  await env?.close();
  await smtp?.close();
  await slack?.close();
});

const linkToken = (text: string, page: string) => {
  const match = new RegExp(`${page}#token=([A-Za-z0-9_-]+)`).exec(text);
  if (!match) throw new Error(`no ${page} link in: ${text}`);
  return match[1]!;
};

describe('password reset by email', () => {
  it('mails a single-use link; the new password works, the old one and the used link do not, and sessions end', async () => {
    const { caller } = callerFor(env.deps);
    const session = await caller.auth.signIn({ email: org.email, password: 'correct horse battery staple' });
    expect(session.userId).toBe(org.user.id);
    const sessionsBefore = await env.deps.prisma.session.count({ where: { userId: org.user.id } });
    expect(sessionsBefore).toBeGreaterThan(0);

    await expect(caller.auth.requestPasswordReset({ email: org.email.toUpperCase() })).resolves.toEqual({ ok: true });
    const mail = await smtp.waitFor((m) => m.subject === 'Reset your password' && toAddresses(m).includes(org.email));
    expect(mail.from?.value[0]?.address).toBe('no-reply@example.test');
    const token = linkToken(mail.text ?? '', '/reset-password');
    // Only the hash is stored.
    const stored = await env.deps.prisma.userToken.findFirstOrThrow({
      where: { userId: org.user.id, purpose: 'password_reset' },
    });
    expect(stored.tokenHash).not.toContain(token);

    await caller.auth.resetPassword({ token, password: 'a brand new passphrase' });
    expect(await env.deps.prisma.session.count({ where: { userId: org.user.id } })).toBe(0);
    await expect(
      caller.auth.signIn({ email: org.email, password: 'correct horse battery staple' }),
    ).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(caller.auth.signIn({ email: org.email, password: 'a brand new passphrase' })).resolves.toMatchObject({
      userId: org.user.id,
    });
    await expect(caller.auth.resetPassword({ token, password: 'yet another passphrase' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
  });

  it('answers the same for an unknown address and sends nothing; an expired link is refused', async () => {
    const before = smtp.messages.length;
    await expect(
      callerFor(env.deps).caller.auth.requestPasswordReset({ email: 'nobody@example.com' }),
    ).resolves.toEqual({ ok: true });
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.messages.slice(before).filter((m) => toAddresses(m).includes('nobody@example.com'))).toEqual([]);

    const other = await seedOrganization(env.deps, 'expiry');
    await callerFor(env.deps).caller.auth.requestPasswordReset({ email: other.email });
    const token = linkToken(
      (await smtp.waitFor((m) => toAddresses(m).includes(other.email))).text ?? '',
      '/reset-password',
    );
    await env.deps.prisma.userToken.updateMany({
      where: { userId: other.user.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    await expect(
      callerFor(env.deps).caller.auth.resetPassword({ token, password: 'a brand new passphrase' }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringContaining('expired'),
    });
  });

  it('mails at most three links an hour to one account', async () => {
    const other = await seedOrganization(env.deps, 'limit');
    for (let i = 0; i < 5; i++) await callerFor(env.deps).caller.auth.requestPasswordReset({ email: other.email });
    await smtp.waitFor((m) => toAddresses(m).includes(other.email));
    await new Promise((r) => setTimeout(r, 500));
    expect(smtp.messages.filter((m) => toAddresses(m).includes(other.email))).toHaveLength(3);
  });
});

describe('email verification at sign-up', () => {
  it('mails a link that marks the address verified', async () => {
    const { caller } = callerFor(env.deps);
    const email = `signup-${Date.now()}@example.com`;
    await caller.auth.signUp({
      email,
      password: 'a long enough passphrase',
      name: 'New User',
      organizationName: 'New Org',
    });
    expect((await caller.auth.me()).user.emailVerified).toBe(false);
    const mail = await smtp.waitFor(
      (m) => m.subject === 'Confirm your email address' && toAddresses(m).includes(email),
    );
    await caller.auth.verifyEmail({ token: linkToken(mail.text ?? '', '/verify-email') });
    expect((await caller.auth.me()).user.emailVerified).toBe(true);
  });
});

/** Notifications are read once their entries have settled: a pass a little later than that. */
const later = () => new Date(Date.now() + NOTICE_SETTLE_MS + 1_000);
const off = { email: false, slack: false };

/** Runs the request through a worker until it is finished, then closes its destination. */
async function runToEnd(requestId: string, destination: { close(): Promise<void> }) {
  const worker = await startTestWorker(env);
  try {
    await waitForRequest(env, requestId);
  } finally {
    await worker.stop();
    await destination.close();
  }
}

/** A new organization whose one integration, `name`, is a webhook that refuses every deletion (422). */
async function organizationWithRefusingWebhook(slug: string, name: string) {
  const fresh = await seedOrganization(env.deps, slug);
  const owner = callerFor(env.deps, { pat: fresh.pat }).caller;
  const destination = await startWebhookServer();
  destination.on('POST /erase', () => ({ status: 422, body: { error: 'refused' } }));
  await owner.integrations.create({
    workspaceId: fresh.workspace.id,
    name,
    type: 'WEBHOOK',
    config: { initiate: { url: `${destination.url}/erase` } },
  });
  return { fresh, owner, destination };
}

/** The notifier's dependencies with a mail server that refuses connections (a port nothing listens on). */
async function withMailServerDown() {
  const closed = await startSmtpSink();
  await closed.close();
  return { ...env.deps, config: { ...env.deps.config, SMTP_PORT: closed.port } };
}

describe('notifications by email and Slack', () => {
  it('tells the chosen channels that an integration failed, without the subject identifier', async () => {
    const owner = callerFor(env.deps, { pat: org.pat }).caller;
    const destination = await startWebhookServer();
    // The destination echoes the identifier in its error, as real systems do.
    destination.on('POST /erase', (call) => ({
      status: 422,
      body: { error: `unknown user ${JSON.parse(call.body).user}` },
    }));
    await owner.integrations.create({
      workspaceId: org.workspace.id,
      name: 'Billing',
      type: 'WEBHOOK',
      config: { initiate: { url: `${destination.url}/erase`, body: '{"user": "{{identifier}}"}' } },
    });
    await owner.notifications.update({
      events: {
        integration_failed: { email: true, slack: true },
        credentials_failing: { email: true, slack: true },
        deadline_digest: { email: false, slack: false },
        request_completed: { email: false, slack: false },
        data_reappeared: { email: true, slack: true },
      },
      emailRecipients: ['privacy-team@example.com'],
      slackWebhookUrl: slack.url,
    });
    const settings = await owner.notifications.settings();
    expect(JSON.stringify(settings)).not.toContain(slack.url);
    expect(settings.slackWebhookHint).toMatch(/^127\.0\.0\.1:\d+\/…/);

    const identifier = 'secret.subject@example.com';
    const request = await owner.deletionRequests.createInWorkspace({ workspaceId: org.workspace.id, identifier });
    await runToEnd(request.id, destination);
    // Entries settle first (one numbered earlier may still be committing): nothing yet.
    expect((await runNotifications(env.deps)).sent).toBe(0);
    const result = await runNotifications(env.deps, later());
    expect(result.sent).toBe(2);
    const mail = await smtp.waitFor((m) => toAddresses(m).includes('privacy-team@example.com'));
    expect(mail.subject).toBe(`Billing failed for request ${request.id}`);
    expect(mail.text).toContain(`http://localhost:3000/requests/${request.id}`);
    expect(mail.text).toContain('Reason:');
    expect(slack.messages).toHaveLength(1);
    expect(slack.messages[0]?.text).toContain(request.id);
    for (const text of [mail.subject ?? '', mail.text ?? '', slack.messages[0]?.text ?? ''])
      expect(text).not.toContain(identifier);
    // Nothing is sent twice: the cursor moved past the entry.
    expect((await runNotifications(env.deps, later())).sent).toBe(0);
  });

  it('keeps a notice that no channel took (Slack down) for the next pass, and sends it once Slack answers', async () => {
    const { fresh, owner, destination } = await organizationWithRefusingWebhook('notify-outage', 'Ledger');
    const down = await startSlackWebhook();
    const events = {
      integration_failed: { email: false, slack: true },
      credentials_failing: off,
      deadline_digest: off,
      request_completed: off,
      data_reappeared: off,
    };
    await owner.notifications.update({ events, emailRecipients: [], slackWebhookUrl: down.url });
    await down.close(); // Slack refuses connections from now on
    const request = await owner.deletionRequests.createInWorkspace({
      workspaceId: fresh.workspace.id,
      identifier: 'outage@example.com',
    });
    await runToEnd(request.id, destination);
    const cursor = async () =>
      (
        await env.deps.prisma.notificationSettings.findUniqueOrThrow({
          where: { organizationId: fresh.organization.id },
        })
      ).auditCursor;
    const before = await cursor();
    expect((await runNotifications(env.deps, later())).sent).toBe(0);
    expect(await cursor()).toBe(before);
    // Slack answers again (here: a new webhook URL saved in the settings).
    const back = await startSlackWebhook();
    try {
      await owner.notifications.update({ events, emailRecipients: [], slackWebhookUrl: back.url });
      await runNotifications(env.deps, later());
      expect(back.messages.map((m) => m.text).filter((t) => t?.includes(request.id))).toHaveLength(1);
      expect(await cursor()).toBeGreaterThan(before);
      // Sent once.
      await runNotifications(env.deps, later());
      expect(back.messages.filter((m) => m.text?.includes(request.id))).toHaveLength(1);
    } finally {
      await back.close();
    }
  });

  it('holds a notice and the digest only on the channel that is down: Slack has them at once, email once the mail server answers', async () => {
    const { fresh, owner, destination } = await organizationWithRefusingWebhook('notify-channels', 'Archive');
    const both = { email: true, slack: true };
    const recipient = 'channels-team@example.com';
    await owner.notifications.update({
      events: {
        integration_failed: both,
        credentials_failing: off,
        deadline_digest: both,
        request_completed: off,
        data_reappeared: off,
      },
      emailRecipients: [recipient],
      slackWebhookUrl: slack.url,
    });
    const request = await owner.deletionRequests.createInWorkspace({
      workspaceId: fresh.workspace.id,
      identifier: 'channels@example.com',
    });
    await runToEnd(request.id, destination);
    // Past its deadline, so the digest has something to say.
    await env.deps.prisma.deletionRequest.update({
      where: { id: request.id },
      data: { dueAt: new Date(Date.now() - 86_400_000) },
    });
    const failedNotice = `Archive failed for request ${request.id}`;
    const onSlack = (prefix: string) => slack.messages.filter((m) => m.text?.startsWith(`*${prefix}`)).length;
    const mailed = (prefix: string) =>
      smtp.messages.filter((m) => toAddresses(m).includes(recipient) && m.subject?.startsWith(prefix)).length;

    // The digest goes once per UTC day: every pass below falls on one day (run just before
    // midnight, the last pass would be the next day's, with a digest of its own).
    const span = 16 * 60_000;
    let start = later().getTime();
    if (Math.floor((start + span) / DAY_MS) !== Math.floor(start / DAY_MS))
      start = (Math.floor(start / DAY_MS) + 1) * DAY_MS + 1_000;

    const mailDown = await withMailServerDown();
    await runNotifications(mailDown, new Date(start));
    expect(onSlack(failedNotice)).toBe(1);
    expect(slack.messages.filter((m) => m.text?.includes('Deadlines:') && m.text.includes(request.id))).toHaveLength(1);
    expect(mailed(failedNotice)).toBe(0);
    expect(mailed('Deadlines:')).toBe(0);

    // The mail server answers again: email has both (the digest once its retry is due), Slack nothing twice.
    const retryDue = new Date(start + span);
    await runNotifications(env.deps, new Date(start + 1_000));
    expect(mailed('Deadlines:')).toBe(0);
    await runNotifications(env.deps, retryDue);
    await smtp.waitFor((m) => toAddresses(m).includes(recipient) && m.subject === failedNotice);
    await smtp.waitFor((m) => toAddresses(m).includes(recipient) && !!m.subject?.startsWith('Deadlines:'));
    await runNotifications(env.deps, retryDue);
    expect(mailed(failedNotice)).toBe(1);
    expect(mailed('Deadlines:')).toBe(1);
    expect(onSlack(failedNotice)).toBe(1);
    expect(slack.messages.filter((m) => m.text?.includes('Deadlines:') && m.text.includes(request.id))).toHaveLength(1);
  });

  it('a channel that is down does not hold the other beyond one batch: Slack reads on past 200 notices while email waits', async () => {
    const fresh = await seedOrganization(env.deps, 'notify-batches');
    const owner = callerFor(env.deps, { pat: fresh.pat }).caller;
    await owner.notifications.update({
      events: {
        integration_failed: off,
        credentials_failing: off,
        deadline_digest: off,
        request_completed: { email: true, slack: true },
        data_reappeared: off,
      },
      emailRecipients: ['batches-team@example.com'],
      slackWebhookUrl: slack.url,
    });
    // More "request completed" entries than one batch reads.
    const request = await owner.deletionRequests.createInWorkspace({
      workspaceId: fresh.workspace.id,
      identifier: 'batches@example.com',
    });
    const total = 250;
    await env.deps.prisma.auditLog.createMany({
      data: Array.from({ length: total }, () => ({
        organizationId: fresh.organization.id,
        actorType: 'system',
        action: 'request.completed',
        outcome: 'SUCCESS',
        summary: 'Request completed',
        deletionRequestId: request.id,
      })),
    });
    const mailDown = await withMailServerDown();
    const completed = () => slack.messages.filter((m) => m.text?.includes(`Deletion request ${request.id} completed`));
    await runNotifications(mailDown, later());
    await runNotifications(mailDown, later());
    expect(completed()).toHaveLength(total);
    expect(smtp.messages.filter((m) => toAddresses(m).includes('batches-team@example.com'))).toHaveLength(0);
  });

  it('sends the daily digest of overdue requests once per day', async () => {
    const owner = callerFor(env.deps, { pat: org.pat }).caller;
    const request = await owner.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'late@example.com',
    });
    await env.deps.prisma.deletionRequest.update({
      where: { id: request.id },
      data: { dueAt: new Date(Date.now() - 3 * 86_400_000) },
    });
    const digest = await buildDigest({ ...env.deps }, org.organization.id, new Date());
    expect(digest?.subject).toMatch(/^Deadlines: \d+ overdue/);
    expect(digest?.text).toContain(request.id);
    expect(digest?.text).not.toContain('late@example.com');
  });

  it('lists the CCPA confirmations of receipt due by tomorrow or late, until they are recorded', async () => {
    const owner = callerFor(env.deps, { pat: org.pat }).caller;
    const create = async (identifier: string, daysAgo: number) =>
      (
        await owner.deletionRequests.createInWorkspace({
          workspaceId: org.workspace.id,
          identifier,
          regulation: 'CCPA',
          receivedAt: new Date(Date.now() - daysAgo * 86_400_000).toISOString(),
        })
      ).id;
    const late = await create('receipt-late@example.com', 20);
    const fresh = await create('receipt-fresh@example.com', 0);
    const before = await buildDigest({ ...env.deps }, org.organization.id, new Date());
    expect(before?.subject).toMatch(/, [1-9]\d* receipt\(s\) to confirm$/);
    expect(before?.text).toContain('Receipt to confirm to the subject (CCPA), due by tomorrow or late:');
    expect(before?.text).toMatch(new RegExp(`- ${late} \\(due \\d{4}-\\d{2}-\\d{2}, late\\)`));
    // Ten business days away: not yet in the digest.
    expect(before?.text).not.toContain(fresh);
    expect(before?.text).not.toContain('receipt-late@example.com');
    await owner.deadlines.confirmReceipt({ deletionRequestId: late });
    expect((await buildDigest({ ...env.deps }, org.organization.id, new Date()))?.text ?? '').not.toContain(late);
  });

  it('refuses a Slack webhook the outbound policy blocks', async () => {
    const owner = callerFor(env.deps, { pat: org.pat }).caller;
    const events = (await owner.notifications.settings()).events;
    await expect(
      owner.notifications.update({ events, emailRecipients: [], slackWebhookUrl: 'http://169.254.169.254/latest' }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});
