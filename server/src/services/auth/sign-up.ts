import type { Db } from '../../db/client';
import { AppError } from '../../lib/errors';
import { ID_PREFIX, newId } from '../../lib/ids';
import { hashPassword } from '../../lib/passwords';
import { recordAudit } from '../audit/record-audit';
import type { Actor } from './actor';
import { createSession } from './sessions';

export interface SignUpInput {
  email: string;
  password: string;
  name: string;
  organizationName: string;
}

/** Creates a user and their organization (the user is its owner). */
export async function createUserWithOrganization(db: Db, input: SignUpInput) {
  const email = input.email.trim().toLowerCase();
  const passwordHash = await hashPassword(input.password);
  const userId = newId(ID_PREFIX.user);
  const organizationId = newId(ID_PREFIX.organization);
  try {
    return await db.$transaction(async (tx) => {
      const user = await tx.user.create({
        data: { id: userId, email, name: input.name, passwordHash },
        select: { id: true, email: true, name: true },
      });
      const organization = await tx.organization.create({
        data: { id: organizationId, name: input.organizationName },
        select: { id: true, name: true },
      });
      await tx.membership.create({ data: { id: newId(ID_PREFIX.membership), userId, organizationId, role: 'OWNER' } });
      const actor: Actor = { userId, organizationId, role: 'OWNER', via: 'session' };
      await recordAudit(tx, actor, {
        organizationId,
        action: 'organization.created',
        summary: `Organization "${organization.name}" created by ${email}`,
      });
      return { user, organization };
    });
  } catch (error) {
    if ((error as { code?: string }).code === 'P2002')
      throw new AppError('CONFLICT', 'An account with this email already exists');
    throw error;
  }
}

export async function signUp(db: Db, input: SignUpInput) {
  const created = await createUserWithOrganization(db, input);
  const sessionToken = await createSession(db, created.user.id, created.organization.id);
  return { ...created, sessionToken };
}
