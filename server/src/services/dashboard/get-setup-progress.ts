import type { Db } from '../../db/client';
import type { Actor } from '../auth/actor';

/** The action recorded when a saved integration's "Test connection" runs (outcome SUCCESS when it passed). */
export const CONNECTION_TESTED_ACTION = 'integration.connection_tested';

/** Which first steps an organization has taken, for the Overview's setup checklist. */
export interface SetupProgress {
  workspaceCreated: boolean;
  /** A connection test passed, or a destination confirmed a deletion (proof enough that it works). */
  integrationTested: boolean;
  firstRequest: boolean;
  /** A second member, or an invitation sent (accepted or not). */
  teammateInvited: boolean;
  /** A callback endpoint or a personal access token, revoked or not: the API has been set up once. */
  callbackOrToken: boolean;
}

export async function getSetupProgress(db: Db, actor: Actor): Promise<SetupProgress> {
  const organizationId = actor.organizationId;
  const found = <T>(row: T | null) => row !== null;
  const [workspace, passedTest, succeeded, request, members, invitation, endpoint, token] = await Promise.all([
    db.workspace.findFirst({ where: { organizationId }, select: { id: true } }),
    db.auditLog.findFirst({
      where: { organizationId, action: CONNECTION_TESTED_ACTION, outcome: 'SUCCESS' },
      select: { id: true },
    }),
    db.integrationRequest.findFirst({
      where: { status: 'SUCCESS', deletionRequest: { organizationId } },
      select: { id: true },
    }),
    db.deletionRequest.findFirst({ where: { organizationId }, select: { id: true } }),
    db.membership.count({ where: { organizationId } }),
    db.invitation.findFirst({ where: { organizationId }, select: { id: true } }),
    db.callbackEndpoint.findFirst({ where: { organizationId }, select: { id: true } }),
    db.personalAccessToken.findFirst({ where: { organizationId }, select: { id: true } }),
  ]);
  return {
    workspaceCreated: found(workspace),
    integrationTested: found(passedTest) || found(succeeded),
    firstRequest: found(request),
    teammateInvited: members > 1 || found(invitation),
    callbackOrToken: found(endpoint) || found(token),
  };
}
