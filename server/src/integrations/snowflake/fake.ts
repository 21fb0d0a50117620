import { createHash, createPublicKey, randomUUID, verify, type KeyObject } from 'node:crypto';
import type pg from 'pg';
import { startFakeServer, type FakeCall } from '../../test/fakes/vendor-server';
import { createFakeWarehouse, positionalParameters } from './fake-warehouse';

/** One request the fake received, and what it answered (the shape contract tests check). */
export type SnowflakeFakeCall = FakeCall;

interface Statement {
  handle: string;
  requestId: string;
  createdOn: number;
  /** 202 answers still to give before the result (a statement that keeps running). */
  runningPolls: number;
  result?: Record<string, unknown>;
  partitions: (string | null)[][][];
  failure?: Record<string, unknown>;
  canceled?: boolean;
}

export interface SnowflakeFakeOptions {
  adminDatabaseUrl: string;
  account: string;
  user: string;
  /** The public key set on the user (RSA_PUBLIC_KEY): JWTs must be signed by its private key. */
  publicKey: string | KeyObject;
  warehouse?: string;
}

type Reply = NonNullable<SnowflakeFakeCall['reply']>;

const fingerprint = (key: KeyObject) =>
  `SHA256:${createHash('sha256')
    .update(key.export({ type: 'spki', format: 'der' }))
    .digest('base64')}`;

/** Snowflake's column types of a PostgreSQL result column, as `rowType` names them. */
const typeOf = (oid: number) =>
  [20, 21, 23, 1700].includes(oid) ? 'FIXED' : oid === 16 ? 'BOOLEAN' : oid === 701 ? 'REAL' : 'TEXT';

/**
 * A loopback Snowflake SQL API v2 (POST /api/v2/statements, GET and cancel by handle) that
 * runs the statements it receives, with their bind variables, against a real PostgreSQL
 * database (see fake-warehouse.ts), after checking the key-pair JWT against the user's public
 * key. `state` makes it answer as Snowflake may: 429/503 before a statement, 202 while one
 * runs (or forever), results in partitions of `partitionRows`.
 */
export async function startSnowflakeFake(options: SnowflakeFakeOptions) {
  const warehouse = options.warehouse ?? 'DELETION_WH';
  const db = await createFakeWarehouse(options.adminDatabaseUrl, warehouse);
  const publicKey = typeof options.publicKey === 'string' ? createPublicKey(options.publicKey) : options.publicKey;
  const qualifiedUser = `${options.account.toUpperCase()}.${options.user.toUpperCase()}`;
  const state = {
    /** Statuses answered to the next submissions instead of running them (429, 503...). */
    failNext: [] as number[],
    /** 202 answers each new statement gives before its result. */
    runningPolls: 0,
    /** Statements never finish (the client must cancel them). */
    hang: false,
    partitionRows: 1000,
    statements: new Map<string, Statement>(),
    executed: [] as string[],
    canceled: [] as string[],
    /** Why requests were refused (401). */
    refused: [] as string[],
  };
  const byRequestId = new Map<string, Statement>();
  let url = '';

  function authProblem(call: SnowflakeFakeCall): string | null {
    if (call.headers['x-snowflake-authorization-token-type'] !== 'KEYPAIR_JWT') return 'Token type is not KEYPAIR_JWT';
    const token = /^Bearer (.+)$/.exec(String(call.headers.authorization ?? ''))?.[1];
    const parts = token?.split('.') ?? [];
    if (parts.length !== 3) return 'JWT token is invalid.';
    const [header, payload, signature] = parts as [string, string, string];
    const head = JSON.parse(Buffer.from(header, 'base64url').toString()) as { alg?: string };
    if (head.alg !== 'RS256') return 'JWT token is invalid.';
    if (!verify('sha256', Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature, 'base64url')))
      return 'JWT token is invalid.';
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const now = Math.floor(Date.now() / 1000);
    if (claims.sub !== qualifiedUser || claims.iss !== `${qualifiedUser}.${fingerprint(publicKey)}`)
      return 'JWT token is invalid.';
    const iat = Number(claims.iat);
    const exp = Number(claims.exp);
    if (!(iat <= now + 60 && exp > now && exp - iat <= 3600)) return 'JWT token is invalid.';
    return null;
  }

  const status = (s: Statement, code: string, message: string) => ({
    code,
    message,
    statementHandle: s.handle,
    createdOn: s.createdOn,
    statementStatusUrl: `${url}/api/v2/statements/${s.handle}?requestId=${s.requestId}`,
  });

  async function run(s: Statement, body: Record<string, any>, client: pg.PoolClient): Promise<void> {
    const { text, count } = positionalParameters(String(body.statement ?? ''));
    const bindings = (body.bindings ?? {}) as Record<string, { type: string; value: string | null }>;
    const values = Array.from({ length: count }, (_, i) => bindings[String(i + 1)]?.value);
    if (values.some((v) => v === undefined) || Object.keys(bindings).length !== count) {
      s.failure = { ...status(s, '002049', 'SQL compilation error: bind variables do not match'), sqlState: '42601' };
      return;
    }
    if (!/^\s*(SELECT|DELETE|UPDATE)\b/i.test(text)) {
      s.failure = { ...status(s, '001003', 'SQL compilation error: unsupported statement'), sqlState: '42000' };
      return;
    }
    try {
      const result = await client.query({ text, values, rowMode: 'array' });
      state.executed.push(String(body.statement));
      const dml = result.command === 'DELETE' || result.command === 'UPDATE';
      const rows: (string | null)[][] = dml
        ? [[String(result.rowCount ?? 0)]]
        : result.rows.map((row: unknown[]) => row.map((v) => (v === null ? null : String(v))));
      const rowType = dml
        ? [
            {
              name: `number of rows ${result.command === 'DELETE' ? 'deleted' : 'updated'}`,
              type: 'FIXED',
              nullable: false,
            },
          ]
        : result.fields.map((f) => ({ name: f.name, type: typeOf(f.dataTypeID), nullable: true }));
      for (let i = 0; i < Math.max(1, rows.length); i += state.partitionRows)
        s.partitions.push(rows.slice(i, i + state.partitionRows));
      s.result = {
        ...status(s, '090001', 'Statement executed successfully.'),
        sqlState: '00000',
        resultSetMetaData: {
          format: 'jsonv2',
          numRows: rows.length,
          rowType: rowType.length ? rowType : [{ name: 'status', type: 'TEXT', nullable: true }],
          partitionInfo: s.partitions.map((p) => ({ rowCount: p.length, uncompressedSize: JSON.stringify(p).length })),
        },
        ...(dml
          ? { stats: { [result.command === 'DELETE' ? 'numRowsDeleted' : 'numRowsUpdated']: result.rowCount ?? 0 } }
          : {}),
      };
    } catch (error) {
      const e = error as { code?: string; message: string };
      s.failure = { ...status(s, '100038', e.message), sqlState: e.code ?? '22000' };
    }
  }

  function answer(s: Statement, partition = 0): Reply {
    if (s.canceled)
      return { status: 422, body: { ...status(s, '000604', 'SQL execution canceled'), sqlState: '57014' } };
    if (s.runningPolls > 0 || state.hang) {
      s.runningPolls--;
      return {
        status: 202,
        body: status(
          s,
          '333334',
          'Asynchronous execution in progress. Use provided query id to perform query monitoring and management.',
        ),
      };
    }
    if (s.failure) return { status: 422, body: s.failure };
    const data = s.partitions[partition];
    if (!data) return { status: 422, body: { ...status(s, '000709', 'Partition not found'), sqlState: '22000' } };
    return { status: 200, body: partition === 0 ? { ...s.result, data } : { ...status(s, '090001', 'ok'), data } };
  }

  async function submit(call: SnowflakeFakeCall): Promise<Reply> {
    const requestId = call.query.get('requestId') ?? randomUUID();
    const known = byRequestId.get(requestId);
    // Snowflake runs a request id once: a resubmission with retry=true is told the first one's fate.
    if (known) {
      if (call.query.get('retry') !== 'true')
        return { status: 422, body: { ...status(known, '000605', 'Request id already used'), sqlState: '22000' } };
      return answer(known);
    }
    const failure = state.failNext.shift();
    // The document gives 429, 503 and 504 no body.
    if (failure) return { status: failure };
    const body = JSON.parse(call.body) as Record<string, any>;
    const s: Statement = {
      handle: randomUUID(),
      requestId,
      createdOn: Date.now(),
      runningPolls: state.runningPolls,
      partitions: [],
    };
    byRequestId.set(requestId, s);
    state.statements.set(s.handle, s);
    if (body.database !== db.database || body.warehouse !== warehouse) {
      s.failure = {
        ...status(s, '002043', `Object does not exist, or operation cannot be performed: ${body.database}`),
        sqlState: '02000',
      };
      return answer(s);
    }
    const client = await db.pool.connect();
    try {
      await client.query(`SET statement_timeout = ${Math.max(1, Number(body.timeout ?? 60)) * 1000}`);
      await run(s, body, client);
    } finally {
      client.release();
    }
    return answer(s);
  }

  async function handle(call: SnowflakeFakeCall): Promise<Reply> {
    if (call.method === 'GET' && call.path === '/') return { status: 200, body: { service: 'snowflake fake' } };
    const problem = authProblem(call);
    // The document gives a 401 no body; the reason is kept for tests.
    if (problem) {
      state.refused.push(problem);
      return { status: 401 };
    }
    if (call.method === 'POST' && call.path === '/api/v2/statements') return submit(call);
    const match = /^\/api\/v2\/statements\/([0-9a-f-]+)(\/cancel)?$/.exec(call.path);
    const s = match ? state.statements.get(match[1]!) : undefined;
    if (!match || !s) return { status: 404 };
    if (match[2] && call.method === 'POST') {
      s.canceled = true;
      state.canceled.push(s.handle);
      return { status: 200, body: { message: 'successfully canceled', statementHandle: s.handle } };
    }
    if (call.method !== 'GET') return { status: 405 };
    return answer(s, Number(call.query.get('partition') ?? 0));
  }

  const server = await startFakeServer(handle);
  url = server.url;
  return {
    url,
    state,
    calls: server.calls,
    database: db.database,
    warehouse,
    /** Runs SQL on the warehouse's database directly (seeding, checks). */
    sql: (text: string, values: unknown[] = []) => db.pool.query(text, values),
    setRetention: db.setRetention,
    async close() {
      await server.close();
      await db.close();
    },
  };
}
