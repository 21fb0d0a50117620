import {
  DEFAULT_NOTIFICATION_EVENTS,
  NOTIFICATION_EVENTS,
  type NotificationChannels,
  type NotificationEvent,
  type NotificationSettingsInput,
} from '@shared/schemas/notifications';
import type { Db, DbOrTx } from '../../db/client';
import type { Keyring } from '../../lib/crypto';
import type { OutboundPolicy } from '../../lib/ssrf';
import { assertUrlAllowed } from '../../lib/ssrf';
import { openSecret, sealSecret } from '../keys/secret-store';
import type { Actor } from '../auth/actor';
import { recordAudit } from '../audit/record-audit';
import { slackWebhookHint } from './slack';

const SLACK_CONTEXT = 'notifications:slack-webhook';

export type NotificationChannel = 'email' | 'slack';
export const NOTIFICATION_CHANNELS: readonly NotificationChannel[] = ['email', 'slack'];

/** Where each channel stands: the last audit entry it has been given, and when it last had the digest. */
export interface NotifierPlace {
  cursors: Record<NotificationChannel, bigint>;
  digestAt: Record<NotificationChannel, Date | null>;
}

export interface ResolvedSettings {
  events: Record<NotificationEvent, NotificationChannels>;
  emailRecipients: string[];
  slackWebhookCipher: string | null;
}

function withDefaults(stored: unknown): Record<NotificationEvent, NotificationChannels> {
  const events = (stored && typeof stored === 'object' ? stored : {}) as Partial<
    Record<NotificationEvent, NotificationChannels>
  >;
  return Object.fromEntries(NOTIFICATION_EVENTS.map((e) => [e, events[e] ?? DEFAULT_NOTIFICATION_EVENTS[e]])) as Record<
    NotificationEvent,
    NotificationChannels
  >;
}

/** What the dashboard shows: never the webhook URL (it authorises posting), only a hint. */
export async function getNotificationSettings(db: Db, actor: Actor) {
  const row = await db.notificationSettings.findUnique({ where: { organizationId: actor.organizationId } });
  return {
    events: withDefaults(row?.events),
    emailRecipients: (row?.emailRecipients as string[] | undefined) ?? [],
    slackWebhookHint: row?.slackWebhookHint ?? null,
  };
}

export async function updateNotificationSettings(
  db: Db,
  keyring: Keyring,
  policy: OutboundPolicy,
  actor: Actor,
  input: NotificationSettingsInput,
) {
  if (input.slackWebhookUrl) await assertUrlAllowed(input.slackWebhookUrl, policy);
  return db.$transaction(async (tx) => {
    const slack =
      input.slackWebhookUrl === undefined
        ? {}
        : input.slackWebhookUrl === null
          ? { slackWebhookCipher: null, slackWebhookHint: null }
          : {
              slackWebhookCipher: await sealSecret(
                { prisma: tx, keyring },
                actor.organizationId,
                input.slackWebhookUrl,
                SLACK_CONTEXT,
              ),
              slackWebhookHint: slackWebhookHint(input.slackWebhookUrl),
            };
    const data = { events: input.events, emailRecipients: input.emailRecipients, ...slack };
    // New settings start their cursor at the end of the log: nothing from before is notified.
    const last = await tx.auditLog.findFirst({
      where: { organizationId: actor.organizationId },
      orderBy: { id: 'desc' },
      select: { id: true },
    });
    await tx.notificationSettings.upsert({
      where: { organizationId: actor.organizationId },
      create: { organizationId: actor.organizationId, ...data, auditCursor: last?.id ?? 0n },
      update: data,
    });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'notifications.settings_changed',
      summary: 'Notification settings changed',
      details: {
        events: input.events,
        emailRecipients: input.emailRecipients.length,
        slack: input.slackWebhookUrl === undefined ? 'kept' : input.slackWebhookUrl === null ? 'removed' : 'set',
      },
    });
    return getNotificationSettings(tx as Db, actor);
  });
}

export async function resolveSettings(db: DbOrTx, organizationId: string): Promise<ResolvedSettings & NotifierPlace> {
  const row = await db.notificationSettings.findUnique({ where: { organizationId } });
  const auditCursor = row?.auditCursor ?? 0n;
  const lastDigestAt = row?.lastDigestAt ?? null;
  // A channel's own mark counts only past the shared one (which a process of the previous
  // version, knowing no channels, may have moved on its own).
  const cursor = (own: bigint | null | undefined) => (own != null && own > auditCursor ? own : auditCursor);
  const digestAt = (own: Date | null | undefined) =>
    own && (!lastDigestAt || own > lastDigestAt) ? own : lastDigestAt;
  return {
    events: withDefaults(row?.events),
    emailRecipients: (row?.emailRecipients as string[] | undefined) ?? [],
    slackWebhookCipher: row?.slackWebhookCipher ?? null,
    cursors: { email: cursor(row?.emailCursor), slack: cursor(row?.slackCursor) },
    digestAt: { email: digestAt(row?.emailDigestAt), slack: digestAt(row?.slackDigestAt) },
  };
}

export function openSlackWebhook(
  db: DbOrTx,
  keyring: Keyring,
  organizationId: string,
  cipher: string,
): Promise<string> {
  return openSecret({ prisma: db, keyring }, organizationId, cipher, SLACK_CONTEXT);
}

/** Explicit recipients, or the organization's owners and admins. */
export async function emailRecipientsOf(
  db: DbOrTx,
  organizationId: string,
  settings: Pick<ResolvedSettings, 'emailRecipients'>,
): Promise<string[]> {
  if (settings.emailRecipients.length) return settings.emailRecipients;
  const members = await db.membership.findMany({
    where: { organizationId, role: { in: ['OWNER', 'ADMIN'] } },
    select: { user: { select: { email: true } } },
  });
  return members.map((m) => m.user.email);
}
