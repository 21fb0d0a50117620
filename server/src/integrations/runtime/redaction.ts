import { isSecretAccountField, type AccountType } from '@shared/integrations/accounts';
import type { Outcome } from '../types';
import { hmacPads } from '../sql/keyed-hash';

/**
 * The values to blank out of every recorded exchange (audit trail) and log line of a call
 * made with an account's credentials: the string value of each field that the account type
 * declares secret (`isSecretAccountField`, from `ACCOUNT_PUBLIC_FIELDS` in
 * `shared/src/integrations/accounts.ts`). An account of unknown type has every value
 * treated as secret. `http-client.ts` replaces these values wherever they appear (URL,
 * headers, bodies, errors).
 */
export function secretValues(
  accountType: AccountType | null | undefined,
  secrets: Record<string, unknown> | null,
): string[] {
  if (!secrets) return [];
  return Object.entries(secrets)
    .filter(([key, value]) => typeof value === 'string' && value !== '' && isSecretAccountField(accountType, key))
    .map(([, value]) => value as string);
}

/** Secrets shorter than this are redacted where they stand alone (see `createRedactor`). */
const SHORT_SECRET_CHARS = 4;

/** `encodeURIComponent`, or null for a string it refuses (an unpaired surrogate). */
function uriEncoded(value: string): string | null {
  try {
    return encodeURIComponent(value);
  } catch {
    return null;
  }
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Blanks every given secret out of a text: as written, URI-encoded and base64-encoded. A secret
 * of 4 characters or more goes wherever it appears; a shorter one (a PIN, a two-letter region
 * code someone stored as a secret) wherever it stands alone, between characters that are not
 * letters or digits, so that `"pin":"123"` loses its value but a body keeps its other words.
 */
export function createRedactor(secrets: string[], placeholder = '[redacted]'): (text: string) => string {
  const values = [...new Set(secrets.filter((s) => typeof s === 'string' && s.length > 0))].sort(
    (a, b) => b.length - a.length,
  );
  const forms = values.flatMap((v) =>
    [v, uriEncoded(v), Buffer.from(v).toString('base64')].filter((form): form is string => !!form),
  );
  const long = [...new Set(forms.filter((form) => form.length >= SHORT_SECRET_CHARS))].sort(
    (a, b) => b.length - a.length,
  );
  const short = [...new Set(forms.filter((form) => form.length < SHORT_SECRET_CHARS))].sort(
    (a, b) => b.length - a.length,
  );
  const standalone = short.length
    ? new RegExp(`(?<![\\p{L}\\p{N}])(?:${short.map(escapeRegExp).join('|')})(?![\\p{L}\\p{N}])`, 'gu')
    : null;
  return (text) => {
    let out = text;
    for (const value of long) if (out.includes(value)) out = out.split(value).join(placeholder);
    return standalone ? out.replace(standalone, placeholder) : out;
  };
}

/** The redactor of one destination: every value its account type declares secret. */
export function destinationRedactor(destination: {
  accountType: AccountType | null;
  secrets: Record<string, unknown> | null;
  hashKey?: Buffer | null;
}): (text: string) => string {
  // The hash key travels only as bound parameters (its padded forms); blanked out should an error ever quote one.
  const hashKeyForms = destination.hashKey
    ? [destination.hashKey.toString('hex'), ...Object.values(hmacPads(destination.hashKey))]
    : [];
  return createRedactor([...secretValues(destination.accountType, destination.secrets), ...hashKeyForms]);
}

/**
 * Blanks a subject's identifier out of what is shown as an error or a summary (a request's
 * status reason, an audit summary, a log line): a destination's error text often repeats what
 * it was sent ("no user jane@example.com"), and a database's repeats the value it could not
 * use. As written, lower-cased and upper-cased (emails come back folded), URI- and
 * base64-encoded, as `createRedactor` finds secrets; every identifier of the request alike. The exchanges of the audit trail keep
 * it: they are the evidence, and the retention policy removes them with the identifier.
 */
export function identifierRedactor(identifier: string | null | readonly string[]): (text: string) => string {
  const values = (typeof identifier === 'string' ? [identifier] : (identifier ?? [])).filter((v) => v.length > 0);
  if (values.length === 0) return (text) => text;
  return createRedactor(
    values.flatMap((v) => [v, v.toLowerCase(), v.toUpperCase()]),
    '[identifier]',
  );
}

/** Secrets first, then the identifier: what a step shows of a destination's words. */
export function stepRedactor(
  destination: Parameters<typeof destinationRedactor>[0],
  identifier: string | null | readonly string[],
): (text: string) => string {
  const secrets = destinationRedactor(destination);
  const subject = identifierRedactor(identifier);
  return (text) => subject(secrets(text));
}

/** Every string inside a value (evidence a driver recorded), keys included, redacted. */
export function redactDeep(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact));
  // A key can be the identifier too (a proof per customer id, when the customer id is the identifier).
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [redact(key), redactDeep(item, redact)]));
  return value;
}

/**
 * A driver's outcome with the account's secrets blanked out of what is stored and shown: the
 * message or reason (often a destination's own error text, which may repeat a token it was
 * sent) and any evidence. The tracking id is the destination's, kept as it is.
 */
export function redactOutcome(outcome: Outcome, redact: (text: string) => string): Outcome {
  if ('reason' in outcome) return { ...outcome, reason: redact(outcome.reason) };
  const redacted = { ...outcome, message: redact(outcome.message) };
  if (redacted.kind === 'success' && redacted.evidence)
    redacted.evidence = redactDeep(redacted.evidence, redact) as Record<string, unknown>;
  return redacted;
}
