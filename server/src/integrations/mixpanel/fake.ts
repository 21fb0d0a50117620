import { randomUUID } from 'node:crypto';
import { bearerOf, jsonOf, startFakeServer, stepAt, type FakeVendor } from '../../test/fakes/vendor-server';

export interface MixpanelTask {
  taskId: string;
  projectToken: string;
  distinctIds: string[];
  complianceType: string;
  /** The user the GDPR token belongs to (`requesting_user` of the status answer). */
  requestingUser: string;
  createdAt: number;
  revoked: boolean;
  finalStatus: 'SUCCESS' | 'FAILURE';
}

export interface MixpanelFakeState {
  /** GDPR OAuth tokens Mixpanel accepts (Bearer), each belonging to a user (an email). */
  tokens: Set<string>;
  /** Project tokens that exist. */
  projects: Set<string>;
  tasks: Map<string, MixpanelTask>;
  /** How long a task stays PENDING then STAGING (half each), then STARTED, before its final status. */
  pendingMs: number;
  startedMs: number;
  /** Final status of new tasks. */
  finalStatus: 'SUCCESS' | 'FAILURE';
  /** Mixpanel's limit: one request per this many ms per project; faster calls get 429. */
  minIntervalMs: number;
  retryAfter: string;
  /** Requests answered 429 because of the limit. */
  rateLimited: number;
  lastRequestAt: Map<string, number>;
  /** Whether a 409 names the open tasks (`conflicting_task_ids`) or only the distinct ids. */
  conflictNamesTasks: boolean;
}

/**
 * The paths of `vendor/gdpr.openapi.yaml` below its server's `/api/app`: `/data-deletions/v3.0`
 * (create) and `/data-deletions/v3.0/{tracking_id}` (status, cancel). Mixpanel's reference page
 * writes its curl examples with a trailing slash, so both forms are served.
 */
const PATH = /^\/api\/app\/data-deletions\/v3\.0(?:\/([^/]*))?\/?$/;

/** The requesting user of tasks created with a token (the fake does not model users). */
export const MIXPANEL_REQUESTING_USER = 'privacy-team@example.com';

/**
 * Mixpanel GDPR API v3 data deletions, answering as Mixpanel's published OpenAPI document
 * (`server/src/integrations/mixpanel/vendor/gdpr.openapi.yaml`) says: POST creates a task for up
 * to 2000 distinct_ids (201 `JobCreated`), GET reports it (200 `CheckDeletionResponse`: PENDING ->
 * STAGING -> STARTED -> SUCCESS over time; NOT_FOUND for a task it does not know), DELETE revokes
 * a task before it has STARTED (204; 405 afterwards, as Mixpanel's reference page says). Bearer
 * token and ?token=<project token> are checked (401 `{error, status: "error"}`). Not in the
 * document: a create for a distinct_id with an open task is a 409 naming it and the open tasks
 * (`{status, error: {conflicting_distinct_ids, conflicting_task_ids, error}}`); one request
 * per second per project, faster ones get 429 with Retry-After. `contract.test.ts` of the
 * connector validates every request and answer against the document.
 */
export async function startMixpanelFake(
  options: Partial<Pick<MixpanelFakeState, 'pendingMs' | 'startedMs' | 'minIntervalMs' | 'retryAfter'>> = {},
): Promise<FakeVendor<MixpanelFakeState>> {
  const state: MixpanelFakeState = {
    tokens: new Set(),
    projects: new Set(),
    tasks: new Map(),
    pendingMs: options.pendingMs ?? 100,
    startedMs: options.startedMs ?? 100,
    finalStatus: 'SUCCESS',
    minIntervalMs: options.minIntervalMs ?? 1_000,
    retryAfter: options.retryAfter ?? '1',
    rateLimited: 0,
    lastRequestAt: new Map(),
    conflictNamesTasks: true,
  };
  const statusOf = (task: MixpanelTask) =>
    task.revoked
      ? 'REVOKED'
      : stepAt<string>(
          task.createdAt,
          [
            ['PENDING', state.pendingMs / 2],
            ['STAGING', state.pendingMs / 2],
            ['STARTED', state.startedMs],
          ],
          task.finalStatus,
        );
  // Mixpanel's numeric project id (`project_id` of a task), one per project token.
  const projectIds = new Map<string, number>();
  const projectId = (token: string) =>
    projectIds.get(token) ?? projectIds.set(token, 3_100_000 + projectIds.size).get(token)!;
  const error = (status: number, text: string, headers?: Record<string, string>) => ({
    status,
    headers,
    body: { status: 'error', error: text },
  });
  const server = await startFakeServer((call) => {
    const match = PATH.exec(call.path);
    if (!match) return error(404, 'Not found');
    const token = bearerOf(call);
    if (!token || !state.tokens.has(token)) return error(401, 'Invalid OAuth token');
    const project = call.query.get('token') ?? '';
    if (!state.projects.has(project))
      return error(403, "Invalid project token, or the token's user may not manage this project");
    const last = state.lastRequestAt.get(project);
    if (last !== undefined && call.at - last < state.minIntervalMs) {
      state.rateLimited++;
      return error(429, 'Rate limit exceeded: 1 request per second per project', { 'retry-after': state.retryAfter });
    }
    state.lastRequestAt.set(project, call.at);
    const taskId = decodeURIComponent(match[1] ?? '');
    if (call.method === 'POST' && taskId === '') {
      const body = jsonOf(call) as { distinct_ids?: unknown; compliance_type?: unknown } | undefined;
      const ids = body?.distinct_ids;
      if (
        !Array.isArray(ids) ||
        ids.length === 0 ||
        ids.length > 2000 ||
        !ids.every((id) => typeof id === 'string' && id.length > 0)
      ) {
        return error(400, 'distinct_ids must be a list of 1 to 2000 distinct ids');
      }
      const complianceType = body?.compliance_type ?? 'GDPR';
      if (complianceType !== 'GDPR' && complianceType !== 'CCPA')
        return error(400, 'compliance_type must be GDPR or CCPA');
      // One open task per distinct_id and project: a second create is a 409 naming the distinct ids
      // and the open tasks, in the body Rudderstack reads from Mixpanel (rudder-transformer PR #5578).
      const open = [...state.tasks.values()].filter(
        (t) =>
          t.projectToken === project &&
          !['SUCCESS', 'FAILURE', 'REVOKED'].includes(statusOf(t)) &&
          t.distinctIds.some((id) => (ids as string[]).includes(id)),
      );
      if (open.length)
        return {
          status: 409,
          body: {
            status: 'error',
            error: {
              conflicting_distinct_ids: (ids as string[]).filter((id) => open.some((t) => t.distinctIds.includes(id))),
              ...(state.conflictNamesTasks ? { conflicting_task_ids: open.map((t) => t.taskId) } : {}),
              error: 'Deletion tasks already exist for some of the distinct ids',
            },
          },
        };
      const task: MixpanelTask = {
        taskId: randomUUID(),
        projectToken: project,
        distinctIds: ids as string[],
        complianceType,
        requestingUser: MIXPANEL_REQUESTING_USER,
        createdAt: call.at,
        revoked: false,
        finalStatus: state.finalStatus,
      };
      state.tasks.set(task.taskId, task);
      return { status: 201, body: { status: 'ok', results: { task_id: task.taskId } } };
    }
    const task = state.tasks.get(taskId);
    const known = task !== undefined && task.projectToken === project;
    if (call.method === 'GET' && taskId) {
      // DeletionJobResult requires every field; for a task it does not know the document gives no values, these are ours.
      const results = known
        ? {
            tracking_id: task.taskId,
            status: statusOf(task),
            requesting_user: task.requestingUser,
            compliance_type: task.complianceType,
            project_id: projectId(project),
            date_requested: new Date(task.createdAt).toISOString().slice(0, 19),
            distinct_ids: task.distinctIds,
          }
        : {
            tracking_id: taskId,
            status: 'NOT_FOUND',
            requesting_user: '',
            compliance_type: '',
            project_id: projectId(project),
            date_requested: '',
            distinct_ids: [],
          };
      return { status: 200, body: { status: 'ok', results } };
    }
    if (call.method === 'DELETE' && taskId) {
      if (!known) return error(404, 'Task not found');
      const status = statusOf(task);
      if (status !== 'PENDING' && status !== 'STAGING')
        return error(405, `Task is ${status} and can no longer be canceled`);
      task.revoked = true;
      return { status: 204 };
    }
    return error(405, 'Method not allowed');
  });
  return { ...server, state };
}
