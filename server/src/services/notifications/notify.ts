import { STEP_AUDIT_ACTIONS } from '@shared/audit-actions';
import type { NotificationEvent } from '@shared/schemas/notifications';
import type { Config } from '../../config';
import type { Db } from '../../db/client';
import { createRedactor } from '../../integrations/runtime/redaction';
import type { Keyring } from '../../lib/crypto';
import type { Logger } from '../../lib/logger';
import type { OutboundPolicy } from '../../lib/ssrf';
import { buildDigest, requestLink } from './digest';
import { mailerFor } from './mailer';
import {
  emailRecipientsOf,
  NOTIFICATION_CHANNELS,
  openSlackWebhook,
  resolveSettings,
  type NotificationChannel,
  type ResolvedSettings,
} from './settings';
import { postToSlack } from './slack';
import { recordedDetails } from '../audit/recorded-exchanges';

export interface NotifyDeps {
  prisma: Db;
  keyring: Keyring;
  config: Config;
  policy: OutboundPolicy;
  log: Logger;
}

export interface Notice {
  subject: string;
  text: string;
}

/** Audit actions that may become a notice. */
const WATCHED_ACTIONS = ['request.completed', 'request.reappeared', 'manual_task.escalated'];
/** A step's entry that ended its integration request says how: FAILED or ERROR is a notice. */
const FAILED_OUTCOMES = ['FAILED', 'ERROR'];
/**
 * How old an audit entry must be before the notifier reads it. Entries are numbered as they
 * are written and seen as they commit, so entry N can commit after N+1 (two workers finishing
 * at once); a cursor moved past N+1 would never see N. Reading stops at the first entry younger
 * than this, so only a write held open longer (steps commit within seconds) could be skipped.
 */
export const NOTICE_SETTLE_MS = 60_000;
const BATCH = 200;

/**
 * A notice a channel could not take because of a passing failure (the mail server or Slack
 * unreachable or answering 5xx) waits on that channel at most this long; the channel's later
 * notices wait with it, the other channel's do not.
 */
export const NOTICE_GIVE_UP_MS = 6 * 3_600_000;

/** A failure a later try may not meet: unreachable, a timeout, a 5xx or 429 (not a refused webhook, not an SMTP 5xx). */
const passing = (error: unknown): boolean => {
  const e = error as { transient?: unknown; responseCode?: unknown };
  if (typeof e.transient === 'boolean') return e.transient;
  return !(typeof e.responseCode === 'number' && e.responseCode >= 500);
};

/** What became of a notice on one channel. */
type ChannelResult =
  /** the channel took it */
  | 'sent'
  /** not chosen for this event, or not set up (no SMTP, no webhook, nobody to mail) */
  | 'off'
  /** failed for a reason a later try may not meet */
  | 'passing'
  /** refused for good (a revoked webhook, an SMTP 5xx): trying again would not help */
  | 'refused';

/** Sends one notice on one channel, if the organization chose it for `event`; a failure is logged, never thrown. */
async function sendOn(
  deps: NotifyDeps,
  channel: NotificationChannel,
  organizationId: string,
  settings: ResolvedSettings,
  event: NotificationEvent,
  notice: Notice,
): Promise<ChannelResult> {
  if (!settings.events[event][channel]) return 'off';
  try {
    if (channel === 'email') {
      const mailer = mailerFor(deps.config);
      if (!mailer.enabled) return 'off';
      const to = await emailRecipientsOf(deps.prisma, organizationId, settings);
      if (!to.length) return 'off';
      await mailer.send({
        to,
        subject: notice.subject,
        text: `${notice.text}\n\n— Data Deletion Service\nNotification settings: ${new URL('/organization', deps.config.PUBLIC_URL)}`,
      });
      return 'sent';
    }
    if (!settings.slackWebhookCipher) return 'off';
    const url = await openSlackWebhook(deps.prisma, deps.keyring, organizationId, settings.slackWebhookCipher);
    await postToSlack(deps.policy, url, `*${notice.subject}*\n${notice.text}`);
    return 'sent';
  } catch (error) {
    deps.log.warn(
      { organizationId, event, err: (error as Error).message },
      channel === 'email' ? 'email notification failed' : 'Slack notification failed',
    );
    return passing(error) ? 'passing' : 'refused';
  }
}

/**
 * Sends one notice on every channel the organization chose for `event`. Each channel fails on
 * its own (logged), so a broken Slack webhook does not keep the email from going out. Answers
 * how many channels took it, and how many failed for a passing reason (worth another try).
 */
export async function deliver(
  deps: NotifyDeps,
  organizationId: string,
  settings: ResolvedSettings,
  event: NotificationEvent,
  notice: Notice,
): Promise<{ sent: number; failed: number }> {
  let sent = 0;
  let failed = 0;
  for (const channel of NOTIFICATION_CHANNELS) {
    const result = await sendOn(deps, channel, organizationId, settings, event, notice);
    if (result === 'sent') sent++;
    if (result === 'passing') failed++;
  }
  return { sent, failed };
}

interface WatchedEntry {
  id: bigint;
  action: string;
  outcome: string | null;
  deletionRequestId: string | null;
  integrationRequestId: string | null;
  summary: string;
}

/** 401/403 from a vendor, or a database refusing the login: the account's credentials need attention. */
async function credentialsFailed(db: Db, deletionRequestId: string, integrationRequestId: string): Promise<boolean> {
  const attempt = await db.auditLog.findFirst({
    // An integration request's entries are found through their request's (see AuditLog in the schema).
    where: { deletionRequestId, integrationRequestId, action: { in: STEP_AUDIT_ACTIONS } },
    orderBy: { id: 'desc' },
    select: { details: true, exchanges: true, summary: true },
  });
  const exchanges =
    (
      recordedDetails(attempt?.details ?? null, attempt?.exchanges ?? null) as {
        exchanges?: { response?: { status?: number }; error?: string }[];
      } | null
    )?.exchanges ?? [];
  if (exchanges.some((x) => x.response?.status === 401 || x.response?.status === 403)) return true;
  return /password authentication failed|authentication failed|invalid (api )?key|unauthori[sz]ed|forbidden|28P01|28000/i.test(
    `${attempt?.summary ?? ''} ${exchanges.map((x) => x.error ?? '').join(' ')}`,
  );
}

/** The notice for one audit entry, with the subject identifier scrubbed from any destination text. */
async function noticeFor(
  deps: NotifyDeps,
  entry: WatchedEntry,
): Promise<{ event: NotificationEvent; notice: Notice } | null> {
  if (!entry.deletionRequestId) return null;
  const link = requestLink(deps.config, entry.deletionRequestId);
  if (entry.action === 'request.completed' && entry.outcome === 'SUCCESS') {
    return {
      event: 'request_completed',
      notice: {
        subject: `Deletion request ${entry.deletionRequestId} completed`,
        text: `Every destination confirmed the deletion.\n${link}`,
      },
    };
  }
  if (entry.action === 'manual_task.escalated') {
    return {
      event: 'manual_task_overdue',
      notice: { subject: `Manual task overdue: ${entry.deletionRequestId}`, text: `${entry.summary}.\n${link}` },
    };
  }
  if (entry.action === 'request.reappeared') {
    return {
      event: 'data_reappeared',
      notice: {
        subject: `Deleted data reappeared: ${entry.deletionRequestId}`,
        text: `Re-verification found data matching the subject again (restored backup, ETL?). Retry the deletion:\n${link}`,
      },
    };
  }
  if (
    !STEP_AUDIT_ACTIONS.includes(entry.action) ||
    !entry.deletionRequestId ||
    !entry.integrationRequestId ||
    !entry.outcome ||
    !FAILED_OUTCOMES.includes(entry.outcome)
  )
    return null;
  const ir = await deps.prisma.integrationRequest.findUnique({
    where: { id: entry.integrationRequestId },
    select: { integrationName: true, lastError: true, deletionRequest: { select: { identifier: true } } },
  });
  if (!ir) return null;
  const identifier = ir.deletionRequest.identifier;
  // A destination may echo the identifier in its error: blank it out, or leave the reason out when it is too short to scrub safely.
  const reason = !ir.lastError
    ? ''
    : identifier && identifier.length < 4
      ? ''
      : createRedactor(identifier ? [identifier, identifier.toLowerCase()] : [])(ir.lastError).slice(0, 300);
  const credentials = await credentialsFailed(deps.prisma, entry.deletionRequestId, entry.integrationRequestId);
  return {
    event: credentials ? 'credentials_failing' : 'integration_failed',
    notice: {
      subject: credentials
        ? `Credentials failing: ${ir.integrationName}`
        : `${ir.integrationName} failed for request ${entry.deletionRequestId}`,
      text: `${credentials ? `${ir.integrationName} refused the account's credentials; update them under Accounts, then retry.` : `${ir.integrationName} ended with ${entry.outcome}.`}${reason ? `\nReason: ${reason}` : ''}\n${link}`,
    },
  };
}

/** Each channel's cursor column. */
const CURSOR_COLUMN = { email: 'emailCursor', slack: 'slackCursor' } as const satisfies Record<
  NotificationChannel,
  string
>;

/** The lowest of the channels' places: what a process that knows no channels may read as "considered". */
const lowest = (values: bigint[]) => values.reduce((a, b) => (b < a ? b : a));

/**
 * One pass of the notifier for every organization: new audit entries become notices, then the
 * daily digest once per UTC day. Each channel keeps its own cursor into the append-only audit
 * log (nothing is missed across restarts, nothing from before the settings existed is sent, and
 * a channel that is down holds only its own notices) and its own day's digest. Run by one worker
 * at a time (the caller holds an advisory lock).
 */
export async function runNotifications(deps: NotifyDeps, now = new Date()): Promise<{ sent: number }> {
  // Organizations without settings start with the defaults, from this point of their log on.
  await deps.prisma.$executeRaw`
    INSERT INTO "NotificationSettings" ("organizationId", "auditCursor", "updatedAt")
    SELECT o.id, COALESCE((SELECT max(a.id) FROM "AuditLog" a WHERE a."organizationId" = o.id), 0), now()
      FROM "Organization" o WHERE NOT EXISTS (SELECT 1 FROM "NotificationSettings" s WHERE s."organizationId" = o.id)
    ON CONFLICT DO NOTHING`;
  const organizations = await deps.prisma.notificationSettings.findMany({ select: { organizationId: true } });
  let sent = 0;
  for (const { organizationId } of organizations) {
    const settings = await resolveSettings(deps.prisma, organizationId);
    const cursors = { ...settings.cursors };
    // An entry's notice is worked out once per pass, whichever channels it goes to.
    const notices = new Map<bigint, Promise<Awaited<ReturnType<typeof noticeFor>>>>();
    const settled = now.getTime() - NOTICE_SETTLE_MS;
    // Each channel reads on from its own cursor: one held by an outage does not hold the other.
    for (const channel of NOTIFICATION_CHANNELS) {
      const entries = await deps.prisma.auditLog.findMany({
        where: {
          organizationId,
          id: { gt: cursors[channel] },
          OR: [
            { action: { in: WATCHED_ACTIONS } },
            { action: { in: STEP_AUDIT_ACTIONS }, outcome: { in: FAILED_OUTCOMES } },
          ],
        },
        orderBy: { id: 'asc' },
        take: BATCH,
        select: {
          id: true,
          createdAt: true,
          action: true,
          outcome: true,
          deletionRequestId: true,
          integrationRequestId: true,
          summary: true,
        },
      });
      for (const entry of entries) {
        if (entry.createdAt.getTime() > settled) break;
        if (!notices.has(entry.id)) notices.set(entry.id, noticeFor(deps, entry));
        const notice = await notices.get(entry.id)!;
        const result = notice
          ? await sendOn(deps, channel, organizationId, settings, notice.event, notice.notice)
          : 'off';
        if (result === 'sent') sent++;
        // The channel could not take it for a passing reason (the mail server or Slack is down):
        // its cursor stays and the next pass tries again, for up to NOTICE_GIVE_UP_MS. A channel
        // that took it is not sent to twice; one that refuses for good holds nothing up.
        if (result === 'passing') {
          if (now.getTime() - entry.createdAt.getTime() < NOTICE_GIVE_UP_MS) break;
          deps.log.warn(
            { organizationId, channel, auditEntry: String(entry.id) },
            'notification given up after hours of failures',
          );
        }
        cursors[channel] = entry.id;
        await deps.prisma.notificationSettings.update({
          where: { organizationId },
          data: { [CURSOR_COLUMN[channel]]: entry.id, auditCursor: lowest(Object.values(cursors)) },
        });
      }
    }
    sent += await sendDigest(deps, organizationId, settings, now);
  }
  return { sent };
}

/**
 * A digest a channel could not take for a passing reason is tried again on it after this long
 * (the same day), not at every pass: building it reads up to DIGEST_AT_RISK_MAX requests (digest.ts).
 * Kept by the process that holds the notifier's lock; another process taking over tries at once.
 */
const DIGEST_RETRY_MS = 15 * 60_000;
const digestRetryAt = new Map<string, number>();

/**
 * The daily digest, once per UTC day on each chosen channel: a channel that could not take it
 * for a passing reason is tried again after DIGEST_RETRY_MS (the same day), without the other
 * channel's getting it twice.
 */
async function sendDigest(
  deps: NotifyDeps,
  organizationId: string,
  settings: Awaited<ReturnType<typeof resolveSettings>>,
  now: Date,
): Promise<number> {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const chosen = NOTIFICATION_CHANNELS.filter((c) => settings.events.deadline_digest[c]);
  const due = chosen.filter(
    (c) =>
      (settings.digestAt[c]?.getTime() ?? 0) < today &&
      (digestRetryAt.get(`${organizationId}\n${c}`) ?? 0) <= now.getTime(),
  );
  if (!due.length) return 0;
  const digest = await buildDigest(deps, organizationId, now);
  const digestAt = { ...settings.digestAt };
  let sent = 0;
  for (const channel of due) {
    const result = digest ? await sendOn(deps, channel, organizationId, settings, 'deadline_digest', digest) : 'off';
    if (result === 'sent') sent++;
    if (result !== 'passing') digestAt[channel] = now;
    else digestRetryAt.set(`${organizationId}\n${channel}`, now.getTime() + DIGEST_RETRY_MS);
  }
  const everywhere = chosen.every((c) => (digestAt[c]?.getTime() ?? 0) >= today);
  await deps.prisma.notificationSettings.update({
    where: { organizationId },
    data: {
      emailDigestAt: digestAt.email,
      slackDigestAt: digestAt.slack,
      ...(everywhere ? { lastDigestAt: now } : {}),
    },
  });
  return sent;
}
