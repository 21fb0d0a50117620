import { z } from 'zod';
import { emailSchema, passwordSchema, signInInputSchema, signUpInputSchema } from '@shared/schemas/auth';
import {
  requestPasswordReset,
  resetPassword,
  sendEmailVerification,
  verifyEmail,
} from '../../services/auth/user-tokens';
import { mailerFor } from '../../services/notifications/mailer';
import { roleSchema, type Role } from '@shared/statuses';
import { SESSION_COOKIE } from '../../trpc/context';
import { router } from '../../trpc/init';
import { authedProcedure, publicProcedure, sessionActor } from '../../trpc/procedures';
import { signIn } from '../../services/auth/sign-in';
import { signUp } from '../../services/auth/sign-up';
import { deleteSession, SESSION_TTL_SECONDS } from '../../services/auth/sessions';
import type { Actor } from '../../services/auth/actor';
import { hotQuery, type Db } from '../../db/client';
import { AppError } from '../../lib/errors';
import { assertAuthAttemptAllowed } from '../../lib/rate-limit-auth';

const meSchema = z.object({
  user: z.object({ id: z.string(), email: z.string(), name: z.string(), emailVerified: z.boolean() }),
  organizationId: z.string(),
  role: roleSchema,
  organizations: z.array(z.object({ id: z.string(), name: z.string(), role: roleSchema })),
});

interface MeRow {
  id: string;
  email: string;
  name: string;
  emailVerified: boolean;
  organizations: { id: string; name: string; role: Role }[];
}

/**
 * The signed-in user and every organization they belong to, in the order they joined: what the
 * dashboard's frame shows on every screen, read in one prepared statement.
 */
async function describeMe(db: Db, actor: Actor): Promise<z.infer<typeof meSchema>> {
  const [me] = await hotQuery<MeRow>(
    db,
    `SELECT u.id, u.email, u.name, u."emailVerifiedAt" IS NOT NULL AS "emailVerified",
            COALESCE((SELECT json_agg(json_build_object('id', o.id, 'name', o.name, 'role', m.role)
                                      ORDER BY m."createdAt", m.id)
                        FROM "Membership" m JOIN "Organization" o ON o.id = m."organizationId"
                       WHERE m."userId" = u.id), '[]') AS organizations
       FROM "User" u WHERE u.id = $1`,
    [actor.userId],
  );
  // The session's user was deleted since the session was read.
  if (!me) throw new AppError('UNAUTHORIZED', 'Please sign in');
  const { organizations, ...user } = me;
  return { user, organizationId: actor.organizationId, role: actor.role, organizations };
}

export const authRouter = router({
  /** Creates a user and an organization they own, and signs them in. */
  signUp: publicProcedure.input(signUpInputSchema).mutation(async ({ ctx, input }) => {
    assertAuthAttemptAllowed(ctx.config, ctx.ip);
    const result = await signUp(ctx.prisma, input);
    ctx.setCookie(SESSION_COOKIE, result.sessionToken, { maxAgeSeconds: SESSION_TTL_SECONDS });
    await sendEmailVerification(ctx, result.user.id);
    return { userId: result.user.id, organizationId: result.organization.id };
  }),

  /** Email and password; a fresh session replaces any previous cookie. */
  signIn: publicProcedure.input(signInInputSchema).mutation(async ({ ctx, input }) => {
    assertAuthAttemptAllowed(ctx.config, ctx.ip);
    const previous = ctx.cookies[SESSION_COOKIE];
    const result = await signIn(ctx.prisma, ctx.config, input);
    if (previous) await deleteSession(ctx.prisma, previous);
    ctx.setCookie(SESSION_COOKIE, result.sessionToken, { maxAgeSeconds: SESSION_TTL_SECONDS });
    return { userId: result.userId };
  }),

  signOut: publicProcedure.mutation(async ({ ctx }) => {
    const token = ctx.cookies[SESSION_COOKIE];
    if (token) await deleteSession(ctx.prisma, token);
    ctx.clearCookie(SESSION_COOKIE);
    return { ok: true };
  }),

  /** The signed-in user, their active organization and role, and every organization they belong to. */
  me: authedProcedure.output(meSchema).query(({ ctx }) => describeMe(ctx.prisma, ctx.actor)),

  /**
   * The dashboard's "who is signed in": like `me`, but null without a valid session instead
   * of UNAUTHORIZED, so a signed-out visit is an answer, not an error in the browser console.
   */
  session: publicProcedure.output(meSchema.nullable()).query(async ({ ctx }) => {
    const token = ctx.cookies[SESSION_COOKIE];
    if (!token) return null;
    const actor = await sessionActor(ctx, token).catch((error: unknown) => {
      if (error instanceof AppError && error.code === 'UNAUTHORIZED') return null;
      throw error;
    });
    return actor ? describeMe(ctx.prisma, actor) : null;
  }),

  /** What this server can do for signed-out visitors: without SMTP there is no password reset by email. */
  capabilities: publicProcedure.query(({ ctx }) => ({ emailEnabled: mailerFor(ctx.config).enabled })),

  /** "Forgot password": the same answer whether or not the address has an account. */
  requestPasswordReset: publicProcedure.input(z.object({ email: emailSchema })).mutation(async ({ ctx, input }) => {
    assertAuthAttemptAllowed(ctx.config, ctx.ip);
    return requestPasswordReset(ctx, input.email);
  }),

  /** Sets a new password with a mailed single-use token, and signs out every session of the account. */
  resetPassword: publicProcedure
    .input(z.object({ token: z.string().max(200), password: passwordSchema }))
    .mutation(async ({ ctx, input }) => {
      assertAuthAttemptAllowed(ctx.config, ctx.ip);
      const result = await resetPassword(ctx, input);
      ctx.clearCookie(SESSION_COOKIE);
      return result;
    }),

  verifyEmail: publicProcedure.input(z.object({ token: z.string().max(200) })).mutation(async ({ ctx, input }) => {
    assertAuthAttemptAllowed(ctx.config, ctx.ip);
    return verifyEmail(ctx, input.token);
  }),

  resendVerification: authedProcedure.mutation(async ({ ctx }) => {
    assertAuthAttemptAllowed(ctx.config, ctx.ip);
    return sendEmailVerification(ctx, ctx.actor.userId);
  }),

  /** Organization switcher: the session acts in another organization the user belongs to. */
  switchOrganization: authedProcedure
    .input(z.object({ organizationId: z.string().max(64) }))
    .mutation(async ({ ctx, input }) => {
      if (!ctx.actor.sessionId) throw new AppError('BAD_REQUEST', 'Only dashboard sessions switch organizations');
      const membership = await ctx.prisma.membership.findUnique({
        where: { userId_organizationId: { userId: ctx.actor.userId, organizationId: input.organizationId } },
        select: { id: true },
      });
      if (!membership) throw new AppError('NOT_FOUND', 'Organization not found');
      await ctx.prisma.session.update({
        where: { id: ctx.actor.sessionId },
        data: { activeOrganizationId: input.organizationId },
      });
      return { organizationId: input.organizationId };
    }),
});
