import { createHttpClient } from '../../integrations/runtime/http-client';
import { assertUrlAllowed, guardedLookup, type OutboundPolicy } from '../../lib/ssrf';
import { AppError } from '../../lib/errors';

/**
 * Posts to a Slack incoming webhook (https://api.slack.com/messaging/webhooks): a JSON body
 * with `text`, answered by 200 "ok", or by 400 invalid_payload, 403 invalid_token, 404
 * channel_not_found / no_service, 410 channel_is_archived. The URL is the customer's, so it
 * goes through the SSRF guard like every outbound call; the URL itself is a secret (it
 * authorises posting) and never appears in errors.
 */
export async function postToSlack(policy: OutboundPolicy, webhookUrl: string, text: string): Promise<void> {
  const http = createHttpClient({
    trail: [],
    secrets: [webhookUrl, new URL(webhookUrl).pathname],
    lookup: guardedLookup(policy),
    checkUrl: async (url) => void (await assertUrlAllowed(url, policy)),
    defaultTimeoutMs: 10_000,
  });
  let response;
  try {
    response = await http.request({
      method: 'POST',
      url: webhookUrl,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text }),
    });
  } catch (error) {
    throw Object.assign(
      new AppError('BAD_REQUEST', `Slack webhook could not be reached: ${(error as Error).message}`),
      { transient: true },
    );
  }
  if (response.status !== 200) {
    // 5xx and 429: Slack is having trouble, a later try may pass; a 4xx is the webhook itself
    // (revoked, archived channel) and will not.
    throw Object.assign(
      new AppError(
        'BAD_REQUEST',
        `Slack refused the message: HTTP ${response.status} ${response.text.slice(0, 100).replace(/[^\w .-]/g, '')}`,
      ),
      { transient: response.status >= 500 || response.status === 429 },
    );
  }
}

/** What the dashboard may show of a webhook URL: its host and the last characters. */
export function slackWebhookHint(url: string): string {
  const parsed = new URL(url);
  return `${parsed.host}/…${url.slice(-4)}`;
}
