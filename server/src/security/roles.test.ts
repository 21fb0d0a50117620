import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '@shared/statuses';
import { ID_PREFIX, newId } from '../lib/ids';
import { appRouter } from '../routers/root';
import { createSession } from '../services/auth/sessions';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../test/harness';

/**
 * The permission model, one line per procedure: the least role that may call it.
 * PUBLIC: anyone (sign-up, sign-in); SELF: any signed-in member, acting on their own
 * things (profile, own tokens). Members create and view requests; admins manage
 * workspaces, integrations and accounts; owners manage members, retention and the
 * organization. A procedure missing here fails the test: add it with its role.
 */
const MINIMUM_ROLE: Record<string, 'PUBLIC' | 'SELF' | Role> = {
  'auth.signUp': 'PUBLIC',
  'auth.signIn': 'PUBLIC',
  'auth.signOut': 'PUBLIC',
  'auth.me': 'SELF',
  'auth.session': 'PUBLIC',
  'organization.retentionPreview': 'OWNER',
  'auth.switchOrganization': 'SELF',
  'auth.capabilities': 'PUBLIC',
  'auth.requestPasswordReset': 'PUBLIC',
  'auth.resetPassword': 'PUBLIC',
  'auth.verifyEmail': 'PUBLIC',
  'auth.resendVerification': 'SELF',
  'tokens.create': 'SELF',
  'tokens.list': 'SELF',
  'tokens.revoke': 'SELF',

  'organization.get': 'MEMBER',
  'organization.rename': 'OWNER',
  'organization.updateRetention': 'OWNER',
  'organization.updateReverification': 'OWNER',
  'organization.applyRetentionNow': 'OWNER',

  'workspaces.list': 'MEMBER',
  'workspaces.get': 'MEMBER',
  'workspaces.create': 'ADMIN',
  'workspaces.rename': 'ADMIN',
  'workspaces.delete': 'ADMIN',
  'workspaces.revealApiKey': 'ADMIN',
  'workspaces.rotateApiKey': 'ADMIN',

  'deletionRequests.create': 'MEMBER',
  'deletionRequests.createInWorkspace': 'MEMBER',
  'deletionRequests.importCsv': 'MEMBER',
  'deletionRequests.deleteAgain': 'MEMBER',
  'deletionRequests.listOrganization': 'MEMBER',
  'deletionRequests.listWorkspace': 'MEMBER',
  'deletionRequests.listUser': 'MEMBER',
  'deletionRequests.get': 'MEMBER',
  'deletionRequests.auditTrail': 'MEMBER',
  'deletionRequests.retry': 'MEMBER',
  'deletionRequests.retryIntegration': 'MEMBER',
  'deletionRequests.checkStatusNow': 'MEMBER',
  'deletionRequests.checkStatus': 'MEMBER',
  'deletionRequests.cancel': 'MEMBER',
  'deletionRequests.cancelIntegration': 'MEMBER',
  'deletionRequests.bulkRetry': 'MEMBER',
  'deletionRequests.bulkCancel': 'MEMBER',
  'deletionRequests.countMatching': 'MEMBER',

  'accounts.list': 'ADMIN',
  'accounts.get': 'ADMIN',
  'accounts.create': 'ADMIN',
  'accounts.update': 'ADMIN',
  'accounts.delete': 'ADMIN',
  'accounts.oauthProviders': 'ADMIN',
  'accounts.connectOAuth': 'ADMIN',

  'integrations.list': 'MEMBER',
  'integrations.get': 'MEMBER',
  'integrations.create': 'ADMIN',
  'integrations.update': 'ADMIN',
  'integrations.swapAccount': 'ADMIN',
  'integrations.setEnabled': 'ADMIN',
  'integrations.delete': 'ADMIN',
  'integrations.testConnection': 'ADMIN',
  'integrations.rotateHashKey': 'ADMIN',
  'integrations.discoverSchema': 'ADMIN',
  'integrations.dryRun': 'ADMIN',
  'integrations.testConfiguration': 'ADMIN',
  'integrations.foreignKeyGraph': 'ADMIN',

  'dashboard.overview': 'MEMBER',
  'dashboard.searchRequests': 'MEMBER',
  'dashboard.requestDetail': 'MEMBER',
  'dashboard.revealIdentifier': 'MEMBER',
  'dashboard.personRequests': 'MEMBER',
  'dashboard.openDuplicates': 'MEMBER',
  'dashboard.revealAuditTrail': 'MEMBER',
  'dashboard.members': 'MEMBER',
  'dashboard.workspaceUsage': 'MEMBER',
  'dashboard.setupProgress': 'MEMBER',
  'dashboard.auditLog': 'ADMIN',
  'dashboard.auditLogActions': 'ADMIN',
  'dashboard.verifyAuditChain': 'ADMIN',

  'deadlines.regulations': 'MEMBER',
  'deadlines.createPolicy': 'ADMIN',
  'deadlines.deletePolicy': 'ADMIN',
  'deadlines.setDefault': 'ADMIN',
  'deadlines.setTimeZone': 'ADMIN',
  'deadlines.setWorkspaceRegulation': 'ADMIN',
  'deadlines.extend': 'MEMBER',
  'deadlines.confirmReceipt': 'MEMBER',
  'deadlines.correctReceiptConfirmation': 'ADMIN',

  'notifications.settings': 'ADMIN',
  'notifications.update': 'ADMIN',
  'notifications.sendTest': 'ADMIN',

  'erasureChecks.check': 'MEMBER',
  'erasureChecks.checkBatch': 'MEMBER',

  'identities.listTypes': 'MEMBER',
  'identities.createType': 'ADMIN',
  'identities.deleteType': 'ADMIN',
  'identities.setIntegrationType': 'ADMIN',
  'identities.requestIdentifiers': 'MEMBER',
  'identities.revealRequestIdentifier': 'MEMBER',
  'identities.listLookups': 'ADMIN',
  'identities.createLookup': 'ADMIN',
  'identities.deleteLookup': 'ADMIN',
  'callbacks.list': 'ADMIN',
  'callbacks.create': 'ADMIN',
  'callbacks.update': 'ADMIN',
  'callbacks.delete': 'ADMIN',
  'callbacks.rotateSecret': 'ADMIN',
  'callbacks.sendTest': 'ADMIN',
  'callbacks.deliveries': 'ADMIN',
  'callbacks.resend': 'ADMIN',

  'members.list': 'MEMBER',
  'members.invitations': 'OWNER',
  'members.invite': 'OWNER',
  'members.revokeInvitation': 'OWNER',
  'members.describeInvitation': 'PUBLIC',
  'members.acceptInvitation': 'PUBLIC',
  'members.changeRole': 'OWNER',
  'members.remove': 'OWNER',

  'manualTasks.list': 'MEMBER',
  'manualTasks.answer': 'MEMBER',
  'manualTasks.ofRequest': 'MEMBER',
  // The owner's task page: the emailed link's token is the only credential.
  'manualTasks.openTask': 'PUBLIC',
  'manualTasks.revealOnTask': 'PUBLIC',
  'manualTasks.answerOnTask': 'PUBLIC',
};

const RANK = { PUBLIC: 0, SELF: 1, MEMBER: 1, ADMIN: 2, OWNER: 3 } as const;
const ROLES: Role[] = ['MEMBER', 'ADMIN', 'OWNER'];

const procedurePaths = () =>
  Object.keys((appRouter._def as unknown as { procedures: Record<string, unknown> }).procedures).sort();

let env: TestEnv;
let org: Awaited<ReturnType<typeof seedOrganization>>;
const userByRole = {} as Record<Role, string>;

beforeAll(async () => {
  env = await createTestEnv();
  org = await seedOrganization(env.deps, 'roles');
  userByRole.OWNER = org.user.id;
  for (const role of ['ADMIN', 'MEMBER'] as const) {
    const id = newId(ID_PREFIX.user);
    await env.db.prisma.user.create({
      data: { id, email: `${role.toLowerCase()}-${id}@example.com`, name: role, passwordHash: 'x' },
    });
    await env.db.prisma.membership.create({
      data: { id: newId(ID_PREFIX.membership), userId: id, organizationId: org.organization.id, role },
    });
    userByRole[role] = id;
  }
});
afterAll(() => env?.close());

async function callAs(role: Role, path: string): Promise<string> {
  // A fresh session per call: some procedures (sign-out) end the session they run in.
  const sessionToken = await createSession(env.db.prisma, userByRole[role], org.organization.id);
  const { caller } = callerFor(env.deps, { sessionToken });
  const procedure = path.split('.').reduce<any>((node, key) => node[key], caller);
  try {
    // Deliberately invalid input: the role check runs before input validation, so the
    // permitted roles stop at BAD_REQUEST (or run, for procedures without input).
    await procedure({});
    return 'OK';
  } catch (error) {
    return error instanceof TRPCError ? error.code : 'THROWN';
  }
}

describe('roles: every procedure with every role', () => {
  it('the expected-role table lists exactly the procedures of appRouter', () => {
    const paths = procedurePaths();
    const missing = paths.filter((p) => !(p in MINIMUM_ROLE));
    expect(missing, `procedures without an expected role in security/roles.test.ts: ${missing.join(', ')}`).toEqual([]);
    expect(Object.keys(MINIMUM_ROLE).filter((p) => !paths.includes(p))).toEqual([]);
  });

  it("FORBIDDEN exactly below each procedure's role, for MEMBER, ADMIN and OWNER", { timeout: 120_000 }, async () => {
    const mismatches: string[] = [];
    for (const path of procedurePaths()) {
      const minimum = MINIMUM_ROLE[path];
      if (!minimum) continue;
      for (const role of ROLES) {
        const outcome = await callAs(role, path);
        const allowed = RANK[role] >= RANK[minimum];
        if (allowed && (outcome === 'FORBIDDEN' || outcome === 'UNAUTHORIZED'))
          mismatches.push(`${path} as ${role}: ${outcome}, expected access`);
        if (!allowed && outcome !== 'FORBIDDEN') mismatches.push(`${path} as ${role}: ${outcome}, expected FORBIDDEN`);
      }
    }
    expect(mismatches).toEqual([]);
  });
});
