import { z } from 'zod';
import { IDENTIFIER_MAX_LENGTH } from './schemas/deletion-request';

/**
 * A person is known by a different identifier in each system: a request carries typed
 * identifiers, and each integration consumes the values of one type. These three exist in
 * every organization; an organization adds its own (`stripe_customer_id`, `anonymous_id`, …).
 */
export const BUILT_IN_IDENTIFIER_TYPES = ['email', 'phone', 'user_id'] as const;

/** How the outcome of an integration that received nothing begins: never "nothing found". */
export const NO_IDENTIFIER_OF_TYPE = 'No identifier of type';

/** How many identifiers one request may carry, the primary one included. */
export const MAX_IDENTIFIERS_PER_REQUEST = 50;

export const identifierTypeNameSchema = z
  .string()
  .trim()
  .regex(
    /^[a-z][a-z0-9_]{0,39}$/,
    'An identifier type is lowercase letters, digits and underscores, starting with a letter (at most 40)',
  )
  .meta({
    description: 'An identifier type: email, phone, user_id or one of the organization’s own.',
    example: 'user_id',
  });

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export type Normalised = { ok: true; value: string } | { ok: false; message: string };

/**
 * The documented normalisers. email: trimmed, kept as written and compared without regard to
 * case (`matchKey`); phone: E.164 (`+` and 8 to 15 digits; spaces, dots, dashes and brackets
 * dropped); every other type: trimmed, as written. A refused value's message never repeats it.
 */
export function normaliseIdentifier(type: string, raw: string): Normalised {
  const value = raw.trim();
  if (value.length === 0) return { ok: false, message: 'must not be empty' };
  if (value.length > IDENTIFIER_MAX_LENGTH)
    return { ok: false, message: `must be at most ${IDENTIFIER_MAX_LENGTH} characters` };
  if (/[\u0000-\u001f\u007f]/.test(value)) return { ok: false, message: 'must not contain control characters' };
  if (type === 'email') {
    if (!EMAIL.test(value)) return { ok: false, message: 'is not an email address' };
    return { ok: true, value };
  }
  if (type === 'phone') {
    const compact = value.replace(/[\s.\-()]/g, '');
    if (!/^\+[1-9]\d{7,14}$/.test(compact))
      return {
        ok: false,
        message: 'is not a phone number in E.164 form (+ country code and number, e.g. +14155550100)',
      };
    return { ok: true, value: compact };
  }
  return { ok: true, value };
}

/** What two values of one type are compared by (search, de-duplication, the erasure check): emails without case. */
export function identifierMatchKey(type: string | null, value: string): string {
  return type === 'email' ? value.toLowerCase() : value;
}

/** The type the primary identifier gets when none is given: email when it reads as one, else none (it feeds only untyped integrations). */
export function inferPrimaryType(identifier: string): 'email' | null {
  return EMAIL.test(identifier.trim()) ? 'email' : null;
}

export const requestIdentifierInputSchema = z
  .object({
    type: identifierTypeNameSchema,
    value: z.string().max(IDENTIFIER_MAX_LENGTH, `value must be at most ${IDENTIFIER_MAX_LENGTH} characters`),
  })
  .meta({ id: 'RequestIdentifierInput', description: 'One identifier of the person, with its type.' });
export type RequestIdentifierInput = z.infer<typeof requestIdentifierInputSchema>;

export const requestIdentifiersInputSchema = z
  .array(requestIdentifierInputSchema)
  .max(
    MAX_IDENTIFIERS_PER_REQUEST - 1,
    `at most ${MAX_IDENTIFIERS_PER_REQUEST} identifiers per request, the primary identifier included`,
  )
  .meta({
    description:
      'Other identifiers of the same person, each with its type (email, phone, user_id or a type of the organization). Each integration receives the values of the type it consumes.',
    example: [
      { type: 'user_id', value: 'u_1842' },
      { type: 'stripe_customer_id', value: 'cus_NffrFeUfNV2Hib' },
    ],
  });
