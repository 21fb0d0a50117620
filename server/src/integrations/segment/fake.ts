import { randomBytes } from 'node:crypto';
import { bearerOf, jsonOf, startFakeServer, stepAt, type FakeVendor } from '../../test/fakes/vendor-server';

export interface SegmentRegulation {
  id: string;
  regulationType: string;
  subjectType: string;
  subjectIds: string[];
  createdAt: number;
  finalStatus: 'FINISHED' | 'FAILED' | 'PARTIAL_SUCCESS';
}

export interface SegmentFakeState {
  /** Public API tokens Segment accepts. */
  tokens: Set<string>;
  workspaceId: string;
  regulations: Map<string, SegmentRegulation>;
  /** How long a regulation stays INITIALIZED, then RUNNING, before its final status. */
  initializedMs: number;
  runningMs: number;
  finalStatus: SegmentRegulation['finalStatus'];
  /** The next N requests are answered 429 with X-RateLimit-Reset and msBeforeNext (and no Retry-After). */
  throttleNext: number;
  /** Seconds from the 429 until the window resets. */
  retryAfter: string;
  /** Which of Segment's two documented signals a 429 carries: the header's date, the body's milliseconds. */
  throttleSignals: ('header' | 'body')[];
}

// CreateWorkspaceRegulationV1Input of @segment/public-api-sdk-typescript (Segment's own models).
const REGULATION_TYPES = ['DELETE_INTERNAL', 'DELETE_ONLY', 'SUPPRESS_ONLY', 'SUPPRESS_WITH_DELETE', 'UNSUPPRESS'];
const SUBJECT_TYPES = ['OBJECT_ID', 'USER_ID'];
const errors = (status: number, type: string, message: string) => ({ status, body: { errors: [{ type, message }] } });

/**
 * Segment Public API workspace regulations: POST /regulations validates regulationType,
 * subjectType and subjectIds and answers {data: {regulateId}}; GET /regulations/{id} reports
 * INITIALIZED -> RUNNING -> FINISHED over time; DELETE /regulations/{id} withdraws one while
 * INITIALIZED. Bearer token; 429 with X-RateLimit-Reset (an RFC 5322 date) and msBeforeNext on demand.
 */
export async function startSegmentFake(
  options: Partial<Pick<SegmentFakeState, 'initializedMs' | 'runningMs'>> = {},
): Promise<FakeVendor<SegmentFakeState>> {
  const state: SegmentFakeState = {
    tokens: new Set(),
    workspaceId: 'ws-fake',
    regulations: new Map(),
    initializedMs: options.initializedMs ?? 100,
    runningMs: options.runningMs ?? 100,
    finalStatus: 'FINISHED',
    throttleNext: 0,
    retryAfter: '0',
    throttleSignals: ['header', 'body'],
  };
  const view = (r: SegmentRegulation) => {
    const overallStatus = stepAt(
      r.createdAt,
      [
        ['INITIALIZED', state.initializedMs],
        ['RUNNING', state.runningMs],
      ],
      r.finalStatus,
    );
    const done = overallStatus !== 'INITIALIZED' && overallStatus !== 'RUNNING';
    return {
      id: r.id,
      workspaceId: state.workspaceId,
      overallStatus,
      createdAt: new Date(r.createdAt).toISOString(),
      finishedAt: done ? new Date(r.createdAt + state.initializedMs + state.runningMs).toISOString() : null,
      streamStatus: [
        {
          id: 'stream-1',
          status: overallStatus,
          destinations: [
            {
              id: 'dest-1',
              name: 'Amazon S3',
              status: overallStatus === 'PARTIAL_SUCCESS' ? 'FAILED' : overallStatus,
              errString: overallStatus === 'PARTIAL_SUCCESS' ? 'bucket unreachable' : '',
            },
          ],
        },
      ],
    };
  };
  const server = await startFakeServer((call) => {
    const token = bearerOf(call);
    if (!token || !state.tokens.has(token)) return errors(401, 'unauthorized', 'Unauthorized');
    if (state.throttleNext > 0) {
      state.throttleNext--;
      // docs.segmentapis.com "Rate Limits": X-RateLimit-Reset "a timestamp, in RFC 5322 format";
      // the 429 body's errors[].data.msBeforeNext "A number of milliseconds before the rate limit is lifted".
      const msBeforeNext = Number(state.retryAfter) * 1000;
      const data = { remainingPoints: 0, msBeforeNext, consumedPoints: 21 };
      const headers: Record<string, string> = {};
      if (state.throttleSignals.includes('header'))
        headers['x-ratelimit-reset'] = new Date(call.at + msBeforeNext).toUTCString();
      return {
        status: 429,
        headers,
        body: {
          errors: [
            {
              type: 'RequestError',
              message: 'Too many requests',
              ...(state.throttleSignals.includes('body') ? { data } : {}),
            },
          ],
        },
      };
    }
    if (call.path === '/regulations' && call.method === 'POST') {
      const body = jsonOf(call) as
        { regulationType?: unknown; subjectType?: unknown; subjectIds?: unknown } | undefined;
      if (!body) return errors(400, 'bad-request', 'Body must be JSON');
      if (!REGULATION_TYPES.includes(String(body.regulationType)))
        return errors(422, 'validation', `regulationType must be one of ${REGULATION_TYPES.join(', ')}`);
      if (!SUBJECT_TYPES.includes(String(body.subjectType)))
        return errors(422, 'validation', `subjectType must be one of ${SUBJECT_TYPES.join(', ')}`);
      const ids = body.subjectIds;
      if (
        !Array.isArray(ids) ||
        ids.length === 0 ||
        ids.length > 5000 ||
        !ids.every((id) => typeof id === 'string' && id)
      )
        return errors(422, 'validation', 'subjectIds must list 1 to 5000 ids');
      const regulation: SegmentRegulation = {
        id: randomBytes(12).toString('hex'),
        regulationType: String(body.regulationType),
        subjectType: String(body.subjectType),
        subjectIds: ids as string[],
        createdAt: call.at,
        finalStatus: state.finalStatus,
      };
      state.regulations.set(regulation.id, regulation);
      return { status: 200, body: { data: { regulateId: regulation.id } } };
    }
    if (call.path === '/regulations' && call.method === 'GET') {
      return {
        status: 200,
        body: {
          data: {
            regulations: [...state.regulations.values()].map(view),
            pagination: { current: 'MA==', totalEntries: state.regulations.size },
          },
        },
      };
    }
    const one = /^\/regulations\/([^/]+)$/.exec(call.path);
    if (one && call.method === 'GET') {
      const regulation = state.regulations.get(decodeURIComponent(one[1]!));
      if (!regulation) return errors(404, 'not-found', 'Resource not found');
      return { status: 200, body: { data: { regulation: view(regulation) } } };
    }
    if (one && call.method === 'DELETE') {
      const regulation = state.regulations.get(decodeURIComponent(one[1]!));
      if (!regulation) return errors(404, 'not-found', 'Resource not found');
      const status = view(regulation).overallStatus;
      if (status !== 'INITIALIZED')
        return errors(400, 'bad-request', `Regulation is ${status}; only INITIALIZED regulations can be deleted`);
      state.regulations.delete(regulation.id);
      return { status: 200, body: { data: {} } };
    }
    return errors(404, 'not-found', 'Resource not found');
  });
  return { ...server, state };
}
