import { z } from 'zod';
import { roleSchema } from '../statuses';
import { emailSchema, nameSchema, passwordSchema } from './auth';

/** Days an invitation link stays usable. */
export const INVITATION_TTL_DAYS = 7;

export const inviteMemberInputSchema = z.object({ email: emailSchema, role: roleSchema });

export const invitationTokenSchema = z.string().trim().min(1, 'Required').max(200);

/**
 * Accepting an invitation: a new user gives a name and chooses a password; an existing
 * user (same email) signs in first, the usual way, and accepts with no password.
 */
export const acceptInvitationInputSchema = z.object({
  token: invitationTokenSchema,
  name: nameSchema.optional(),
  password: z.string().min(1, 'Required').max(200).optional(),
});
/** The sign-up variant of the accept form, with the password rules of sign-up. */
export const acceptInvitationSignUpSchema = z.object({ name: nameSchema, password: passwordSchema });

export const changeRoleInputSchema = z.object({ userId: z.string().max(64), role: roleSchema });
export const removeMemberInputSchema = z.object({ userId: z.string().max(64) });
export const revokeInvitationInputSchema = z.object({ invitationId: z.string().max(64) });
