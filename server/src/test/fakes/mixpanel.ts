import { randomUUID } from 'node:crypto';
import { bearerOf, jsonOf, startFakeServer, stepAt, type FakeVendor } from './vendor-server';

export interface MixpanelTask {
  taskId: string;
  projectToken: string;
  distinctIds: string[];
  complianceType: string;
  createdAt: number;
  revoked: boolean;
  finalStatus: 'SUCCESS' | 'FAILURE';
}

export interface MixpanelFakeState {
  /** GDPR OAuth tokens Mixpanel accepts (Bearer). */
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
}

const PATH = /^\/api\/app\/data-deletions\/v3\.0\/([^/]*)$/;

/**
 * Mixpanel GDPR API v3 data deletions: POST creates a task for up to 2000 distinct_ids,
 * GET reports PENDING -> STARTED -> SUCCESS over time, DELETE revokes a task before it has
 * STARTED; a create for a distinct_id with an open task is a 409 naming that task. Bearer
 * token and ?token=<project token> are checked; one request per second per project, faster
 * ones get 429 with Retry-After.
 */
export async function startMixpanelFake(options: Partial<Pick<MixpanelFakeState, 'pendingMs' | 'startedMs' | 'minIntervalMs' | 'retryAfter'>> = {}): Promise<FakeVendor<MixpanelFakeState>> {
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
  };
  const statusOf = (task: MixpanelTask) => (task.revoked ? 'REVOKED' : stepAt<string>(task.createdAt, [['PENDING', state.pendingMs / 2], ['STAGING', state.pendingMs / 2], ['STARTED', state.startedMs]], task.finalStatus));
  const server = await startFakeServer((call) => {
    const match = PATH.exec(call.path);
    if (!match) return { status: 404, body: { error: 'Not found' } };
    const token = bearerOf(call);
    if (!token || !state.tokens.has(token)) return { status: 401, body: { status: 'error', error: 'Invalid OAuth token' } };
    const project = call.query.get('token') ?? '';
    if (!state.projects.has(project)) return { status: 400, body: { status: 'error', error: 'Invalid project token' } };
    const last = state.lastRequestAt.get(project);
    if (last !== undefined && call.at - last < state.minIntervalMs) {
      state.rateLimited++;
      return { status: 429, headers: { 'retry-after': state.retryAfter }, body: { status: 'error', error: 'Rate limit exceeded: 1 request per second per project' } };
    }
    state.lastRequestAt.set(project, call.at);
    const taskId = decodeURIComponent(match[1]!);
    if (call.method === 'POST' && taskId === '') {
      const body = jsonOf(call) as { distinct_ids?: unknown; compliance_type?: unknown } | undefined;
      const ids = body?.distinct_ids;
      if (!Array.isArray(ids) || ids.length === 0 || ids.length > 2000 || !ids.every((id) => typeof id === 'string' && id.length > 0)) {
        return { status: 400, body: { status: 'error', error: 'distinct_ids must be a list of 1 to 2000 distinct ids' } };
      }
      const complianceType = body?.compliance_type ?? 'GDPR';
      if (complianceType !== 'GDPR' && complianceType !== 'CCPA') return { status: 400, body: { status: 'error', error: 'compliance_type must be GDPR or CCPA' } };
      // One open task per distinct_id and project: a second create is a 409 naming the open task.
      const open = [...state.tasks.values()].find((t) => t.projectToken === project && !['SUCCESS', 'FAILURE', 'REVOKED'].includes(statusOf(t)) && t.distinctIds.some((id) => (ids as string[]).includes(id)));
      if (open) return { status: 409, body: { status: 'error', error: 'A deletion task already exists for one or more of these distinct_ids', results: { task_id: open.taskId } } };
      const task: MixpanelTask = { taskId: randomUUID(), projectToken: project, distinctIds: ids as string[], complianceType, createdAt: call.at, revoked: false, finalStatus: state.finalStatus };
      state.tasks.set(task.taskId, task);
      return { status: 200, body: { status: 'ok', results: { task_id: task.taskId } } };
    }
    const task = state.tasks.get(taskId);
    if (call.method === 'GET' && taskId) {
      if (!task || task.projectToken !== project) return { status: 200, body: { status: 'ok', results: { status: 'NOT_FOUND', result: '' } } };
      return { status: 200, body: { status: 'ok', results: { status: statusOf(task), result: '', distinct_ids: task.distinctIds } } };
    }
    if (call.method === 'DELETE' && taskId) {
      if (!task || task.projectToken !== project) return { status: 404, body: { status: 'error', error: 'Task not found' } };
      const status = statusOf(task);
      if (status !== 'PENDING' && status !== 'STAGING') return { status: 400, body: { status: 'error', error: `Task is ${status} and can no longer be canceled` } };
      task.revoked = true;
      return { status: 200, body: { status: 'ok' } };
    }
    return { status: 405, body: { status: 'error', error: 'Method not allowed' } };
  });
  return { ...server, state };
}
