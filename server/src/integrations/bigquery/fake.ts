import { createVerify, generateKeyPairSync, randomBytes } from 'node:crypto';
import { BIGQUERY_SCOPE, GOOGLE_TOKEN_URI } from '@shared/integrations/bigquery';
import type pg from 'pg';
import { bigqueryDiscoveryValidators } from './discovery-schema';
import { bearerOf, jsonOf, startFakeServer, type FakeCall, type FakeReply } from '../../test/fakes/vendor-server';
import {
  bytesOf,
  datasetsOf,
  GOOGLESQL_FUNCTIONS,
  JobError,
  regionView,
  runStatement,
  toPostgres,
  type FakeDataset,
  type SqlResult,
} from './fake-sql';

interface JobConfiguration {
  dryRun?: boolean;
  query?: {
    query?: string;
    queryParameters?: { name?: string; parameterValue?: { value?: string } }[];
    maximumBytesBilled?: string;
  };
}
interface StoredJob {
  projectId: string;
  jobId: string;
  location: string;
  configuration: JobConfiguration;
  pollsLeft: number;
  result?: SqlResult;
  bytes: number;
  error?: { reason: string; message: string };
}

const googleError = (status: number, reason: string, message: string, code: string): FakeReply => ({
  status,
  body: { error: { code: status, message, errors: [{ message, domain: 'global', reason }], status: code } },
});

/**
 * A loopback stand-in for BigQuery's REST API v2 and Google's token endpoint: service account
 * assertions (RS256) are verified and exchanged for access tokens; query jobs run their GoogleSQL
 * on a real PostgreSQL database (a dataset is a schema), with INFORMATION_SCHEMA.COLUMNS and
 * SCHEMATA_OPTIONS of a region. Every request and answer body is checked against Google's
 * discovery document; what does not conform is kept in `violations`.
 */
export async function startBigqueryFake(options: {
  /** The PostgreSQL database that holds the datasets (one schema each); closed with the stand-in. */
  database: { pool: pg.Pool; close(): Promise<void> };
  projectId?: string;
}) {
  const projectId = options.projectId ?? 'acme-analytics';
  const database = options.database;
  await database.pool.query(GOOGLESQL_FUNCTIONS);
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const clientEmail = `deletions@${projectId}.iam.gserviceaccount.com`;
  const keyId = randomBytes(20).toString('hex');
  const schemas = bigqueryDiscoveryValidators();
  const state = {
    datasets: new Map<string, FakeDataset>(),
    jobs: new Map<string, StoredJob>(),
    tokens: new Set<string>(),
    /** Token exchanges answered. */
    exchanges: 0,
    /** Polls each new job answers RUNNING to before it is DONE. */
    pendingPolls: 0,
    /** Job inserts answered 403 rateLimitExceeded before the next is accepted. */
    rateLimitNext: 0,
    violations: [] as string[],
  };
  const check = (schema: string, body: unknown, what: string) =>
    state.violations.push(...schemas.problems(schema, body).map((p) => `${what}: ${p}`));

  function verifyAssertion(assertion: string): string | null {
    const [header, claims, signature] = assertion.split('.');
    if (!header || !claims || !signature) return 'Invalid JWT';
    const h = JSON.parse(Buffer.from(header, 'base64url').toString()) as { alg?: string };
    if (h.alg !== 'RS256') return 'Invalid JWT: alg';
    const ok = createVerify('RSA-SHA256')
      .update(`${header}.${claims}`)
      .verify(publicKey, Buffer.from(signature, 'base64url'));
    if (!ok) return 'Invalid JWT Signature.';
    const c = JSON.parse(Buffer.from(claims, 'base64url').toString()) as Record<string, unknown>;
    const now = Math.floor(Date.now() / 1000);
    if (c.iss !== clientEmail) return 'Invalid JWT: iss';
    if (c.aud !== GOOGLE_TOKEN_URI) return 'Invalid JWT: aud';
    if (
      !String(c.scope ?? '')
        .split(' ')
        .includes(BIGQUERY_SCOPE) &&
      !String(c.scope ?? '').includes('cloud-platform')
    )
      return 'Invalid JWT: scope';
    if (typeof c.exp !== 'number' || typeof c.iat !== 'number' || c.exp < now || c.exp - c.iat > 3600)
      return 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.';
    return null;
  }

  function token(call: FakeCall): FakeReply {
    const form = new URLSearchParams(call.body);
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer')
      return { status: 400, body: { error: 'unsupported_grant_type', error_description: 'Invalid grant_type' } };
    const problem = verifyAssertion(form.get('assertion') ?? '');
    if (problem) return { status: 400, body: { error: 'invalid_grant', error_description: problem } };
    const accessToken = `ya29.${randomBytes(24).toString('base64url')}`;
    state.tokens.add(accessToken);
    state.exchanges++;
    return { status: 200, body: { access_token: accessToken, expires_in: 3599, token_type: 'Bearer' } };
  }

  /** Runs the job's statement now; its answer waits for `pendingPolls` polls. */
  async function execute(job: StoredJob): Promise<void> {
    const query = job.configuration.query!;
    const params = query.queryParameters ?? [];
    try {
      const pgQuery = toPostgres(
        query.query ?? '',
        params.map((p) => p.name ?? ''),
      );
      const values = params.map((p) => p.parameterValue?.value ?? '');
      for (const { schema } of datasetsOf(pgQuery)) {
        if (schema === projectId) continue;
        const dataset = state.datasets.get(schema);
        if (!dataset || dataset.location.toLowerCase() !== job.location.toLowerCase())
          throw new JobError(
            'notFound',
            `Not found: Dataset ${projectId}:${schema} was not found in location ${job.location}`,
          );
      }
      const view = await regionView(database.pool, state.datasets, pgQuery, job.location);
      job.bytes = view ? 10_485_760 : await bytesOf(database.pool, pgQuery, values);
      const ceiling = query.maximumBytesBilled ? Number(query.maximumBytesBilled) : Infinity;
      if (!job.configuration.dryRun && job.bytes > ceiling)
        throw new JobError('bytesBilledLimitExceeded', `Query exceeded limit for bytes billed: ${ceiling}.`);
      if (!job.configuration.dryRun) job.result = view ?? (await runStatement(database.pool, pgQuery, values));
    } catch (error) {
      if (!(error instanceof JobError)) throw error;
      job.error = { reason: error.reason, message: error.message };
    }
  }

  const now = () => String(Date.now());
  function jobResource(job: StoredJob): Record<string, unknown> {
    const done = job.pollsLeft <= 0 || job.configuration.dryRun;
    const query: Record<string, unknown> = { totalBytesProcessed: String(job.bytes) };
    if (done && job.result) {
      query.statementType = job.result.statementType;
      if (job.result.affectedRows !== undefined) query.numDmlAffectedRows = String(job.result.affectedRows);
    }
    return {
      kind: 'bigquery#job',
      id: `${job.projectId}:${job.location}.${job.jobId}`,
      selfLink: `${server.url}/bigquery/v2/projects/${job.projectId}/jobs/${job.jobId}?location=${job.location}`,
      user_email: clientEmail,
      jobReference: { projectId: job.projectId, jobId: job.jobId, location: job.location },
      configuration: { ...job.configuration, jobType: 'QUERY' },
      status: done
        ? { state: 'DONE', ...(job.error ? { errorResult: job.error, errors: [job.error] } : {}) }
        : { state: 'RUNNING' },
      statistics: {
        creationTime: now(),
        startTime: now(),
        ...(done ? { endTime: now() } : {}),
        totalBytesProcessed: String(job.bytes),
        query,
      },
    };
  }

  function results(job: StoredJob, call: FakeCall): Record<string, unknown> {
    const base = {
      kind: 'bigquery#getQueryResultsResponse',
      jobReference: { projectId: job.projectId, jobId: job.jobId, location: job.location },
    };
    if (job.pollsLeft > 0) return { ...base, jobComplete: false };
    const rows = job.result?.rows ?? [];
    const start = Number(call.query.get('pageToken') ?? call.query.get('startIndex') ?? 0);
    const size = Number(call.query.get('maxResults') ?? 100_000);
    const page = rows.slice(start, start + size);
    return {
      ...base,
      jobComplete: true,
      totalRows: String(rows.length),
      totalBytesProcessed: String(job.bytes),
      cacheHit: false,
      schema: { fields: (job.result?.fields ?? []).map((f) => ({ name: f.name, type: f.type, mode: 'NULLABLE' })) },
      rows: page.map((row) => ({ f: row.map((v) => ({ v })) })),
      ...(start + size < rows.length ? { pageToken: String(start + size) } : {}),
      ...(job.result?.affectedRows !== undefined ? { numDmlAffectedRows: String(job.result.affectedRows) } : {}),
    };
  }

  async function insertJob(
    call: FakeCall,
    project: string,
    body: { jobReference?: { jobId?: string; location?: string }; configuration?: JobConfiguration },
  ) {
    const jobId = body.jobReference?.jobId ?? `job_${randomBytes(12).toString('hex')}`;
    if (state.jobs.has(jobId))
      return googleError(409, 'duplicate', `Already Exists: Job ${project}:${jobId}`, 'ALREADY_EXISTS');
    const job: StoredJob = {
      projectId: project,
      jobId,
      location: body.jobReference?.location ?? 'US',
      configuration: body.configuration ?? {},
      pollsLeft: body.configuration?.dryRun ? 0 : state.pendingPolls,
      bytes: 0,
    };
    await execute(job);
    if (!job.configuration.dryRun) state.jobs.set(jobId, job);
    return { status: 200, body: jobResource(job) };
  }

  async function api(call: FakeCall): Promise<FakeReply> {
    const path = /^\/bigquery\/v2\/projects\/([^/]+)\/(jobs|queries|datasets)(?:\/([^/]+))?$/.exec(call.path);
    if (!path) return googleError(404, 'notFound', `Not found: ${call.path}`, 'NOT_FOUND');
    if (!state.tokens.has(bearerOf(call) ?? ''))
      return googleError(
        401,
        'unauthorized',
        'Request is missing required authentication credential. Expected OAuth 2 access token.',
        'UNAUTHENTICATED',
      );
    const [, project, resource, id] = path as unknown as [string, string, string, string | undefined];
    if (project !== projectId) return googleError(404, 'notFound', `Not found: Project ${project}`, 'NOT_FOUND');
    const job = id ? state.jobs.get(id) : undefined;
    if (id && !job) return googleError(404, 'notFound', `Not found: Job ${project}:${id}`, 'NOT_FOUND');
    if (call.method === 'POST' && resource === 'jobs' && !id) {
      if (state.rateLimitNext > 0) {
        state.rateLimitNext--;
        // As Google's "Troubleshoot quota and limit errors" shows it: 403 with the reason rateLimitExceeded.
        return googleError(
          403,
          'rateLimitExceeded',
          'Exceeded rate limits: too many api requests per user per method for this user_method.',
          'PERMISSION_DENIED',
        );
      }
      const body = jsonOf(call) as Parameters<typeof insertJob>[2];
      check('Job', body, 'jobs.insert request');
      return insertJob(call, project, body);
    }
    if (call.method === 'POST' && resource === 'queries' && !id) {
      const body = jsonOf(call) as {
        query?: string;
        location?: string;
        queryParameters?: unknown;
        parameterMode?: string;
        dryRun?: boolean;
        requestId?: string;
      };
      check('QueryRequest', body, 'jobs.query request');
      const reply = await insertJob(call, project, {
        jobReference: { location: body.location ?? 'US' },
        configuration: {
          dryRun: body.dryRun,
          query: { query: body.query, queryParameters: body.queryParameters as never },
        },
      });
      if (reply.status !== 200) return reply;
      const inserted = reply.body as { jobReference: { jobId: string } };
      const stored = state.jobs.get(inserted.jobReference.jobId)!;
      if (stored.error) return googleError(400, stored.error.reason, stored.error.message, 'INVALID_ARGUMENT');
      return { status: 200, body: { ...results(stored, call), kind: 'bigquery#queryResponse' } };
    }
    if (call.method === 'GET' && resource === 'jobs' && job) {
      if (job.pollsLeft > 0) job.pollsLeft--;
      return { status: 200, body: jobResource(job) };
    }
    if (call.method === 'GET' && resource === 'queries' && job) {
      if (job.error && job.pollsLeft <= 0)
        return googleError(400, job.error.reason, job.error.message, 'INVALID_ARGUMENT');
      if (job.pollsLeft > 0) job.pollsLeft--;
      return { status: 200, body: results(job, call) };
    }
    if (call.method === 'GET' && resource === 'datasets' && !id)
      return {
        status: 200,
        body: {
          kind: 'bigquery#datasetList',
          datasets: [...state.datasets].map(([name, d]) => ({
            kind: 'bigquery#dataset',
            id: `${project}:${name}`,
            datasetReference: { projectId: project, datasetId: name },
            location: d.location,
          })),
        },
      };
    return googleError(
      405,
      'badRequest',
      `${call.method} ${call.path} is not served by the stand-in`,
      'INVALID_ARGUMENT',
    );
  }

  const RESPONSE_SCHEMAS: Record<string, string> = {
    jobs: 'Job',
    queries: 'GetQueryResultsResponse',
    datasets: 'DatasetList',
  };
  const server = await startFakeServer(async (call) => {
    if (call.method === 'POST' && call.path === '/token') return token(call);
    if (call.path === '/') return { status: 200, body: { service: 'bigquery stand-in' } };
    const reply = await api(call);
    if (reply.status === 200) {
      const resource = /\/(jobs|queries|datasets)(\/|$)/.exec(call.path)?.[1] ?? '';
      const schema = resource === 'queries' && call.method === 'POST' ? 'QueryResponse' : RESPONSE_SCHEMAS[resource];
      if (schema) check(schema, reply.body, `${call.method} ${call.path} answer`);
    }
    return reply;
  });

  const key = {
    type: 'service_account',
    project_id: projectId,
    private_key_id: keyId,
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: clientEmail,
    client_id: '100000000000000000001',
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: GOOGLE_TOKEN_URI,
  };
  return {
    url: server.url,
    tokenUri: `${server.url}/token`,
    projectId,
    state,
    calls: server.calls,
    /** The service account key the stand-in trusts, as the console would download it. */
    keyJson: JSON.stringify(key),
    key,
    /** Creates a dataset (a PostgreSQL schema) in a location, with its time travel option if given. */
    async createDataset(name: string, dataset: FakeDataset) {
      state.datasets.set(name, dataset);
      await database.pool.query(`CREATE SCHEMA "${name}"`);
    },
    /** Runs PostgreSQL on the stand-in's database directly: tables and rows for a test. */
    sql: (text: string, values: unknown[] = []) => database.pool.query(text, values),
    async close() {
      await server.close();
      await database.close();
    },
  };
}
