import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRPCError } from '@trpc/server';
import { buildCertificate } from '../../services/certificates/build-certificate';
import { TASK_LINK_GONE } from '../../services/manual-tasks/task-page';
import { FAST_ENGINE_CONFIG, startTestWorker, waitForIntegrationRequest, waitForRequest } from '../../test/engine';
import { startSmtpSink, toAddresses } from '../../test/fakes/smtp-sink';
import { callerFor, createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../../test/harness';
import { runManualTaskReminders } from '../../services/manual-tasks/reminders';
import { NOTICE_SETTLE_MS, runNotifications } from '../../services/notifications/notify';
import { buildDigest } from '../../services/notifications/digest';

let env: TestEnv;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let org: Awaited<ReturnType<typeof seedOrganization>>;
let caller: ReturnType<typeof callerFor>['caller'];
const OWNER = 'crm-owner@vendor.example';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 7)]);

beforeAll(async () => {
  smtp = await startSmtpSink();
  env = await createTestEnv({
    ...FAST_ENGINE_CONFIG,
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(smtp.port),
    SMTP_FROM: 'Deletions <no-reply@example.test>',
  });
  org = await seedOrganization(env.deps, 'manual');
  caller = callerFor(env.deps, { pat: org.pat }).caller;
  await caller.integrations.create({
    workspaceId: org.workspace.id,
    name: 'Legacy CRM',
    type: 'MANUAL',
    config: {
      owners: [OWNER],
      instructions: 'Search the CRM for {{email}} and delete the contact.',
      daysToComplete: 5,
    },
  });
  worker = await startTestWorker(env);
});
afterAll(async () => {
  await worker?.stop();
  await env?.close();
  await smtp?.close();
});

const linkToken = (text: string) => {
  const match = /\/task#token=([A-Za-z0-9_]+)/.exec(text);
  if (!match) throw new Error(`no task link in: ${text}`);
  return match[1]!;
};

/** A request to the manual integration; answers its integration request once PENDING and the token its owner was mailed. */
async function openTask(identifier: string) {
  const before = smtp.messages.length;
  const request = await caller.deletionRequests.createInWorkspace({ workspaceId: org.workspace.id, identifier });
  const { integrationRequests } = await waitForRequest(env, request.id, ['PENDING']);
  const ir = await waitForIntegrationRequest(env, integrationRequests[0]!.id, ['PENDING']);
  await expect.poll(() => smtp.messages.length, { timeout: 10_000 }).toBeGreaterThan(before);
  const mail = smtp.messages[smtp.messages.length - 1]!;
  return { requestId: request.id, ir, mail, token: linkToken(mail.text ?? '') };
}

const publicCaller = () => callerFor(env.deps).caller;

async function expectGone(run: Promise<unknown>) {
  const error = await run.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCError);
  expect((error as TRPCError).code).toBe('NOT_FOUND');
  expect((error as TRPCError).message).toBe(TASK_LINK_GONE);
}

describe('manual integrations', () => {
  it('refuses an owner that is not an email address with a 400', async () => {
    await expect(
      caller.integrations.create({
        workspaceId: org.workspace.id,
        name: 'Paper archive',
        type: 'MANUAL',
        config: { owners: ['the archivist'] },
      }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('opens a task per request and mails its owner a link naming no identifier', async () => {
    const { ir, mail, token } = await openTask('alice@example.com');
    expect(ir.trackingId).toMatch(/^mt_/);
    expect(toAddresses(mail)).toEqual([OWNER]);
    expect(mail.text).not.toContain('alice');
    const task = await env.db.prisma.manualTask.findUniqueOrThrow({ where: { id: ir.trackingId! } });
    expect(task.tokenHash).not.toContain(token);
    expect(task.answeredAt).toBeNull();
    // The page shows the instructions and masked identifiers; a reveal is audited with the address.
    const page = await publicCaller().manualTasks.openTask({ token });
    expect(page.integrationName).toBe('Legacy CRM');
    expect(page.instructions).toContain('{{email}}');
    expect(JSON.stringify(page)).not.toContain('alice@example.com');
    const { value } = await publicCaller().manualTasks.revealOnTask({ token, identifierId: page.identifiers[0]!.id });
    expect(value).toBe('alice@example.com');
    const reveals = await env.db.prisma.auditLog.findMany({
      where: { integrationRequestId: ir.id, action: 'manual_task.identifier_revealed' },
    });
    expect(reveals).toHaveLength(1);
    expect(reveals[0]!.details).toMatchObject({ from: '127.0.0.1' });
  });

  it('Done with an evidence file: SUCCESS, the file sealed, the audit trail and certificate say a person confirmed it', async () => {
    const { requestId, ir, token } = await openTask('bob@example.com');
    await publicCaller().manualTasks.answerOnTask({
      token,
      answer: 'done',
      note: 'Contact and its notes deleted',
      evidence: { fileName: 'screenshot.png', contentBase64: PNG.toString('base64') },
    });
    const finished = await waitForRequest(env, requestId);
    expect(finished.status).toBe('SUCCESS');
    const evidence = await env.db.prisma.manualTaskEvidence.findUniqueOrThrow({ where: { taskId: ir.trackingId! } });
    expect(evidence).toMatchObject({ contentType: 'image/png', sizeBytes: PNG.length });
    expect(evidence.contentCipher).not.toContain(PNG.toString('base64'));
    const answered = await env.db.prisma.auditLog.findFirstOrThrow({
      where: { integrationRequestId: ir.id, action: 'manual_task.answered' },
    });
    expect(answered).toMatchObject({ actorType: 'task_link', outcome: 'done' });
    expect(answered.details).toMatchObject({ by: OWNER, from: '127.0.0.1', via: 'link' });
    const { certificate } = await buildCertificate(env.db.prisma, env.deps.keyring, org.actor, requestId);
    const confirmation = JSON.stringify((certificate.destinations as { evidence: unknown }[])[0]!.evidence);
    expect(confirmation).toContain('confirmed by a person');
    expect(confirmation).not.toMatch(/verif/i);
    // The link is spent: the page says so and shows nothing of the request.
    await expectGone(publicCaller().manualTasks.openTask({ token }));
    await expectGone(publicCaller().manualTasks.answerOnTask({ token, answer: 'not_found' }));
  });

  it('an altered or expired link opens nothing', async () => {
    const { ir, token } = await openTask('carol@example.com');
    const altered = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    await expectGone(publicCaller().manualTasks.openTask({ token: altered }));
    await env.db.prisma.manualTask.update({
      where: { id: ir.trackingId! },
      data: { tokenExpiresAt: new Date(Date.now() - 1000) },
    });
    await expectGone(publicCaller().manualTasks.openTask({ token }));
  });

  it('Not found is SUCCESS; Cannot needs a reason and is FAILED; a retry opens a new task with a new link', async () => {
    const notFound = await openTask('dave@example.com');
    await publicCaller().manualTasks.answerOnTask({ token: notFound.token, answer: 'not_found' });
    expect((await waitForRequest(env, notFound.requestId)).status).toBe('SUCCESS');

    const cannot = await openTask('erin@example.com');
    await expect(
      publicCaller().manualTasks.answerOnTask({ token: cannot.token, answer: 'cannot' }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    await publicCaller().manualTasks.answerOnTask({
      token: cannot.token,
      answer: 'cannot',
      note: 'Archive is offsite',
    });
    const failed = await waitForRequest(env, cannot.requestId);
    expect(failed.status).toBe('FAILED');
    expect(failed.integrationRequests[0]!.lastError).toContain('Archive is offsite');

    const before = smtp.messages.length;
    await caller.deletionRequests.retry({ deletionRequestId: cannot.requestId });
    await expect.poll(() => smtp.messages.length, { timeout: 10_000 }).toBeGreaterThan(before);
    const again = await waitForIntegrationRequest(env, cannot.ir.id, ['PENDING']);
    await expect
      .poll(
        async () => (await env.db.prisma.integrationRequest.findUniqueOrThrow({ where: { id: again.id } })).trackingId,
      )
      .not.toBe(cannot.ir.trackingId);
    const newToken = linkToken(smtp.messages[smtp.messages.length - 1]!.text ?? '');
    expect(newToken).not.toBe(cannot.token);
    await expectGone(publicCaller().manualTasks.openTask({ token: cannot.token }));
    expect((await publicCaller().manualTasks.openTask({ token: newToken })).integrationName).toBe('Legacy CRM');
  });

  it('canceling the request revokes its link', async () => {
    const { requestId, ir, token } = await openTask('frank@example.com');
    await caller.deletionRequests.cancel({ deletionRequestId: requestId });
    expect((await waitForRequest(env, requestId)).status).toBe('CANCELED');
    await expectGone(publicCaller().manualTasks.openTask({ token }));
    const task = await env.db.prisma.manualTask.findUniqueOrThrow({ where: { id: ir.trackingId! } });
    expect(task.tokenRevokedAt).not.toBeNull();
  });

  it('refuses evidence over 10 MB (413) or of another type (415), writing nothing', async () => {
    const { ir, token } = await openTask('grace@example.com');
    const big = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(10 * 1024 * 1024, 0x20)]);
    await expect(
      publicCaller().manualTasks.answerOnTask({
        token,
        answer: 'done',
        evidence: { fileName: 'proof.pdf', contentBase64: big.toString('base64') },
      }),
    ).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    await expect(
      publicCaller().manualTasks.answerOnTask({
        token,
        answer: 'done',
        evidence: { fileName: 'proof.pdf', contentBase64: Buffer.from('MZ\x90\x00binary').toString('base64') },
      }),
    ).rejects.toMatchObject({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: expect.stringContaining('PDF, PNG, JPEG, CSV or TXT'),
    });
    const task = await env.db.prisma.manualTask.findUniqueOrThrow({
      where: { id: ir.trackingId! },
      include: { evidence: true },
    });
    expect(task.answeredAt).toBeNull();
    expect(task.evidence).toBeNull();
    // A CSV by its content and name is taken.
    await publicCaller().manualTasks.answerOnTask({
      token,
      answer: 'done',
      evidence: { fileName: 'rows.csv', contentBase64: Buffer.from('id,deleted\n1,yes\n').toString('base64') },
    });
    const stored = await env.db.prisma.manualTaskEvidence.findUniqueOrThrow({ where: { taskId: ir.trackingId! } });
    expect(stored.contentType).toBe('text/csv');
  });
});

const DAY_MS = 86_400_000;

describe('reminders and escalation on a moved clock', () => {
  it('reminds the owners every N days, and tells the admins once the task is past its days to complete', async () => {
    const { ir } = await openTask('heidi@example.com');
    const task = await env.db.prisma.manualTask.findUniqueOrThrow({ where: { id: ir.trackingId! } });
    const deps = env.deps;
    const reminders = () =>
      smtp.messages.filter((m) => m.subject?.startsWith('Reminder:') && toAddresses(m).includes(OWNER)).length;
    const before = reminders();
    // A day in: nothing due yet (every 2 days by default).
    await runManualTaskReminders(deps, new Date(task.createdAt.getTime() + DAY_MS));
    expect(reminders()).toBe(before);
    const twoDays = new Date(task.createdAt.getTime() + 2 * DAY_MS + 1000);
    // (Tasks of the tests above are still open too: each gets its own reminder.)
    const { reminded } = await runManualTaskReminders(deps, twoDays);
    expect(reminded).toBeGreaterThanOrEqual(1);
    await expect.poll(reminders, { timeout: 10_000 }).toBe(before + reminded);
    expect((await env.db.prisma.manualTask.findUniqueOrThrow({ where: { id: task.id } })).lastRemindedAt).toEqual(
      twoDays,
    );
    // An hour later nothing more is sent.
    expect((await runManualTaskReminders(deps, new Date(twoDays.getTime() + 3_600_000))).reminded).toBe(0);
    const reminder = smtp.messages.filter((m) => m.subject?.startsWith('Reminder:')).at(-1)!;
    expect(reminder.text).not.toContain('heidi');

    // Five days to complete: on day 5 the task is escalated once, and the notifier mails the admins.
    // The notifier starts reading an organization's log from its first run on.
    await runNotifications(deps);
    const dayFive = new Date(task.createdAt.getTime() + 5 * DAY_MS + 1000);
    const first = await runManualTaskReminders(deps, dayFive);
    expect(first.escalated).toBeGreaterThanOrEqual(1);
    expect((await runManualTaskReminders(deps, new Date(dayFive.getTime() + 60_000))).escalated).toBe(0);
    const escalations = await env.db.prisma.auditLog.findMany({
      where: { integrationRequestId: ir.id, action: 'manual_task.escalated' },
    });
    expect(escalations).toHaveLength(1);
    await runNotifications(deps, new Date(Date.now() + NOTICE_SETTLE_MS + 1000));
    const notice = await smtp.waitFor(
      (m) => m.subject === `Manual task overdue: ${ir.deletionRequestId}` && toAddresses(m).includes(org.email),
    );
    expect(notice.text).toContain('Legacy CRM');
    expect(notice.text).not.toContain('heidi');
  });
});

describe('REST for ticketing systems', () => {
  it('lists open tasks of the workspace its key names, answers one, and another organization sees and answers nothing', async () => {
    const server = await startTestServer(env.deps);
    try {
      const { requestId, ir } = await openTask('ivan@example.com');
      const headers = { 'x-api-key': org.pat, 'x-workspace-api-key': org.workspaceApiKey };
      const listed = await fetch(`${server.baseUrl}/api/public/manual-tasks?limit=100`, { headers });
      expect(listed.status).toBe(200);
      const tasks = (await listed.json()) as { id: string; maskedIdentifier: string }[];
      const mine = tasks.find((t) => t.id === ir.trackingId);
      expect(mine).toBeDefined();
      expect(JSON.stringify(tasks)).not.toContain('ivan@example.com');

      const other = await seedOrganization(env.deps, 'manual-other');
      const otherList = await fetch(`${server.baseUrl}/api/public/manual-tasks`, {
        headers: { 'x-api-key': other.pat },
      });
      expect(await otherList.json()).toEqual([]);
      const foreign = await fetch(`${server.baseUrl}/api/public/manual-tasks/${ir.trackingId}/answer`, {
        method: 'POST',
        headers: { 'x-api-key': other.pat, 'content-type': 'application/json' },
        body: JSON.stringify({ answer: 'done' }),
      });
      expect(foreign.status).toBe(404);

      const post = (body: unknown) =>
        fetch(`${server.baseUrl}/api/public/manual-tasks/${ir.trackingId}/answer`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const tooBig = await post({
        answer: 'done',
        evidence: { fileName: 'big.pdf', contentBase64: Buffer.alloc(10 * 1024 * 1024 + 1, 0x25).toString('base64') },
      });
      expect(tooBig.status).toBe(413);
      expect((await tooBig.json()).message).toContain('10 MB');
      const wrongType = await post({
        answer: 'done',
        evidence: { fileName: 'tool.exe', contentBase64: Buffer.from('MZ\x90\x00').toString('base64') },
      });
      expect(wrongType.status).toBe(415);
      expect((await wrongType.json()).message).toContain('PDF, PNG, JPEG, CSV or TXT');

      const answered = await post({ answer: 'done', note: 'Removed from the ledger' });
      expect(answered.status).toBe(200);
      expect((await waitForRequest(env, requestId)).status).toBe('SUCCESS');
      const entry = await env.db.prisma.auditLog.findFirstOrThrow({
        where: { integrationRequestId: ir.id, action: 'manual_task.answered' },
      });
      expect(entry).toMatchObject({ actorType: 'user:pat', actorId: org.user.id });
      expect(entry.details).toMatchObject({ via: 'api', by: org.email });
      // Answered: the task is no longer listed, and a second answer is a 404.
      const after = (await (
        await fetch(`${server.baseUrl}/api/public/manual-tasks?limit=100`, { headers })
      ).json()) as {
        id: string;
      }[];
      expect(after.some((t) => t.id === ir.trackingId)).toBe(false);
      expect((await post({ answer: 'not_found' })).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});

describe('tasks late for the legal deadline', () => {
  it('appear in the overview and the daily digest', async () => {
    const { requestId, ir } = await openTask('judy@example.com');
    // The request is due in a day; its task (five days to complete) will be late.
    await env.db.prisma.deletionRequest.update({
      where: { id: requestId },
      data: { dueAt: new Date(Date.now() + 86_400_000) },
    });
    const overview = await caller.dashboard.overview({ days: 7, timeZone: 'UTC' });
    expect(overview.lateManualTasks.map((t) => t.taskId)).toContain(ir.trackingId);
    const digest = await buildDigest(env.deps, org.organization.id, new Date());
    expect(digest?.text).toContain('Manual tasks late for the legal deadline');
    expect(digest?.text).toContain(requestId);
    expect(digest?.text).not.toContain('judy');
  });
});
