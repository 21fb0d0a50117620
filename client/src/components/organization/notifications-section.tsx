import {
  NOTIFICATION_EVENTS,
  NOTIFICATION_EVENT_LABEL,
  notificationSettingsInputSchema,
  type NotificationEvent,
} from '@shared/schemas/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { toDisplayError } from '../../lib/errors';
import { focusFirstInvalid, validateForm, type FieldErrors } from '../../lib/form';
import { useTRPC } from '../../trpc';
import { TextField } from '../field';
import { ErrorState, FormError, Loading } from '../states';

/** "Sent on 2 channels.", "Sent on 1 channel.", or that no channel can deliver. */
const sentOnChannels = (sent: number) =>
  sent === 0
    ? 'Nothing was sent: no channel can deliver yet (save a Slack webhook, or email recipients on a server with SMTP).'
    : `Sent on ${sent} channel${sent === 1 ? '' : 's'}.`;

/** Who gets told what, by email and Slack (admins). */
export function NotificationsSection() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const settings = useQuery(trpc.notifications.settings.queryOptions());
  const update = useMutation(
    trpc.notifications.update.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.notifications.settings.queryKey() }),
    }),
  );
  const test = useMutation(trpc.notifications.sendTest.mutationOptions());
  const [errors, setErrors] = useState<FieldErrors>({});
  if (settings.isPending) return <Loading />;
  if (settings.isError) return <ErrorState error={settings.error} onRetry={() => void settings.refetch()} />;
  const data = settings.data;
  const serverError = update.error ? toDisplayError(update.error) : test.error ? toDisplayError(test.error) : null;
  return (
    <section className="card" aria-labelledby="org-notifications">
      <h2 id="org-notifications">Notifications</h2>
      {!data.emailEnabled ? (
        <p className="muted">Email is off on this server (SMTP_HOST is not set); Slack still works.</p>
      ) : null}
      <form
        key={JSON.stringify(data)}
        className="stack"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          const events = Object.fromEntries(
            NOTIFICATION_EVENTS.map((e) => [
              e,
              { email: form.get(`${e}.email`) === 'on', slack: form.get(`${e}.slack`) === 'on' },
            ]),
          ) as Record<NotificationEvent, { email: boolean; slack: boolean }>;
          const recipients = String(form.get('emailRecipients') ?? '')
            .split(/[,\s]+/)
            .filter(Boolean);
          const slack = String(form.get('slackWebhookUrl') ?? '').trim();
          const result = validateForm(notificationSettingsInputSchema, {
            events,
            emailRecipients: recipients,
            ...(slack ? { slackWebhookUrl: slack } : {}),
          });
          if (!result.ok) {
            setErrors(result.errors);
            return focusFirstInvalid(event.currentTarget, result.errors);
          }
          setErrors({});
          update.mutate(result.data);
        }}
      >
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Email</th>
              <th scope="col">Slack</th>
            </tr>
          </thead>
          <tbody>
            {NOTIFICATION_EVENTS.map((e) => (
              <tr key={e}>
                <td>{NOTIFICATION_EVENT_LABEL[e]}</td>
                <td>
                  <input
                    type="checkbox"
                    name={`${e}.email`}
                    aria-label={`${NOTIFICATION_EVENT_LABEL[e]} by email`}
                    defaultChecked={data.events[e].email}
                  />
                </td>
                <td>
                  <input
                    type="checkbox"
                    name={`${e}.slack`}
                    aria-label={`${NOTIFICATION_EVENT_LABEL[e]} on Slack`}
                    defaultChecked={data.events[e].slack}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <TextField
          label="Email recipients"
          name="emailRecipients"
          defaultValue={data.emailRecipients.join(', ')}
          hint="Comma-separated; empty: the organization's owners and admins."
          error={errors.emailRecipients ?? Object.entries(errors).find(([k]) => k.startsWith('emailRecipients'))?.[1]}
        />
        <TextField
          label="Slack incoming webhook URL"
          name="slackWebhookUrl"
          type="url"
          autoComplete="off"
          placeholder={
            data.slackWebhookHint
              ? `Set (${data.slackWebhookHint}); enter a new one to replace it`
              : 'https://hooks.slack.com/services/…'
          }
          error={errors.slackWebhookUrl}
        />
        <FormError message={serverError?.message ?? null} />
        <div className="form-actions">
          <button type="button" className="button" disabled={test.isPending} onClick={() => test.mutate()}>
            {test.isPending ? 'Sending…' : 'Send a test'}
          </button>
          {data.slackWebhookHint ? (
            <button
              type="button"
              className="button"
              onClick={() =>
                update.mutate({ events: data.events, emailRecipients: data.emailRecipients, slackWebhookUrl: null })
              }
            >
              Remove Slack webhook
            </button>
          ) : null}
          <button type="submit" className="button button-primary" disabled={update.isPending}>
            {update.isPending ? 'Saving…' : 'Save notifications'}
          </button>
          {test.isSuccess ? <span role="status">{sentOnChannels(test.data.sent)}</span> : null}
          {update.isSuccess ? <span role="status">Saved</span> : null}
        </div>
      </form>
    </section>
  );
}
