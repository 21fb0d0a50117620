import { notificationSettingsInputSchema } from '@shared/schemas/notifications';
import { router } from '../../trpc/init';
import { adminProcedure } from '../../trpc/procedures';
import { mailerFor } from '../../services/notifications/mailer';
import { deliver } from '../../services/notifications/notify';
import {
  getNotificationSettings,
  resolveSettings,
  updateNotificationSettings,
} from '../../services/notifications/settings';

export const notificationsRouter = router({
  /** Who gets told what; the Slack webhook only as a hint. `emailEnabled` is false while SMTP is not configured. */
  settings: adminProcedure.query(async ({ ctx }) => ({
    ...(await getNotificationSettings(ctx.prisma, ctx.actor)),
    emailEnabled: mailerFor(ctx.config).enabled,
  })),
  update: adminProcedure
    .input(notificationSettingsInputSchema)
    .mutation(({ ctx, input }) => updateNotificationSettings(ctx.prisma, ctx.keyring, ctx.policy, ctx.actor, input)),
  /** Sends a test notice on every configured channel, and says how many took it. */
  sendTest: adminProcedure.mutation(async ({ ctx }) => {
    const settings = await resolveSettings(ctx.prisma, ctx.actor.organizationId);
    const everything = { email: true, slack: true };
    const { sent } = await deliver(
      ctx,
      ctx.actor.organizationId,
      { ...settings, events: { ...settings.events, integration_failed: everything } },
      'integration_failed',
      {
        subject: 'Test notification',
        text: 'Notifications from the Data Deletion Service reach this channel.',
      },
    );
    return { sent };
  }),
});
