import { acceptInvitationSignUpSchema } from '@shared/schemas/members';
import type { Db } from '../../db/client';
import { AppError } from '../../lib/errors';
import { ID_PREFIX, newId } from '../../lib/ids';
import { hashPassword } from '../../lib/passwords';
import { hashToken, isWellFormedToken } from '../../lib/tokens';
import type { Actor } from '../auth/actor';
import { createSession } from '../auth/sessions';
import { recordAudit } from '../audit/record-audit';

const INVALID_INVITATION_LINK =
  'This invitation link is not valid: it was already used, withdrawn, or it has expired. Ask for a new one.';

/** The usable invitation behind a link, or NOT_FOUND for every way a link can be unusable. */
async function findUsableInvitation(db: Db, token: string, now: Date) {
  if (!isWellFormedToken('invitation', token)) throw new AppError('NOT_FOUND', INVALID_INVITATION_LINK);
  const invitation = await db.invitation.findUnique({
    where: { tokenHash: hashToken(token) },
    select: {
      id: true,
      email: true,
      role: true,
      expiresAt: true,
      acceptedAt: true,
      organization: { select: { id: true, name: true } },
    },
  });
  if (!invitation || invitation.acceptedAt || invitation.expiresAt <= now)
    throw new AppError('NOT_FOUND', INVALID_INVITATION_LINK);
  return invitation;
}

/** What the accept page shows: who invites whom, as what, and whether to sign in or sign up. */
export async function describeInvitation(db: Db, input: { token: string }, now = new Date()) {
  const invitation = await findUsableInvitation(db, input.token, now);
  const user = await db.user.findUnique({ where: { email: invitation.email }, select: { id: true } });
  return {
    organizationName: invitation.organization.name,
    email: invitation.email,
    role: invitation.role,
    expiresAt: invitation.expiresAt.toISOString(),
    existingUser: Boolean(user),
  };
}

export const SIGN_IN_FIRST = 'This email already has an account: sign in with it first, then accept the invitation.';

/**
 * Joins the invited organization with the invited role. An existing user (same email) must
 * already be signed in as that user (the session proves it; no password is checked here,
 * so sign-in's per-account limit is the only way to try one); anyone else becomes a new
 * user. The link works once. Returns the session to set as the cookie: the caller's own,
 * now acting in the organization, or a new one for a new user.
 */
export async function acceptInvitation(
  db: Db,
  input: { token: string; name?: string; password?: string },
  signedIn: { sessionId: string; userId: string } | null,
  now = new Date(),
) {
  const invitation = await findUsableInvitation(db, input.token, now);
  const organizationId = invitation.organization.id;
  const user = await db.user.findUnique({ where: { email: invitation.email }, select: { id: true } });
  let newUser: { id: string; name: string; passwordHash: string } | null = null;
  if (user) {
    if (input.password !== undefined || signedIn?.userId !== user.id) throw new AppError('UNAUTHORIZED', SIGN_IN_FIRST);
  } else {
    const parsed = acceptInvitationSignUpSchema.safeParse({ name: input.name, password: input.password });
    if (!parsed.success)
      throw new AppError('BAD_REQUEST', 'Choose your name and a password', { issues: parsed.error.issues });
    newUser = {
      id: newId(ID_PREFIX.user),
      name: parsed.data.name,
      passwordHash: await hashPassword(parsed.data.password),
    };
  }
  const userId = user?.id ?? newUser!.id;
  await db.$transaction(async (tx) => {
    // Claiming the invitation first makes a second use of the same link fail.
    const claimed = await tx.invitation.updateMany({
      where: { id: invitation.id, acceptedAt: null },
      data: { acceptedAt: now },
    });
    if (claimed.count === 0) throw new AppError('NOT_FOUND', INVALID_INVITATION_LINK);
    if (newUser) await tx.user.create({ data: { ...newUser, email: invitation.email } });
    const membership = await tx.membership.findUnique({
      where: { userId_organizationId: { userId, organizationId } },
      select: { id: true },
    });
    if (!membership)
      await tx.membership.create({
        data: { id: newId(ID_PREFIX.membership), userId, organizationId, role: invitation.role },
      });
    const actor: Actor = { userId, organizationId, role: invitation.role, via: 'session' };
    await recordAudit(tx, actor, {
      organizationId,
      action: 'member.joined',
      summary: `${invitation.email} joined as ${invitation.role.toLowerCase()}${newUser ? ' (new user)' : ''}`,
      details: { invitationId: invitation.id, userId, role: invitation.role },
    });
  });
  if (!newUser && signedIn) {
    await db.session.update({ where: { id: signedIn.sessionId }, data: { activeOrganizationId: organizationId } });
    return { userId, organizationId, sessionToken: null };
  }
  const sessionToken = await createSession(db, userId, organizationId);
  return { userId, organizationId, sessionToken };
}
