import { jsonOf, startFakeServer, stepAt, type FakeVendor } from '../../test/fakes/vendor-server';

export interface AmplitudeEntry {
  amplitude_id: number;
  user_id?: string;
  requester: string;
  requested_on_day: string;
}

export interface AmplitudeJob {
  day: string;
  /** The project of the job. */
  app: string;
  /** Scheduled by a delete_from_org request: the page says `app` is listed only for requests reaching several projects. */
  orgWide: boolean;
  createdAt: number;
  amplitude_ids: AmplitudeEntry[];
}

export interface AmplitudeFakeState {
  apiKey: string;
  secretKey: string;
  /** The project (Amplitude "app") the key pair belongs to. */
  app: string;
  /** Users the project knows: user id -> amplitude id. */
  users: Map<string, number>;
  /** Other projects of the organization (delete_from_org reaches them): app -> user id -> amplitude id. */
  orgProjects: Map<string, Map<string, number>>;
  /** Jobs by "app|day". */
  jobs: Map<string, AmplitudeJob>;
  /** Jobs are scheduled this many days after the request. */
  scheduleDays: number;
  /** How long a job stays staging, then submitted, before done. */
  stagingMs: number;
  submittedMs: number;
  /** The next N requests are answered 429. */
  throttleNext: number;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const flag = (value: unknown) => value === true || (typeof value === 'string' && value.toLowerCase() === 'true');
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Amplitude User Privacy API (as Amplitude's "User Privacy API" documentation page describes it;
 * see server/src/integrations/amplitude/SOURCES.md): POST schedules users (up to 100 ids) into the job of a day
 * some days out, GET lists jobs of a day range (at most six months) as staging -> submitted
 * -> done over time, DELETE /{amplitude_id}/{day} removes a user from a staging job. Jobs are
 * per project: with delete_from_org a user id is scheduled in every project of the organization
 * that knows it, and such jobs list their project as `app`. A create answers with the whole job of
 * the day. Flags are booleans (the strings "true"/"false" are read too). HTTP Basic auth with the
 * project's API key and secret key.
 */
export async function startAmplitudeFake(
  options: Partial<Pick<AmplitudeFakeState, 'stagingMs' | 'submittedMs' | 'scheduleDays'>> = {},
): Promise<FakeVendor<AmplitudeFakeState> & { addUser(userId: string, app?: string): number }> {
  const state: AmplitudeFakeState = {
    apiKey: 'amp-api-key',
    secretKey: 'amp-secret-key',
    app: '187520',
    users: new Map(),
    orgProjects: new Map(),
    jobs: new Map(),
    scheduleDays: options.scheduleDays ?? 10,
    stagingMs: options.stagingMs ?? 150,
    submittedMs: options.submittedMs ?? 100,
    throttleNext: 0,
  };
  const statusOf = (job: AmplitudeJob) =>
    stepAt(
      job.createdAt,
      [
        ['staging', state.stagingMs],
        ['submitted', state.submittedMs],
      ],
      'done',
    );
  const view = (job: AmplitudeJob) => ({
    day: job.day,
    ...(job.orgWide ? { app: job.app } : {}),
    status: statusOf(job),
    amplitude_ids: job.amplitude_ids,
  });
  const projectUsers = (app: string) => (app === state.app ? state.users : state.orgProjects.get(app)!);
  const server = await startFakeServer((call) => {
    const expected = `Basic ${Buffer.from(`${state.apiKey}:${state.secretKey}`).toString('base64')}`;
    if (call.headers.authorization !== expected)
      return { status: 401, body: { error: 'Invalid API key or secret key' } };
    if (state.throttleNext > 0) {
      state.throttleNext--;
      return { status: 429, headers: { 'retry-after': '0' }, body: { error: 'Too many requests' } };
    }
    if (call.path === '/api/2/deletions/users' && call.method === 'POST') {
      const body = jsonOf(call) as Record<string, unknown> | undefined;
      if (!body) return { status: 400, body: { error: 'Body must be JSON' } };
      const userIds = (body.user_ids ?? []) as unknown[];
      const amplitudeIds = (body.amplitude_ids ?? []) as unknown[];
      if (!Array.isArray(userIds) || !Array.isArray(amplitudeIds) || userIds.length + amplitudeIds.length === 0)
        return { status: 400, body: { error: 'Provide user_ids or amplitude_ids' } };
      if (userIds.length + amplitudeIds.length > 100)
        return { status: 400, body: { error: 'At most 100 ids per request' } };
      if (typeof body.requester !== 'string') return { status: 400, body: { error: 'requester is required' } };
      if (flag(body.delete_from_org) && amplitudeIds.length > 0)
        return { status: 400, body: { error: 'delete_from_org requests must use user_ids only' } };
      // The page names the flag `ignore_invalid_id` in its parameter table and `ignore_invalid_ids` in its prose and examples.
      const ignoreInvalid = flag(body.ignore_invalid_id) || flag(body.ignore_invalid_ids) || flag(body.delete_from_org);
      // With delete_from_org the user ids are looked up in every project of the organization.
      const apps = flag(body.delete_from_org) ? [state.app, ...state.orgProjects.keys()] : [state.app];
      const entries: { app: string; amplitudeId: number; userId?: string }[] = [];
      const invalid: string[] = [];
      for (const id of userIds) {
        const found = apps.flatMap((app) => {
          const amplitudeId = projectUsers(app).get(String(id));
          return amplitudeId === undefined ? [] : [{ app, amplitudeId, userId: String(id) }];
        });
        if (found.length === 0) invalid.push(String(id));
        entries.push(...found);
      }
      const known = new Set(state.users.values());
      for (const id of amplitudeIds) {
        if (known.has(Number(id))) entries.push({ app: state.app, amplitudeId: Number(id) });
        else invalid.push(String(id));
      }
      if (invalid.length > 0 && !ignoreInvalid)
        return { status: 400, body: { error: `Invalid ids: ${invalid.join(', ')}` } };
      if (entries.length === 0) return { status: 200, body: [] };
      const day = dayOf(call.at + state.scheduleDays * 86_400_000);
      const touched: AmplitudeJob[] = [];
      for (const e of entries) {
        let job = state.jobs.get(`${e.app}|${day}`);
        if (!job || statusOf(job) !== 'staging') {
          job = { day, app: e.app, orgWide: false, createdAt: call.at, amplitude_ids: [] };
          state.jobs.set(`${e.app}|${day}`, job);
        }
        const entry: AmplitudeEntry = {
          amplitude_id: e.amplitudeId,
          requester: body.requester,
          requested_on_day: dayOf(call.at),
          ...(flag(body.include_mapped_user_ids) && e.userId ? { user_id: e.userId } : {}),
        };
        if (!job.amplitude_ids.some((a) => a.amplitude_id === e.amplitudeId)) job.amplitude_ids.push(entry);
        if (flag(body.delete_from_org)) job.orgWide = true;
        if (!touched.includes(job)) touched.push(job);
      }
      // Amplitude answers with the whole job of the day: ids other requests scheduled are listed too.
      return { status: 200, body: touched.map(view) };
    }
    if (call.path === '/api/2/deletions/users' && call.method === 'GET') {
      const start = call.query.get('start_day') ?? '';
      const end = call.query.get('end_day') ?? '';
      if (!DAY.test(start) || !DAY.test(end) || start > end)
        return { status: 400, body: { error: 'start_day and end_day must be YYYY-MM-DD, start before end' } };
      if (Date.parse(end) - Date.parse(start) > 184 * 86_400_000)
        return { status: 400, body: { error: 'The largest permitted range is six months' } };
      return { status: 200, body: [...state.jobs.values()].filter((j) => j.day >= start && j.day <= end).map(view) };
    }
    const remove = /^\/api\/2\/deletions\/users\/([^/]+)\/([^/]+)$/.exec(call.path);
    if (remove && call.method === 'DELETE') {
      const [, amplitudeId, day] = remove;
      const job = state.jobs.get(`${state.app}|${day}`);
      if (!job || !job.amplitude_ids.some((a) => String(a.amplitude_id) === amplitudeId))
        return { status: 404, body: { error: 'No such user in the job of that day' } };
      if (statusOf(job) !== 'staging')
        return {
          status: 400,
          body: { error: `The job of ${day} is ${statusOf(job)}; users can be removed only while it is staging` },
        };
      const removed = job.amplitude_ids.find((a) => String(a.amplitude_id) === amplitudeId)!;
      job.amplitude_ids = job.amplitude_ids.filter((a) => a !== removed);
      // The page's answer: the removed entry itself.
      return {
        status: 200,
        body: {
          amplitude_id: removed.amplitude_id,
          requested_on_day: removed.requested_on_day,
          requester: removed.requester,
        },
      };
    }
    return { status: 404, body: { error: 'Not found' } };
  });
  let nextId = 100_000;
  return {
    ...server,
    state,
    /** A user of the key's project, or of another project of the organization. */
    addUser(userId: string, app = state.app) {
      const id = nextId++;
      if (app !== state.app && !state.orgProjects.has(app)) state.orgProjects.set(app, new Map());
      projectUsers(app).set(userId, id);
      return id;
    },
  };
}
