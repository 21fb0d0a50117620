import { z } from 'zod';

export const emailSchema = z.string().trim().toLowerCase().pipe(z.email('Enter a valid email address').max(254));
export const passwordSchema = z
  .string()
  .min(10, 'Use at least 10 characters')
  .max(200, 'Use at most 200 characters');
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
});

export const workspaceNameSchema = nameSchema;
