import { createHash, createSign } from 'node:crypto';
import { BIGQUERY_SCOPE, GOOGLE_TOKEN_URI, serviceAccountKeySchema } from '@shared/integrations/bigquery';
import type { HttpClient } from '../runtime/http-client';
import { jsonBody } from '../runtime/vendor-http';
import { PermanentError, TransientError, type Exchange } from '../types';

/** Google's tokens live an hour; one is reused until a minute before it expires. */
const ASSERTION_LIFETIME_S = 3600;
const EXPIRY_MARGIN_MS = 60_000;

interface CachedToken {
  accessToken: string;
  expiresAt: number;
}
/** Access tokens by service account key and token endpoint (a hash: the key itself is never a map key). */
const tokens = new Map<string, CachedToken>();

const base64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

/** The service account's key from the account's secrets, or a PermanentError saying what is wrong. */
export function serviceAccountKey(secrets: Record<string, unknown> | null) {
  const text = secrets?.serviceAccountKey;
  if (typeof text !== 'string') throw new PermanentError('This integration needs a Google service account key');
  try {
    const parsed = serviceAccountKeySchema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
  } catch {
    // Not JSON: the same answer as a JSON that is not a key.
  }
  throw new PermanentError("The account's service account key is not a JSON key of a service account");
}

/**
 * The signed JWT a service account exchanges for an access token (RFC 7523, Google's "Using
 * OAuth 2.0 for Server to Server Applications"): RS256 over the header and the claim set.
 */
export function signedAssertion(
  key: { client_email: string; private_key: string; private_key_id?: string },
  audience: string,
  now: Date,
): string {
  const iat = Math.floor(now.getTime() / 1000);
  const header = { alg: 'RS256', typ: 'JWT', ...(key.private_key_id ? { kid: key.private_key_id } : {}) };
  const claims = { iss: key.client_email, scope: BIGQUERY_SCOPE, aud: audience, iat, exp: iat + ASSERTION_LIFETIME_S };
  const unsigned = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  let signature: Buffer;
  try {
    signature = createSign('RSA-SHA256').update(unsigned).sign(key.private_key);
  } catch {
    throw new PermanentError("The service account key's private_key is not a usable RSA private key");
  }
  return `${unsigned}.${base64url(signature)}`;
}

/** The recorded token exchange keeps its shape only: the assertion and the token are credentials. */
function scrubTokenExchange(exchange: Exchange | undefined) {
  if (exchange?.kind !== 'http') return;
  exchange.request.body = 'grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=[redacted]';
  if (exchange.response?.body)
    exchange.response.body = exchange.response.body.replace(
      /"access_token"\s*:\s*"[^"]*"/g,
      '"access_token":"[redacted]"',
    );
}

/**
 * An access token for the service account (scope bigquery), from the token endpoint by the
 * JWT bearer grant, reused until shortly before it expires.
 */
export async function accessToken(
  ctx: { http: HttpClient; secrets: Record<string, unknown> | null; trail: Exchange[]; now: Date },
  tokenUri: string = GOOGLE_TOKEN_URI,
): Promise<string> {
  const key = serviceAccountKey(ctx.secrets);
  const cacheKey = createHash('sha256').update(`${tokenUri}\n${key.client_email}\n${key.private_key}`).digest('hex');
  const cached = tokens.get(cacheKey);
  if (cached && cached.expiresAt - EXPIRY_MARGIN_MS > Date.now()) return cached.accessToken;
  // The audience is always Google's token endpoint, wherever a test sends the assertion.
  const assertion = signedAssertion(key, GOOGLE_TOKEN_URI, ctx.now);
  const before = ctx.trail.length;
  let response;
  try {
    response = await ctx.http.request({
      method: 'POST',
      url: tokenUri,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
    });
  } finally {
    scrubTokenExchange(ctx.trail[before]);
  }
  const body = jsonBody(response) as
    { access_token?: string; expires_in?: number; error?: string; error_description?: string } | undefined;
  if (response.status === 200 && body?.access_token) {
    tokens.set(cacheKey, {
      accessToken: body.access_token,
      expiresAt: Date.now() + Number(body.expires_in ?? 3600) * 1000,
    });
    return body.access_token;
  }
  const said = [body?.error, body?.error_description].filter(Boolean).join(': ') || `HTTP ${response.status}`;
  if (response.status === 429 || response.status >= 500) throw new TransientError(`Google token endpoint: ${said}`);
  throw new PermanentError(`Google refused the service account key: ${said}`);
}

/** Forgets a token BigQuery refused (401): the next call signs a new assertion. */
export function forgetToken(token: string): void {
  for (const [key, value] of tokens) if (value.accessToken === token) tokens.delete(key);
}
