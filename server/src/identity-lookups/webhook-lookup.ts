import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { IDENTIFIER_MAX_LENGTH } from '@shared/schemas/deletion-request';
import { callbackHeaders } from '../lib/webhook-signing';
import { parseRetryAfter, type HttpClient, type HttpResponse } from '../integrations/runtime/http-client';
import { TransientError } from '../integrations/types';
import { LookupError } from './errors';
import { identifierCollector, lookupRedactor } from './found-identifiers';
import type { FoundIdentifier, IdentityLookupConfig } from './lookup-config';

type WebhookLookupConfig = Extract<IdentityLookupConfig, { kind: 'webhook' }>;

export interface WebhookLookupEnv {
  http?: HttpClient;
  signingSecrets?: string[];
}

const typedIdentifierSchema = z
  .object({
    type: z
      .string()
      .min(1, 'must not be empty')
      .max(64, 'must be at most 64 characters')
      .meta({ description: 'The identifier type, as the organization names it.', example: 'user_id' }),
    value: z
      .string()
      .max(IDENTIFIER_MAX_LENGTH, `must be at most ${IDENTIFIER_MAX_LENGTH} characters`)
      .meta({ description: 'The identifier.', example: 'usr_4821' }),
  })
  .meta({ description: 'One identifier of the person, with its type.' });

/** What a webhook lookup receives: the request's known identifiers, signed as callbacks are (Standard Webhooks). */
export const identityLookupRequestSchema = z
  .object({
    identifiers: z.array(typedIdentifierSchema).meta({ description: 'Every identifier the request knows so far.' }),
  })
  .meta({ id: 'IdentityLookupRequest' });

/** What a webhook lookup answers with a 2xx: the person's other identifiers (an empty array when none). */
export const identityLookupAnswerSchema = z
  .object({
    identifiers: z
      .array(typedIdentifierSchema)
      .meta({ description: 'Identifiers of the same person; empty values and ones already known are ignored.' }),
  })
  .meta({ id: 'IdentityLookupAnswer' });

/** Names what was wrong with an answer by its place, never by its content (identifiers are personal data). */
function invalidAnswer(error: z.ZodError): LookupError {
  const issue = error.issues[0]!;
  const where = issue.path.length ? issue.path.join('.') : 'the body';
  const what = issue.code === 'invalid_type' ? `must be ${issue.expected}` : issue.message;
  return new LookupError(`Webhook lookup: invalid answer: ${where} ${what}`, { transient: false });
}

function statusFailure(response: HttpResponse): LookupError {
  const status = response.status;
  if (status === 429 || status >= 500) {
    const retryAfterMs = parseRetryAfter(response.headers['retry-after']);
    return new LookupError(`Webhook lookup: answered HTTP ${status}`, {
      transient: true,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    });
  }
  const why = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
  return new LookupError(`Webhook lookup: answered HTTP ${status}${why}`, { transient: false });
}

/**
 * Runs a webhook lookup: POSTs the known identifiers, signed with the Standard Webhooks
 * headers, and takes the identifiers of a 2xx answer. 429 and 5xx are transient (Retry-After
 * kept), other statuses permanent; an answer that is not the documented JSON, or holds more
 * than `maxIdentifiers`, fails the lookup. The answer's words are never quoted back.
 */
export async function runWebhookLookup(
  config: WebhookLookupConfig,
  known: readonly FoundIdentifier[],
  env: WebhookLookupEnv,
): Promise<FoundIdentifier[]> {
  if (!env.http) throw new LookupError('Webhook lookup: no HTTP client', { transient: false });
  const secrets = env.signingSecrets ?? [];
  if (secrets.length === 0)
    throw new LookupError('Webhook lookup: no signing secret, the receiver could not verify the call', {
      transient: false,
    });
  const body = JSON.stringify({ identifiers: known.map(({ type, value }) => ({ type, value })) });
  const redact = lookupRedactor(known, secrets);
  let response: HttpResponse;
  try {
    response = await env.http.request({
      method: 'POST',
      url: config.url,
      headers: callbackHeaders(secrets, `msg_${randomUUID()}`, body),
      body,
      timeoutMs: config.timeoutMs,
    });
  } catch (error) {
    const message = redact((error as Error).message);
    // The client's own words for its deadline (whole call) and for a silent socket.
    if (/no (complete answer|response) within/.test(message))
      throw new LookupError(`Webhook lookup: no answer within ${config.timeoutMs} ms`, { transient: true });
    throw new LookupError(`Webhook lookup: ${message}`, { transient: error instanceof TransientError });
  }
  if (response.status < 200 || response.status >= 300) throw statusFailure(response);
  let json: unknown;
  try {
    json = response.json();
  } catch {
    throw new LookupError('Webhook lookup: invalid answer: the body is not JSON', { transient: false });
  }
  const answer = identityLookupAnswerSchema.safeParse(json);
  if (!answer.success) throw invalidAnswer(answer.error);
  if (answer.data.identifiers.length > config.maxIdentifiers)
    throw new LookupError(
      `Webhook lookup: the answer holds ${answer.data.identifiers.length} identifiers, more than the ${config.maxIdentifiers} allowed`,
      { transient: false },
    );
  const collector = identifierCollector(known);
  answer.data.identifiers.forEach((identifier, index) =>
    collector.add(identifier.type, identifier.value, `Webhook lookup: identifiers.${index}.value`),
  );
  return collector.found;
}
