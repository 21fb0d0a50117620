import { z } from 'zod';
import { tokenScopeSchema } from '../scopes';

export const emailSchema = z.string().trim().toLowerCase().pipe(z.email('Enter a valid email address').max(254));
/** Passwords of 10+ characters that every guessing list starts with. */
const COMMON_PASSWORDS = new Set([
  '1234567890',
  '12345678910',
  '0123456789',
  '0987654321',
  '1q2w3e4r5t',
  '1qaz2wsx3edc',
  'qwertyuiop',
  'qwerty1234',
  'qwerty12345',
  'asdfghjkl;',
  'zxcvbnm123',
  'password12',
  'password123',
  'password1234',
  'password!1',
  'passw0rd12',
  'iloveyou12',
  'letmein123',
  'welcome123',
  'administrator',
  'admin12345',
  'changeme123',
  'abcdefghij',
  'abc1234567',
  'football12',
  'baseball12',
  'monkey1234',
  'sunshine12',
  'princess12',
  'dragon1234',
  'trustno1234',
  'superman12',
]);

/**
 * NIST SP 800-63B style: length is what counts (10 to 200 characters, any characters),
 * no composition rules, but no well-known password and no single repeated character.
 */
export const passwordSchema = z
  .string()
  .min(10, 'Use at least 10 characters')
  .max(200, 'Use at most 200 characters')
  .refine((p) => !COMMON_PASSWORDS.has(p.toLowerCase()), 'This password is too common; choose another')
  .refine((p) => new Set(p).size > 2, 'Use more than two different characters');
export const nameSchema = z.string().trim().min(1, 'Required').max(100, 'Use at most 100 characters');

export const signUpInputSchema = z.object({
  email: emailSchema,
  password: passwordSchema,
  name: nameSchema,
  organizationName: nameSchema,
});

export const signInInputSchema = z.object({
  email: emailSchema,
  password: z.string().min(1, 'Required').max(200),
});

export const createTokenInputSchema = z.object({
  name: nameSchema,
  /** Whole days until expiry; omitted means it never expires. */
  expiresInDays: z.number().int().min(1).max(3650).optional(),
  /** Omitted or empty: every scope. */
  scopes: z.array(tokenScopeSchema).max(20).optional(),
  /** Omitted or empty: every workspace of the organization. */
  workspaceIds: z.array(z.string().max(64)).max(100).optional(),
});

export const workspaceNameSchema = nameSchema;
