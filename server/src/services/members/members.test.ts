import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ID_PREFIX, newId } from '../../lib/ids';
import { createSession } from '../auth/sessions';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';

let env: TestEnv;
let org: Awaited<ReturnType<typeof seedOrganization>>;
let owner: ReturnType<typeof callerFor>['caller'];

const tokenOf = (link: string) => decodeURIComponent(link.split('/invite/')[1]!);
const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'OK',
    (error) => (error instanceof TRPCError ? error.code : String(error)),
  );

async function callerAs(userId: string, organizationId = org.organization.id) {
  return callerFor(env.deps, { sessionToken: await createSession(env.db.prisma, userId, organizationId) });
}

beforeAll(async () => {
  env = await createTestEnv();
  org = await seedOrganization(env.deps, 'members');
  ({ caller: owner } = await callerAs(org.user.id));
});
afterAll(() => env?.close());

describe('invitations', () => {
  it('returns a one-time link under PUBLIC_URL; a new user signs up through it and joins with the role', async () => {
    const invitation = await owner.members.invite({ email: ' New.Admin@Example.com ', role: 'ADMIN' });
    expect(invitation.link).toMatch(/^http:\/\/localhost:3000\/invite\/dds_inv_/);
    expect(invitation.email).toBe('new.admin@example.com');
    const stored = await env.db.prisma.invitation.findUniqueOrThrow({ where: { id: invitation.id } });
    expect(stored.tokenHash).not.toContain(tokenOf(invitation.link));
    expect((await owner.members.invitations()).map((i) => i.email)).toContain('new.admin@example.com');

    const { caller: visitor, ctx } = callerFor(env.deps);
    const described = await visitor.members.describeInvitation({ token: tokenOf(invitation.link) });
    expect(described).toMatchObject({ organizationName: 'members', role: 'ADMIN', existingUser: false });
    const joined = await visitor.members.acceptInvitation({
      token: tokenOf(invitation.link),
      name: 'Ada Admin',
      password: 'a long enough passphrase',
    });
    expect(joined.organizationId).toBe(org.organization.id);
    expect(ctx.cookies.dds_session).toBeTruthy();

    // The new session acts in the organization with the invited role.
    const me = await visitor.auth.me();
    expect(me).toMatchObject({
      organizationId: org.organization.id,
      role: 'ADMIN',
      user: { email: 'new.admin@example.com', name: 'Ada Admin' },
    });
    // Used once: the link no longer works and the invitation is no longer pending.
    expect(
      await codeOf(
        callerFor(env.deps).caller.members.acceptInvitation({
          token: tokenOf(invitation.link),
          name: 'X',
          password: 'a long enough passphrase',
        }),
      ),
    ).toBe('NOT_FOUND');
    expect((await owner.members.invitations()).map((i) => i.email)).not.toContain('new.admin@example.com');
    const audit = await env.db.prisma.auditLog.findMany({
      where: { organizationId: org.organization.id, action: { in: ['member.invited', 'member.joined'] } },
    });
    expect(audit.map((a) => a.action).sort()).toEqual(['member.invited', 'member.joined']);
  });

  it('takes no password from an existing user: they sign in first, then accept with their session', async () => {
    const other = await seedOrganization(env.deps, 'elsewhere');
    const invitation = await owner.members.invite({ email: other.email, role: 'MEMBER' });
    const token = tokenOf(invitation.link);
    const { caller: visitor, ctx } = callerFor(env.deps);
    expect(await visitor.members.describeInvitation({ token })).toMatchObject({ existingUser: true });
    // Not signed in: even the right password gets nothing (it is never checked here).
    for (const password of ['correct horse battery staple', 'not the password', undefined]) {
      await expect(visitor.members.acceptInvitation({ token, password })).rejects.toMatchObject({
        code: 'UNAUTHORIZED',
      });
    }
    expect(ctx.cookies.dds_session).toBeUndefined();
    // Signed in as somebody else: refused too.
    const { caller: stranger } = await callerAs(org.user.id);
    await expect(stranger.members.acceptInvitation({ token })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    // Signed in as the invited user: joins, and the same session now acts in the organization.
    const { caller: invited, ctx: invitedCtx } = await callerAs(other.user.id, other.organization.id);
    const session = invitedCtx.cookies.dds_session;
    await invited.members.acceptInvitation({ token });
    expect(invitedCtx.cookies.dds_session).toBe(session);
    const me = await invited.auth.me();
    expect(me).toMatchObject({ organizationId: org.organization.id, role: 'MEMBER' });
    expect(me.organizations.map((o) => o.id).sort()).toEqual([org.organization.id, other.organization.id].sort());
  });

  it('refuses sign-up with a weak password, naming the field, and keeps the link usable', async () => {
    const invitation = await owner.members.invite({ email: 'weak@example.com', role: 'MEMBER' });
    const { caller: visitor } = callerFor(env.deps);
    const error = await visitor.members
      .acceptInvitation({ token: tokenOf(invitation.link), name: 'Weak', password: 'short' })
      .catch((e: TRPCError) => e);
    expect((error as TRPCError).code).toBe('BAD_REQUEST');
    expect(JSON.stringify((error as TRPCError).cause ?? error)).toContain('password');
    expect(await visitor.members.describeInvitation({ token: tokenOf(invitation.link) })).toMatchObject({
      email: 'weak@example.com',
    });
  });

  it('refuses expired, withdrawn, replaced and malformed links alike', async () => {
    const { caller: visitor } = callerFor(env.deps);
    const first = await owner.members.invite({ email: 'twice@example.com', role: 'MEMBER' });
    const second = await owner.members.invite({ email: 'twice@example.com', role: 'ADMIN' });
    expect(await visitor.members.describeInvitation({ token: tokenOf(first.link) })).toMatchObject({
      usable: false,
      message: expect.stringContaining('not valid'),
    });
    expect(await visitor.members.describeInvitation({ token: tokenOf(second.link) })).toMatchObject({
      usable: true,
      role: 'ADMIN',
    });

    await owner.members.revokeInvitation({ invitationId: second.id });
    expect(await visitor.members.describeInvitation({ token: tokenOf(second.link) })).toMatchObject({ usable: false });

    const expired = await owner.members.invite({ email: 'late@example.com', role: 'MEMBER' });
    await env.db.prisma.invitation.update({
      where: { id: expired.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect(
      await codeOf(
        visitor.members.acceptInvitation({
          token: tokenOf(expired.link),
          name: 'Late',
          password: 'a long enough passphrase',
        }),
      ),
    ).toBe('NOT_FOUND');
    expect(await visitor.members.describeInvitation({ token: 'dds_inv_nonsense' })).toMatchObject({ usable: false });
  });

  it('refuses to invite someone who is already a member', async () => {
    await expect(owner.members.invite({ email: org.email, role: 'ADMIN' })).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it("does not let another organization withdraw this organization's invitation", async () => {
    const invitation = await owner.members.invite({ email: 'mine@example.com', role: 'MEMBER' });
    const stranger = await seedOrganization(env.deps, 'stranger');
    const { caller } = await callerAs(stranger.user.id, stranger.organization.id);
    expect(await codeOf(caller.members.revokeInvitation({ invitationId: invitation.id }))).toBe('NOT_FOUND');
  });
});

describe('roles and removal', () => {
  async function addMember(role: 'OWNER' | 'ADMIN' | 'MEMBER') {
    const id = newId(ID_PREFIX.user);
    await env.db.prisma.user.create({ data: { id, email: `${id}@example.com`, name: id, passwordHash: 'x' } });
    await env.db.prisma.membership.create({
      data: { id: newId(ID_PREFIX.membership), userId: id, organizationId: org.organization.id, role },
    });
    return id;
  }

  it('changes a role, audited, and the member acts with the new role at once', async () => {
    const userId = await addMember('MEMBER');
    const { caller: member } = await callerAs(userId);
    expect(await codeOf(member.workspaces.create({ name: 'Not yet' }))).toBe('FORBIDDEN');
    await owner.members.changeRole({ userId, role: 'ADMIN' });
    expect((await member.workspaces.create({ name: 'Now allowed' })).name).toBe('Now allowed');
    expect((await owner.members.list()).find((m) => m.id === userId)?.role).toBe('ADMIN');
    const entry = await env.db.prisma.auditLog.findFirst({
      where: { organizationId: org.organization.id, action: 'member.role_changed' },
    });
    expect(entry?.summary).toContain('is now admin (was member)');
  });

  it('never leaves the organization without an owner', async () => {
    const solo = await seedOrganization(env.deps, 'solo');
    const { caller } = await callerAs(solo.user.id, solo.organization.id);
    await expect(caller.members.changeRole({ userId: solo.user.id, role: 'ADMIN' })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining('at least one owner'),
    });
    await expect(caller.members.remove({ userId: solo.user.id })).rejects.toMatchObject({ code: 'CONFLICT' });

    // With a second owner, either may step down, but not both.
    const second = newId(ID_PREFIX.user);
    await env.db.prisma.user.create({
      data: { id: second, email: `${second}@example.com`, name: 'Second', passwordHash: 'x' },
    });
    await env.db.prisma.membership.create({
      data: { id: newId(ID_PREFIX.membership), userId: second, organizationId: solo.organization.id, role: 'OWNER' },
    });
    const { caller: secondCaller } = await callerAs(second, solo.organization.id);
    const outcomes = await Promise.all([
      codeOf(caller.members.changeRole({ userId: solo.user.id, role: 'MEMBER' })),
      codeOf(secondCaller.members.changeRole({ userId: second, role: 'MEMBER' })),
    ]);
    expect(outcomes.sort()).toEqual(['CONFLICT', 'OK']);
    const owners = await env.db.prisma.membership.count({
      where: { organizationId: solo.organization.id, role: 'OWNER' },
    });
    expect(owners).toBe(1);
  });

  it('removes a member: their tokens for the organization stop working', async () => {
    const userId = await addMember('MEMBER');
    const { caller: member } = await callerAs(userId);
    const token = await member.tokens.create({ name: 'script' });
    const { caller: viaPat } = callerFor(env.deps, { pat: token.token });
    expect((await viaPat.organization.get()).id).toBe(org.organization.id);
    await owner.members.remove({ userId });
    expect((await owner.members.list()).some((m) => m.id === userId)).toBe(false);
    expect(await codeOf(viaPat.organization.get())).toBe('UNAUTHORIZED');
    expect(
      (await env.db.prisma.personalAccessToken.findUniqueOrThrow({ where: { id: token.id } })).revokedAt,
    ).not.toBeNull();
  });

  it('answers NOT_FOUND for a user of another organization', async () => {
    const stranger = await seedOrganization(env.deps, 'stranger2');
    expect(await codeOf(owner.members.changeRole({ userId: stranger.user.id, role: 'MEMBER' }))).toBe('NOT_FOUND');
    expect(await codeOf(owner.members.remove({ userId: stranger.user.id }))).toBe('NOT_FOUND');
  });
});
