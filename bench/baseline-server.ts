/**
 * The baseline the bench compares the service against: bare Fastify routes on raw `pg`,
 * no tRPC, no ORM, no validation library. They do the same durable work as the service:
 * the same token and key lookups, the same rows written in one transaction, the same list
 * queries (keyset on (createdAt, id), integration requests in one query per page).
 * `/create-lean` is the service's own create design without the framework.
 */
import { createHash, createHmac, hkdfSync } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { newId } from '../server/src/lib/ids';
import { hashToken, isWellFormedToken } from '../server/src/lib/tokens';
import { dueAtFor, GDPR_RULE } from '../shared/src/deadlines';
import { INSERT_REQUEST, insertRequestValues } from '../server/src/pipeline/store/fan-out';
import { configSnapshotKey, storeConfigSnapshots } from '../server/src/pipeline/store/sql';
import { withDetailsPacked } from '../server/src/services/audit/recorded-exchanges';
import { registerListRoutes } from './baseline-lists';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE ?? 10) });
pool.on('error', () => {});
const pepper = Buffer.from(
  hkdfSync(
    'sha256',
    Buffer.from(process.env.ENCRYPTION_KEY ?? '', 'base64'),
    Buffer.alloc(0),
    'bench/identifier-hmac',
    32,
  ),
);

interface Principal {
  userId: string;
  organizationId: string;
}

async function authenticate(header: unknown): Promise<Principal | null> {
  if (typeof header !== 'string' || !isWellFormedToken('personalAccessToken', header)) return null;
  const { rows } = await pool.query(
    `SELECT p."userId", p."organizationId" FROM "PersonalAccessToken" p
       JOIN "Membership" m ON m."userId" = p."userId" AND m."organizationId" = p."organizationId"
      WHERE p."tokenHash" = $1 AND p."revokedAt" IS NULL AND (p."expiresAt" IS NULL OR p."expiresAt" > now())`,
    [hashToken(header)],
  );
  return rows[0] ?? null;
}

const app = Fastify({ logger: false });
app.get('/healthz', async () => ({ status: 'ok' }));

/** The floor: one committed single-row INSERT, nothing else. */
app.post('/floor', async (request, reply) => {
  const { identifier } = request.body as { identifier: string };
  const id = newId('dr');
  await pool.query(`INSERT INTO "BenchFloor" (id, identifier, "createdAt") VALUES ($1, $2, now())`, [id, identifier]);
  return reply.code(201).send({ id, identifier });
});

app.post('/create', async (request, reply) => {
  const principal = await authenticate(request.headers['x-api-key']);
  if (!principal) return reply.code(401).send({ code: 'UNAUTHORIZED' });
  const body = request.body as { workspaceApiKey?: string; identifier?: string };
  if (typeof body?.identifier !== 'string' || body.identifier.trim() === '' || typeof body.workspaceApiKey !== 'string')
    return reply.code(400).send({ code: 'BAD_REQUEST' });
  if (!isWellFormedToken('workspaceApiKey', body.workspaceApiKey)) return reply.code(404).send({ code: 'NOT_FOUND' });
  const ws = await pool.query(`SELECT id, "organizationId" FROM "Workspace" WHERE "apiKeyHash" = $1`, [
    hashToken(body.workspaceApiKey),
  ]);
  const workspace = ws.rows[0];
  if (!workspace || workspace.organizationId !== principal.organizationId)
    return reply.code(404).send({ code: 'NOT_FOUND' });
  const client = await pool.connect();
  const id = newId('dr');
  const now = new Date();
  try {
    await client.query('BEGIN');
    const integrations = await client.query(
      `SELECT id, name, type, config, "accountId" FROM "Integration" WHERE "workspaceId" = $1 AND enabled ORDER BY "createdAt"`,
      [workspace.id],
    );
    await client.query(
      `INSERT INTO "DeletionRequest" (id, "organizationId", "workspaceId", identifier, "identifierHmac", channel, "createdByUserId", "createdAt", "updatedAt")
       VALUES ($1, $2, $3, $4, decode($5, 'hex'), 'API', $6, $7, $7)`,
      [
        id,
        principal.organizationId,
        workspace.id,
        body.identifier,
        createHmac('sha256', pepper).update(body.identifier).digest('hex'),
        principal.userId,
        now,
      ],
    );
    const irIds = integrations.rows.map(() => newId('ir'));
    const rows = integrations.rows;
    await client.query(
      `WITH snapshots AS (
         ${storeConfigSnapshots('unnest($7::jsonb[]) AS c(config)', '$9::text', 'c.config')}
       )
       INSERT INTO "IntegrationRequest" (id, "deletionRequestId", "integrationId", "integrationName", "integrationType", "configSnapshotId", "accountId", "nextAttemptAt", "createdAt", "updatedAt")
       SELECT u.ir, $1, u.iid, u.name, u.type, ${configSnapshotKey('$9::text', 'u.config')}, u.acc, $2, $2, $2
         FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::jsonb[], $8::text[]) AS u(ir, iid, name, type, config, acc)`,
      [
        id,
        now,
        irIds,
        rows.map((i) => i.id),
        rows.map((i) => i.name),
        rows.map((i) => i.type),
        rows.map((i) => JSON.stringify(i.config)),
        rows.map((i) => i.accountId),
        principal.organizationId,
      ],
    );
    await client.query(`SELECT pg_notify('integration_work', '')`);
    // The creation entry's details stored as the service stores them: their bulk compressed.
    const audit = withDetailsPacked({
      details: {
        workspaceId: workspace.id,
        integrations: integrations.rows.map((i) => ({ id: i.id, name: i.name, type: i.type })),
      },
    });
    await client.query(
      `INSERT INTO "AuditLog" ("organizationId", "deletionRequestId", "actorType", "actorId", action, summary, details, exchanges)
       VALUES ($1, $2, 'user:pat', $3, 'request.created', $4, $5, decode($6, 'base64'))`,
      [
        principal.organizationId,
        id,
        principal.userId,
        `Deletion request created for ${integrations.rows.length} integration(s)`,
        JSON.stringify(audit.details),
        audit.exchanges,
      ],
    );
    await client.query('COMMIT');
    const iso = now.toISOString();
    return reply.code(201).send({
      id,
      organizationId: principal.organizationId,
      workspaceId: workspace.id,
      identifier: body.identifier,
      hashed: false,
      status: 'STAGING',
      statusReason: null,
      channel: 'API',
      createdByUserId: principal.userId,
      createdAt: iso,
      updatedAt: iso,
      completedAt: null,
      integrationRequests: integrations.rows.map((i, n) => ({
        id: irIds[n],
        integrationId: i.id,
        name: i.name,
        type: i.type,
        status: 'STAGING',
        attempts: 0,
        trackingId: null,
        lastError: null,
        nextAttemptAt: iso,
        createdAt: iso,
        updatedAt: iso,
        completedAt: null,
      })),
    });
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
});

/**
 * The service's own design without its framework (no tRPC, no OpenAPI adapter, no zod):
 * verified tokens kept for 10 s, the workspace and its integrations in one query, the
 * service's single INSERT statement, both prepared, and one wake-up per 20 ms after commit. The service
 * against this route is what the framework costs; against /create, what the whole
 * service costs next to the straightforward way of doing the same durable work.
 */
const leanTokens = new Map<string, { principal: Principal; at: number }>();
let lastWake = 0;
let wakeTimer: NodeJS.Timeout | null = null;
const wake = () => {
  if (wakeTimer) return;
  const send = () => {
    lastWake = Date.now();
    pool.query(`BEGIN; SET LOCAL synchronous_commit = off; NOTIFY integration_work; COMMIT`).catch(() => {});
  };
  const wait = lastWake + 20 - Date.now();
  if (wait <= 0) send();
  else
    wakeTimer = setTimeout(() => {
      wakeTimer = null;
      send();
    }, wait);
};

app.post('/create-lean', async (request, reply) => {
  const header = request.headers['x-api-key'];
  if (typeof header !== 'string' || !isWellFormedToken('personalAccessToken', header))
    return reply.code(401).send({ code: 'UNAUTHORIZED' });
  const tokenHash = hashToken(header);
  let principal = leanTokens.get(tokenHash);
  if (!principal || Date.now() - principal.at > 10_000) {
    const found = await authenticate(header);
    if (!found) return reply.code(401).send({ code: 'UNAUTHORIZED' });
    principal = { principal: found, at: Date.now() };
    leanTokens.set(tokenHash, principal);
  }
  const { organizationId, userId } = principal.principal;
  const body = request.body as { workspaceApiKey?: string; identifier?: string };
  if (typeof body?.identifier !== 'string' || body.identifier.trim() === '' || typeof body.workspaceApiKey !== 'string')
    return reply.code(400).send({ code: 'BAD_REQUEST' });
  if (!isWellFormedToken('workspaceApiKey', body.workspaceApiKey)) return reply.code(404).send({ code: 'NOT_FOUND' });
  const { rows } = await pool.query({
    name: 'lean_workspace',
    text: `SELECT w.id AS "workspaceId", w."organizationId", i.id, i.name, i.type::text AS type, i.config, i."accountId", i."consumesType"
             FROM "Workspace" w LEFT JOIN "Integration" i ON i."workspaceId" = w.id AND i.enabled
            WHERE w."apiKeyHash" = $1 ORDER BY i."createdAt", i.id`,
    values: [hashToken(body.workspaceApiKey)],
  });
  if (!rows[0] || rows[0].organizationId !== organizationId) return reply.code(404).send({ code: 'NOT_FOUND' });
  const workspaceId = rows[0].workspaceId as string;
  const integrations = rows.filter((r) => r.id !== null);
  const id = newId('dr');
  const now = new Date();
  const iso = now.toISOString();
  const irIds = integrations.map(() => newId('ir'));
  await pool.query({
    name: 'lean_insert',
    text: INSERT_REQUEST,
    values: insertRequestValues({
      id,
      organizationId,
      workspaceId,
      identifier: body.identifier,
      identifierHmac: createHmac('sha256', pepper).update(body.identifier).digest('hex'),
      status: 'STAGING',
      statusReason: null,
      channel: 'API',
      createdByUserId: userId,
      createdByTokenId: null,
      idempotencyKey: null,
      requestHash: createHash('sha256').update(`${workspaceId}\n${body.identifier}`).digest('hex'),
      createdAt: now,
      receivedAt: null,
      completed: false,
      regulation: GDPR_RULE.name,
      dueAt: dueAtFor(GDPR_RULE, now),
      receiptConfirmBy: null,
      lookupsPending: false,
      // The primary identifier's row, as the service writes it.
      identifiers: [
        {
          id: newId('rid'),
          type: null,
          value: body.identifier,
          valueHmac: createHmac('sha256', pepper).update(`identifier\n\n${body.identifier}`).digest('hex'),
          matchHmac: createHmac('sha256', pepper).update(body.identifier).digest('hex'),
          primary: true,
          source: 'request',
        },
      ],
      integrationRequests: integrations.map((i, n) => ({
        id: irIds[n]!,
        integrationId: i.id,
        integrationName: i.name,
        integrationType: i.type,
        configSnapshot: i.config,
        accountId: i.accountId,
        consumesType: i.consumesType,
      })),
      audit: {
        actorType: 'user:pat',
        actorId: userId,
        summary: `Deletion request created for ${integrations.length} integration(s)`,
        details: { workspaceId, integrations: integrations.map((i) => ({ id: i.id, name: i.name, type: i.type })) },
      },
    }),
  });
  wake();
  return reply.code(201).send({
    id,
    organizationId,
    workspaceId,
    identifier: body.identifier,
    hashed: false,
    status: 'STAGING',
    statusReason: null,
    channel: 'API',
    createdByUserId: userId,
    createdAt: iso,
    updatedAt: iso,
    completedAt: null,
    integrationRequests: integrations.map((i, n) => ({
      id: irIds[n],
      integrationId: i.id,
      name: i.name,
      type: i.type,
      status: 'STAGING',
      attempts: 0,
      trackingId: null,
      lastError: null,
      nextAttemptAt: iso,
      createdAt: iso,
      updatedAt: iso,
      completedAt: null,
    })),
  });
});

registerListRoutes(app, pool, authenticate);

await pool.query(
  `CREATE TABLE IF NOT EXISTS "BenchFloor" (id text PRIMARY KEY, identifier text NOT NULL, "createdAt" timestamptz NOT NULL)`,
);
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
const stop = async () => {
  await app.close();
  await pool.end();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
