import { z } from 'zod';
import {
  acceptInvitationInputSchema,
  changeRoleInputSchema,
  invitationTokenSchema,
  inviteMemberInputSchema,
  removeMemberInputSchema,
  revokeInvitationInputSchema,
} from '@shared/schemas/members';
import { SESSION_COOKIE } from '../../trpc/context';
import { router } from '../../trpc/init';
import { memberProcedure, ownerProcedure, publicProcedure } from '../../trpc/procedures';
import { assertAuthAttemptAllowed } from '../../lib/rate-limit-auth';
import { deleteSession, findSessionUser, SESSION_TTL_SECONDS } from '../../services/auth/sessions';
import { listMembers } from '../../services/dashboard/list-members';
import { acceptInvitation, describeInvitation } from '../../services/members/accept-invitation';
import { AppError } from '../../lib/errors';
import { changeMemberRole } from '../../services/members/change-role';
import { inviteMember } from '../../services/members/invite-member';
import { listInvitations } from '../../services/members/list-invitations';
import { removeMember } from '../../services/members/remove-member';
import { revokeInvitation } from '../../services/members/revoke-invitation';

/** Members, roles and invitations of the active organization; owners manage them. */
export const membersRouter = router({
  /** Everyone in the organization with their role. */
  list: memberProcedure.query(({ ctx }) => listMembers(ctx.prisma, ctx.actor)),
  /** Pending invitations (never their links). */
  invitations: ownerProcedure.query(({ ctx }) => listInvitations(ctx.prisma, ctx.actor)),
  /** Returns the one-time link `${PUBLIC_URL}/invite/<token>`: shown once, only its hash is stored. */
  invite: ownerProcedure
    .input(inviteMemberInputSchema)
    .mutation(({ ctx, input }) => inviteMember(ctx.prisma, ctx.actor, { ...input, publicUrl: ctx.config.PUBLIC_URL })),
  revokeInvitation: ownerProcedure
    .input(revokeInvitationInputSchema)
    .mutation(({ ctx, input }) => revokeInvitation(ctx.prisma, ctx.actor, input)),
  /** Public: what an invitation link offers, for the accept page. */
  /**
   * Public: what an invitation link offers, for the accept page. A link that cannot be used
   * (used, withdrawn, expired, malformed) is an answer with the reason, not a 404: it is
   * what the page expects to show, not an error.
   */
  describeInvitation: publicProcedure
    .input(z.object({ token: invitationTokenSchema }))
    .query(async ({ ctx, input }) => {
      try {
        return { usable: true as const, ...(await describeInvitation(ctx.prisma, input)) };
      } catch (error) {
        if (error instanceof AppError && error.code === 'NOT_FOUND')
          return { usable: false as const, message: error.message };
        throw error;
      }
    }),
  /** Public: a new email signs up and joins; an existing user signs in first and joins with no password. */
  acceptInvitation: publicProcedure.input(acceptInvitationInputSchema).mutation(async ({ ctx, input }) => {
    assertAuthAttemptAllowed(ctx.config, ctx.ip);
    const previous = ctx.cookies[SESSION_COOKIE];
    const signedIn = previous ? await findSessionUser(ctx.prisma, previous) : null;
    const result = await acceptInvitation(ctx.prisma, input, signedIn);
    if (result.sessionToken) {
      if (previous) await deleteSession(ctx.prisma, previous);
      ctx.setCookie(SESSION_COOKIE, result.sessionToken, { maxAgeSeconds: SESSION_TTL_SECONDS });
    }
    return { userId: result.userId, organizationId: result.organizationId };
  }),
  /** The last owner cannot be demoted. */
  changeRole: ownerProcedure
    .input(changeRoleInputSchema)
    .mutation(({ ctx, input }) => changeMemberRole(ctx.prisma, ctx.actor, input)),
  /** The last owner cannot be removed; the member's tokens for this organization are revoked. */
  remove: ownerProcedure
    .input(removeMemberInputSchema)
    .mutation(({ ctx, input }) => removeMember(ctx.prisma, ctx.actor, input)),
});
