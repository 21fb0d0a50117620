import { z } from 'zod';
import type { Context } from '../../trpc/context';

export const TAG = 'Deletion requests';
export const PUBLIC_BASE_PATH = '/api/public';

export const listRequestHeaders = z.object({
  'X-Workspace-Api-Key': z.string().optional().meta({
    description:
      'Optional. When given it must be valid, and it narrows the list to its workspace. It may be sent instead as `{"workspaceApiKey": "…"}` in the request body.',
  }),
});

export const listResponseHeaders = z.object({
  Link: z.string().optional().meta({ description: 'Present when there is a next page: `<url>; rel="next"`.' }),
});

export const idempotencyRequestHeaders = z.object({
  'Idempotency-Key': z.string().max(255).optional().meta({
    description:
      'Optional, up to 255 characters, kept 24 hours: a repeated call with the same key and request answers the first answer instead of acting again.',
  }),
});

/** What a POST that takes an Idempotency-Key says of it, in its description and its 422. */
export const IDEMPOTENCY_NOTE =
  'Send an `Idempotency-Key` header to make retries safe: the same key with the same request answers the first answer again; with another request it is a 422.';
export const IDEMPOTENCY_KEY_REUSED = 'This Idempotency-Key was already used with a different request.';

export const idempotencyResponseHeaders = z.object({
  'Idempotent-Replayed': z
    .literal('true')
    .optional()
    .meta({ description: 'Present when this is the answer of an earlier call with the same Idempotency-Key.' }),
});

/** Announces the next page in a Link header, keeping the body a plain array. */
export function setNextLink(
  ctx: Context,
  path: string,
  query: Record<string, string | number | boolean>,
  nextCursor: string | null,
) {
  if (!nextCursor) return;
  const url = new URL(PUBLIC_BASE_PATH + path, ctx.config.PUBLIC_URL);
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, String(value));
  url.searchParams.set('cursor', nextCursor);
  ctx.response.headers.Link = `<${url.toString()}>; rel="next"`;
}
