import { z } from 'zod';
import { outboundUrl } from './outbound-url';
import { defineConnector } from './connector';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

const headerName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, 'Not a valid header name');
const headerValue = z
  .string()
  .max(4000)
  .refine((v) => !/[\r\n]/.test(v), 'Header values cannot contain line breaks');
const jsonPath = z
  .string()
  .max(200)
  .regex(
    /^\$(\.[A-Za-z_][\w-]*|\[\d+\]|\['[^']+'\])*$/,
    "A JSONPath such as $.data.id or $['job-id'] or $.items[0].id",
  );

const templated = z.string().trim().min(1, 'Required').max(2000);

export const webhookCallSchema = z.object({
  method: z.enum(HTTP_METHODS).default('POST'),
  /** http(s) URL; {{identifier}}, {{trackingId}} and account keys are URL-encoded where they land. */
  url: outboundUrl(templated.refine((u) => /^https?:\/\//i.test(u), 'Must start with http:// or https://')),
  headers: z.record(headerName, headerValue).default({}),
  /** JSON text; placeholders are allowed inside string values, e.g. {"email": "{{identifier}}"}. */
  body: z.string().max(20_000).optional(),
});

export const webhookConfigSchema = z
  .object({
    mode: z.enum(['sync', 'async']).default('sync'),
    initiate: webhookCallSchema.extend({
      /** Async: where the tracking id is in the JSON response. */
      trackingIdPath: jsonPath.optional(),
    }),
    status: webhookCallSchema
      .extend({
        statusPath: jsonPath,
        successValues: z.array(z.string().max(100)).min(1).default(['success', 'completed', 'done']),
        failedValues: z.array(z.string().max(100)).default(['failed', 'error']),
        canceledValues: z.array(z.string().max(100)).default(['canceled', 'cancelled']),
        /** Values that say the job waits its turn over there (PENDING); any other unknown value is PROCESSING. */
        pendingValues: z.array(z.string().max(100)).default(['pending', 'queued', 'scheduled', 'waiting']),
      })
      .optional(),
    cancel: webhookCallSchema.optional(),
    timeoutMs: z.number().int().min(100).max(120_000).default(15_000),
  })
  .superRefine((config, ctx) => {
    if (config.mode === 'async' && !config.initiate.trackingIdPath) {
      ctx.addIssue({
        code: 'custom',
        path: ['initiate', 'trackingIdPath'],
        message: 'Async webhooks need a JSONPath to the tracking id',
      });
    }
    if (config.mode === 'async' && !config.status) {
      ctx.addIssue({ code: 'custom', path: ['status'], message: 'Async webhooks need a status call' });
    }
    // Every call's body is JSON with its placeholders inside strings ("{{identifier}}"): a bare
    // placeholder would let the value shape the JSON (an identifier `1,2,3` in `[{{identifier}}]`).
    for (const call of ['initiate', 'status', 'cancel'] as const) {
      const body = config[call]?.body;
      if (!body) continue;
      try {
        JSON.parse(body.replace(/\{\{\s*[\w.]+\s*\}\}/g, 'x'));
      } catch {
        ctx.addIssue({ code: 'custom', path: [call, 'body'], message: 'Body must be JSON' });
      }
    }
  });
export type WebhookConfig = z.infer<typeof webhookConfigSchema>;

export const webhookConnector = defineConnector({
  type: 'WEBHOOK',
  label: 'Webhook',
  accountTypes: ['KEY_VALUE'],
  accountRequired: false,
  configSchema: webhookConfigSchema,
  catalogue: {
    category: 'Custom',
    deletes: 'whatever your endpoint does',
    credentials: 'optional key-value secrets, usable as {{key}} in the calls',
    capabilities: { status: true, cancel: true, verify: false },
    notes:
      'sync or async (a status call is polled); cancel if a cancel call is configured; a 429 waits for Retry-After (a minute when it names none), using no attempt',
    completion: 'as your system reports',
    docsUrl: '',
  },
});
