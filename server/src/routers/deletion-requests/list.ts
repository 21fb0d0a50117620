import { z } from 'zod';
import { deletionRequestSchema, listQuerySchema } from '@shared/schemas/deletion-request';
import type { Context } from '../../trpc/context';
import { assertWorkspaceAllowed, type Actor } from '../../services/auth/actor';
import { memberProcedure } from '../../trpc/procedures';
import { listDeletionRequests, type ListScope } from '../../services/deletion-requests/list-deletion-requests';
import { assertMember } from '../../services/organizations/organizations';
import { findWorkspaceByApiKey, getWorkspace } from '../../services/workspaces/workspaces';
import { restMeta } from '../rest-meta';
import { listRequestHeaders, listResponseHeaders, setNextLink, TAG } from './shared-meta';

type ListQuery = z.infer<typeof listQuerySchema>;

/** Runs a list in `scope`, narrowed by the optional X-Workspace-Api-Key header, and sets the Link header. */
async function runList(ctx: Context & { actor: Actor }, scope: ListScope, query: ListQuery, path: string) {
  const workspaceKey = ctx.headers['x-workspace-api-key'];
  if (workspaceKey !== undefined) {
    const keyed = await findWorkspaceByApiKey(ctx.prisma, ctx.actor, workspaceKey);
    assertWorkspaceAllowed(ctx.actor, keyed.id);
    // A key for another workspace than the one in the path narrows to nothing.
    if (scope.workspaceId && scope.workspaceId !== keyed.id) return [];
    scope = { ...scope, workspaceId: keyed.id };
  }
  // A token limited to workspaces sees only their requests.
  if (!scope.workspaceId && ctx.actor.workspaceIds) scope = { ...scope, workspaceIds: ctx.actor.workspaceIds };
  const { items, nextCursor } = await listDeletionRequests(ctx.prisma, scope, query);
  const { cursor: _cursor, ...echo } = query;
  setNextLink(ctx, path, echo, nextCursor);
  return items;
}

const listMeta = (path: `/${string}`, operationId: string, summary: string, description: string, notFound: string) =>
  restMeta({
    method: 'GET',
    path,
    operationId,
    tag: TAG,
    scope: 'requests:read',
    summary,
    description: `${description} Newest first. Paginated with \`limit\` and \`cursor\`; the next page is announced in the \`Link\` header.`,
    successDescription: 'One page of deletion requests, newest first (an empty array when there are none).',
    requestHeaders: listRequestHeaders,
    responseHeaders: listResponseHeaders,
    errors: { 400: 'Invalid query parameter (limit, cursor, fetchHashed, fetchIntegrationRequests).', 404: notFound },
  });

const output = z.array(deletionRequestSchema);

export const listOrganization = memberProcedure
  .meta(
    listMeta(
      '/deletion-requests/organization',
      'listOrganizationDeletionRequests',
      "List the organization's deletion requests",
      "Every deletion request in the token's organization.",
      'The X-Workspace-Api-Key header names no workspace of this organization.',
    ),
  )
  .input(listQuerySchema)
  .output(output)
  .query(({ ctx, input }) =>
    runList(ctx, { organizationId: ctx.actor.organizationId }, input, '/deletion-requests/organization'),
  );

export const listWorkspace = memberProcedure
  .meta(
    listMeta(
      '/deletion-requests/workspace/{workspaceId}',
      'listWorkspaceDeletionRequests',
      "List a workspace's deletion requests",
      "The deletion requests of one workspace of the token's organization.",
      'No such workspace in this organization, or the X-Workspace-Api-Key header names none.',
    ),
  )
  .input(listQuerySchema.extend({ workspaceId: z.string().max(64) }))
  .output(output)
  .query(async ({ ctx, input }) => {
    const { workspaceId, ...query } = input;
    await getWorkspace(ctx.prisma, ctx.actor, workspaceId);
    assertWorkspaceAllowed(ctx.actor, workspaceId);
    return runList(
      ctx,
      { organizationId: ctx.actor.organizationId, workspaceId },
      query,
      `/deletion-requests/workspace/${encodeURIComponent(workspaceId)}`,
    );
  });

export const listUser = memberProcedure
  .meta(
    listMeta(
      '/deletion-requests/user/{userId}',
      'listUserDeletionRequests',
      'List the deletion requests a user created',
      "The deletion requests created by one member of the token's organization.",
      'No such member of this organization, or the X-Workspace-Api-Key header names no workspace of it.',
    ),
  )
  .input(listQuerySchema.extend({ userId: z.string().max(64) }))
  .output(output)
  .query(async ({ ctx, input }) => {
    const { userId, ...query } = input;
    await assertMember(ctx.prisma, ctx.actor, userId);
    return runList(
      ctx,
      { organizationId: ctx.actor.organizationId, createdByUserId: userId },
      query,
      `/deletion-requests/user/${encodeURIComponent(userId)}`,
    );
  });
