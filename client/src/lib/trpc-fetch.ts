import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';

type ErrorCodeKey = keyof typeof TRPC_ERROR_CODES_BY_KEY;

/**
 * The server's error bodies carry the code as a name ("NOT_FOUND"), which is what the public
 * API documents, while the tRPC client only accepts a JSON-RPC number there and otherwise
 * reports "Unable to transform response". This puts the number back and keeps the name in
 * `data.code`, so the dashboard can show the server's message and field issues.
 */
export function normalizeErrorEnvelope(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(normalizeErrorEnvelope);
  if (!body || typeof body !== 'object' || !('error' in body)) return body;
  const error = (body as { error: unknown }).error;
  if (!error || typeof error !== 'object') return body;
  const { code, data } = error as { code?: unknown; data?: Record<string, unknown> };
  if (typeof code !== 'string') return body;
  const numeric = TRPC_ERROR_CODES_BY_KEY[code as ErrorCodeKey] ?? TRPC_ERROR_CODES_BY_KEY.INTERNAL_SERVER_ERROR;
  return { ...body, error: { ...error, code: numeric, data: { ...data, code: data?.code ?? code } } };
}

/** The fetch the tRPC link uses: the platform fetch, with error envelopes normalised. */
export const trpcFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, { ...init, credentials: 'same-origin' });
  if (response.ok || !response.headers.get('content-type')?.includes('application/json')) return response;
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
  }
  return new Response(JSON.stringify(normalizeErrorEnvelope(body)), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
};
