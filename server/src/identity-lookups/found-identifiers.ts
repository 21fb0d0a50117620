import { IDENTIFIER_MAX_LENGTH } from '@shared/schemas/deletion-request';
import { createRedactor } from '../integrations/runtime/redaction';
import { LookupError } from './errors';
import type { FoundIdentifier } from './lookup-config';

const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/**
 * Collects what a lookup found: trimmed, empty values skipped, each (type, value) once, and
 * nothing the request already knew. A value that could never be an identifier (too long,
 * control characters) fails the lookup with the place it came from, never the value.
 */
export function identifierCollector(known: readonly FoundIdentifier[]) {
  const seen = new Set(known.map((k) => JSON.stringify([k.type, k.value])));
  const found: FoundIdentifier[] = [];
  return {
    add(type: string, raw: string, from: string) {
      const value = raw.trim();
      if (value === '') return;
      if (value.length > IDENTIFIER_MAX_LENGTH)
        throw new LookupError(`${from} holds a value longer than ${IDENTIFIER_MAX_LENGTH} characters`, {
          transient: false,
        });
      if (CONTROL_CHARACTERS.test(value))
        throw new LookupError(`${from} holds a value with control characters`, { transient: false });
      const key = JSON.stringify([type, value]);
      if (seen.has(key)) return;
      seen.add(key);
      found.push({ type, value });
    },
    get found(): FoundIdentifier[] {
      return found;
    },
  };
}

/** Blanks the known identifiers (as written, lower- and upper-cased) and the secrets out of an error's text. */
export function lookupRedactor(
  known: readonly FoundIdentifier[],
  secrets: readonly string[],
): (text: string) => string {
  const identifiers = createRedactor(
    known.flatMap((k) => [k.value, k.value.toLowerCase(), k.value.toUpperCase()]),
    '[identifier]',
  );
  const hidden = createRedactor([...secrets]);
  return (text) => hidden(identifiers(text));
}
