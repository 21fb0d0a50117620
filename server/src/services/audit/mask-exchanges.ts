import { maskIdentifier } from '@shared/mask-identifier';
import type { Db } from '../../db/client';
import { redactDeep } from '../../integrations/runtime/redaction';

/** Values shorter than this are masked only where they stand alone (not inside a longer word or number). */
const SHORT_VALUE_CHARS = 4;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

/**
 * Every way one character can be written in a recorded exchange: as itself (any case, with the
 * `i` flag), percent-encoded (once or twice, either hex case), JSON-escaped (`\u0040`, also
 * escaped again inside a JSON string), as an HTML character reference, `+` for a space, `\/`.
 */
function characterPattern(char: string): string {
  const forms = [escapeRegExp(char)];
  const bytes = [...Buffer.from(char, 'utf8')];
  forms.push(bytes.map((b) => `%(?:25)?${hex(b, 2)}`).join(''));
  const units = Array.from({ length: char.length }, (_, i) => char.charCodeAt(i));
  forms.push(units.map((u) => `\\\\{1,2}u${hex(u, 4)}`).join(''));
  const codePoint = char.codePointAt(0)!;
  forms.push(`&#0*${codePoint};`, `&#x0*${hex(codePoint, 1)};`);
  if (char === ' ') forms.push('\\+');
  if (char === '/' || char === '"' || char === '\\') forms.push(`\\\\${escapeRegExp(char)}`);
  return `(?:${forms.join('|')})`;
}

/** A pattern for one identifier in any encoding, character by character, plus its base64 forms. */
function identifierPattern(value: string): string {
  const spelled = [...value].map(characterPattern).join('');
  const base64 = [...new Set([value, value.toLowerCase()])].map(
    (v) => `${escapeRegExp(Buffer.from(v, 'utf8').toString('base64').replace(/=+$/, ''))}={0,2}`,
  );
  const any = `(?:${[spelled, ...base64].join('|')})`;
  return [...value].length < SHORT_VALUE_CHARS ? `(?<![\\p{L}\\p{N}])${any}(?![\\p{L}\\p{N}])` : any;
}

/** The other spellings a destination may have been sent: a phone number without its `+`. */
function spellings(value: string): string[] {
  return /^\+\d{8,15}$/.test(value) ? [value, value.slice(1)] : [value];
}

/**
 * Replaces every identifier of a request in a text with its masked form (`pa***er@ex***le.com`),
 * however the recorded exchange wrote it: any letter case, URL-encoded, JSON-escaped, base64.
 * Longer identifiers first, so one that contains another is masked whole.
 */
export function identifierMasker(identifiers: readonly string[]): (text: string) => string {
  const values = [...new Set(identifiers.map((v) => v.trim()).filter((v) => v.length > 0))];
  const rules = values
    .flatMap((value) => spellings(value).map((spelling) => ({ spelling, masked: maskIdentifier(value) })))
    .sort((a, b) => b.spelling.length - a.spelling.length)
    .map(({ spelling, masked }) => ({ pattern: new RegExp(identifierPattern(spelling), 'giu'), masked }));
  if (rules.length === 0) return (text) => text;
  return (text) => rules.reduce((out, rule) => out.replace(rule.pattern, () => rule.masked), text);
}

/** An audit entry as the dashboard and the exports show it: identifiers masked in its summary and in every string of its details. */
export function maskAuditEntry<T extends { summary: string; details: unknown }>(
  entry: T,
  mask: (text: string) => string,
): T {
  return {
    ...entry,
    summary: mask(entry.summary),
    details: entry.details === null ? null : (redactDeep(entry.details, mask) as T['details']),
  };
}

/**
 * Every identifier value of the given requests that is still stored: the primary identifier and
 * each typed identifier, those found by identity lookups included. A request the retention
 * policy hashed has no value left to mask (its exchanges went with it).
 */
export async function identifiersOfRequests(db: Db, deletionRequestIds: readonly string[]) {
  const byRequest = new Map<string, string[]>(deletionRequestIds.map((id) => [id, []]));
  if (deletionRequestIds.length === 0) return byRequest;
  const [requests, identifiers] = await Promise.all([
    db.deletionRequest.findMany({
      where: { id: { in: [...deletionRequestIds] } },
      select: { id: true, identifier: true, hashed: true },
    }),
    db.requestIdentifier.findMany({
      where: { deletionRequestId: { in: [...deletionRequestIds] }, value: { not: null } },
      select: { deletionRequestId: true, value: true },
    }),
  ]);
  for (const request of requests)
    if (request.identifier && !request.hashed) byRequest.get(request.id)?.push(request.identifier);
  for (const identifier of identifiers)
    if (identifier.value) byRequest.get(identifier.deletionRequestId)?.push(identifier.value);
  return byRequest;
}

/** The masker of one request: every identifier it carries. */
export async function requestIdentifierMasker(db: Db, deletionRequestId: string) {
  const byRequest = await identifiersOfRequests(db, [deletionRequestId]);
  return identifierMasker(byRequest.get(deletionRequestId) ?? []);
}
