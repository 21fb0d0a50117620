import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ID_PREFIX, newId } from '../../lib/ids';
import { AppError } from '../../lib/errors';
import { createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';
import { authenticateSession } from './authenticate';
import { createSession } from './sessions';

let env: TestEnv;
let first: Awaited<ReturnType<typeof seedOrganization>>;
let second: Awaited<ReturnType<typeof seedOrganization>>;

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (error instanceof AppError ? `${error.code}: ${error.message}` : String(error)),
  );

beforeAll(async () => {
  env = await createTestEnv();
  first = await seedOrganization(env.deps, 'session-first');
  second = await seedOrganization(env.deps, 'session-second');
  // The first organization's owner also joins the second one, later, as a member.
  await env.db.prisma.membership.create({
    data: {
      id: newId(ID_PREFIX.membership),
      userId: first.user.id,
      organizationId: second.organization.id,
      role: 'MEMBER',
      createdAt: new Date(Date.now() + 1000),
    },
  });
});
afterAll(() => env?.close());

describe('authenticateSession', () => {
  it('acts in the active organization with the role held there', async () => {
    const token = await createSession(env.db.prisma, first.user.id, second.organization.id);
    expect(await authenticateSession(env.db.prisma, token)).toMatchObject({
      userId: first.user.id,
      organizationId: second.organization.id,
      role: 'MEMBER',
      via: 'session',
    });
  });

  it("falls back to the user's first membership when the session has no active organization or has left it", async () => {
    const none = await createSession(env.db.prisma, first.user.id, null);
    expect(await authenticateSession(env.db.prisma, none)).toMatchObject({
      organizationId: first.organization.id,
      role: 'OWNER',
    });
    // The second organization's owner is only in it: a session pointing at the first one acts in the second.
    const elsewhere = await createSession(env.db.prisma, second.user.id, first.organization.id);
    expect(await authenticateSession(env.db.prisma, elsewhere)).toMatchObject({
      organizationId: second.organization.id,
      role: 'OWNER',
    });
  });

  it('refuses unknown and expired sessions, and a user who belongs to no organization', async () => {
    expect(await failure(authenticateSession(env.db.prisma, 'dds_ses_unknown'))).toBe('UNAUTHORIZED: Please sign in');
    const token = await createSession(env.db.prisma, second.user.id, second.organization.id);
    const later = new Date(Date.now() + 30 * 24 * 3600 * 1000);
    expect(await failure(authenticateSession(env.db.prisma, token, later))).toBe('UNAUTHORIZED: Please sign in');

    const loner = await env.db.prisma.user.create({
      data: { id: newId(ID_PREFIX.user), email: 'loner@example.com', name: 'Loner', passwordHash: 'x' },
    });
    const lonely = await createSession(env.db.prisma, loner.id, null);
    expect(await failure(authenticateSession(env.db.prisma, lonely))).toBe(
      'FORBIDDEN: You are not a member of any organization',
    );
  });
});
