import { REDIS_IDENTIFIER_PLACEHOLDER } from '@shared/integrations/redis';

/** Escapes Redis glob characters (`* ? [ ] \`) so that the identifier only ever matches itself in SCAN MATCH. */
export function escapeGlob(value: string): string {
  return value.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

/** A key pattern with the identifier in place, glob-escaped; the template's own wildcards stay wildcards. */
export function keyPattern(template: string, identifier: string): string {
  return template.split(REDIS_IDENTIFIER_PLACEHOLDER).join(escapeGlob(identifier));
}

/** A literal key, field or member with the identifier in place. */
export function literalFor(template: string, identifier: string): string {
  return template.split(REDIS_IDENTIFIER_PLACEHOLDER).join(identifier);
}

/** Whether a key template has wildcards of its own: without them it names exactly one key (no SCAN needed). */
export function hasWildcards(template: string): boolean {
  return /[*?[]/.test(template.split(REDIS_IDENTIFIER_PLACEHOLDER).join(''));
}
