import { randomBytes } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../http/openapi';
import { ID_PREFIX, newId } from '../lib/ids';
import { hashBytes, identifierHmac } from '../lib/crypto';
import { appRouter } from '../routers/root';
import { newTaskToken } from '../services/manual-tasks/task-links';
import { callerFor, createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../test/harness';

/**
 * Cross-tenant suite: organization B's owner (session and PAT) aims every procedure and
 * REST path that takes an id or a key at organization A's objects. Each attempt must be
 * refused (NOT_FOUND/FORBIDDEN, or an empty answer for filters), show nothing of A, and
 * write nothing anywhere.
 */

let env: TestEnv;
let server: Awaited<ReturnType<typeof startTestServer>>;
let A: Awaited<ReturnType<typeof seed>>;
let B: Awaited<ReturnType<typeof seed>>;

const SUBJECT = 'tenant-a-subject@example.com';
const A_SECRET = 'tenant-a-webhook-secret-0123456789';

async function seed(label: string, secret: string) {
  const org = await seedOrganization(env.deps, label);
  const { caller } = callerFor(env.deps, { pat: org.pat });
  const account = await caller.accounts.create({
    name: `${label} hooks account`,
    integrationType: 'WEBHOOK',
    type: 'KEY_VALUE',
    secrets: { token: secret },
  });
  const integration = await caller.integrations.create({
    workspaceId: org.workspace.id,
    name: `${label} CRM`,
    type: 'WEBHOOK',
    accountId: account.id,
    config: { initiate: { url: 'http://127.0.0.1:1/erase' } },
  });
  // The request is written directly so no engine run changes rows while the suite compares snapshots.
  const deletionRequestId = newId(ID_PREFIX.deletionRequest);
  const identifier = label === 'tenant-a' ? SUBJECT : `${label}@example.com`;
  await env.db.prisma.deletionRequest.create({
    data: {
      id: deletionRequestId,
      organizationId: org.organization.id,
      workspaceId: org.workspace.id,
      identifier,
      identifierHmac: hashBytes([identifierHmac(env.deps.keyring, identifier)])[0]!,
      channel: 'API',
      createdByUserId: org.user.id,
      status: 'PENDING',
    },
  });
  const integrationRequestId = newId(ID_PREFIX.integrationRequest);
  const snapshot = await env.db.prisma.configSnapshot.create({
    data: { id: randomBytes(32), organizationId: org.organization.id, config: {} },
  });
  await env.db.prisma.integrationRequest.create({
    data: {
      id: integrationRequestId,
      deletionRequestId,
      integrationId: integration.id,
      integrationName: integration.name,
      integrationType: 'WEBHOOK',
      configSnapshotId: snapshot.id,
      accountId: account.id,
      status: 'PENDING',
    },
  });
  const invitationId = newId(ID_PREFIX.invitation);
  await env.db.prisma.invitation.create({
    data: {
      id: invitationId,
      organizationId: org.organization.id,
      email: `invitee-${label}@example.com`,
      role: 'MEMBER',
      tokenHash: `hash-${invitationId}`,
      expiresAt: new Date(Date.now() + 86_400_000),
    },
  });
  const policy = await caller.deadlines.createPolicy({ name: `${label} policy`, days: 20, extensionDays: 10 });
  const endpoint = await caller.callbacks.create({
    url: 'http://127.0.0.1:1/hooks',
    events: ['deletion_request.completed'],
    workspaceId: org.workspace.id,
  });
  const delivery = await caller.callbacks.sendTest({ endpointId: endpoint.id });
  const lookup = await caller.identities.createLookup({
    workspaceId: org.workspace.id,
    kind: 'webhook',
    name: `${label} identity service`,
    url: 'http://127.0.0.1:1/lookup',
    timeoutMs: 1_000,
    maxIdentifiers: 5,
  });
  const requestIdentifierId = newId(ID_PREFIX.requestIdentifier);
  await env.db.prisma.requestIdentifier.create({
    data: {
      id: requestIdentifierId,
      deletionRequestId,
      type: 'email',
      value: identifier,
      valueHmac: Buffer.from(`value-${requestIdentifierId}`),
      matchHmac: hashBytes([identifierHmac(env.deps.keyring, identifier)])[0]!,
      primary: true,
      source: 'request',
    },
  });
  // An open manual task on the request (its integration request waits for it), with its link's token.
  const manualTaskId = newId(ID_PREFIX.manualTask);
  const task = newTaskToken();
  await env.db.prisma.manualTask.create({
    data: {
      id: manualTaskId,
      organizationId: org.organization.id,
      workspaceId: org.workspace.id,
      deletionRequestId,
      integrationRequestId,
      integrationName: integration.name,
      owners: [`owner-${label}@example.com`],
      tokenHash: task.tokenHash,
      tokenExpiresAt: new Date(Date.now() + 30 * 86_400_000),
      dueAt: new Date(Date.now() + 7 * 86_400_000),
    },
  });
  await env.db.prisma.integrationRequest.update({
    where: { id: integrationRequestId },
    data: { trackingId: manualTaskId },
  });
  return {
    manualTaskId,
    manualTaskToken: task.token,
    lookupId: lookup.id,
    requestIdentifierId,
    ...org,
    accountId: account.id,
    integrationId: integration.id,
    deletionRequestId,
    integrationRequestId,
    invitationId,
    endpointId: endpoint.id,
    deliveryId: delivery.id,
    policyId: policy.id,
  };
}

beforeAll(async () => {
  env = await createTestEnv({ GOOGLE_OAUTH_CLIENT_ID: 'test-client', GOOGLE_OAUTH_CLIENT_SECRET: 'test-secret' });
  server = await startTestServer(env.deps);
  A = await seed('tenant-a', A_SECRET);
  B = await seed('tenant-b', 'tenant-b-webhook-secret-0123456789');
});
afterAll(async () => {
  await server?.close();
  await env?.close();
});

/** Everything stored, as one fingerprint (last-use timestamps excluded: B's own token use updates them). */
async function snapshot(): Promise<string> {
  const tables = await env.db.prisma.$queryRaw<Array<{ tablename: string }>>`
    SELECT tablename::text AS tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY tablename`;
  const parts: string[] = [];
  for (const { tablename } of tables) {
    const [row] = await env.db.prisma.$queryRawUnsafe<Array<{ fingerprint: string | null; n: bigint }>>(
      `SELECT md5(string_agg((to_jsonb(t) - 'lastUsedAt' - 'lastSeenAt')::text, '|' ORDER BY (to_jsonb(t) - 'lastUsedAt' - 'lastSeenAt')::text)) AS fingerprint, count(*) AS n FROM "${tablename}" t`,
    );
    parts.push(`${tablename}:${row?.n}:${row?.fingerprint}`);
  }
  return parts.join('\n');
}

/** What of A must never reach B. Ids are not in the list: B sent them and may see them echoed. */
const markersOfA = () => [
  SUBJECT,
  A_SECRET,
  A.workspaceApiKey,
  A.email,
  'invitee-tenant-a@example.com',
  'tenant-a hooks account',
  'tenant-a CRM',
  'tenant-a workspace',
  'owner-tenant-a@example.com',
];

function expectNothingOfA(text: string, what: string) {
  for (const marker of markersOfA()) expect(text.includes(marker), `${what} leaked "${marker}"`).toBe(false);
}

/** `sessionOnly`: the procedure refuses PATs outright (BAD_REQUEST before it looks at the id). */
type Attempt = { path: string; input: unknown; sessionOnly?: boolean };

/** Every id- or key-taking procedure, aimed at A (and, where two ids meet, mixing A's and B's). */
function attempts(): Attempt[] {
  const webhook = { initiate: { url: 'http://127.0.0.1:1/x' } };
  return [
    { path: 'auth.switchOrganization', input: { organizationId: A.organization.id }, sessionOnly: true },
    { path: 'accounts.connectOAuth', input: { integrationType: 'GOOGLE_ANALYTICS', accountId: A.accountId } },
    { path: 'tokens.revoke', input: { tokenId: A.patId } },
    { path: 'workspaces.get', input: { workspaceId: A.workspace.id } },
    { path: 'workspaces.rename', input: { workspaceId: A.workspace.id, name: 'taken over' } },
    { path: 'workspaces.delete', input: { workspaceId: A.workspace.id } },
    { path: 'workspaces.revealApiKey', input: { workspaceId: A.workspace.id } },
    { path: 'workspaces.rotateApiKey', input: { workspaceId: A.workspace.id } },
    { path: 'deletionRequests.create', input: { workspaceApiKey: A.workspaceApiKey, identifier: 'x@b.example' } },
    { path: 'deletionRequests.createInWorkspace', input: { workspaceId: A.workspace.id, identifier: 'x@b.example' } },
    { path: 'deletionRequests.importCsv', input: { workspaceId: A.workspace.id, csv: 'identifier\nx@b.example\n' } },
    { path: 'deletionRequests.deleteAgain', input: { deletionRequestId: A.deletionRequestId } },
    { path: 'deletionRequests.listWorkspace', input: { workspaceId: A.workspace.id } },
    { path: 'deletionRequests.listUser', input: { userId: A.user.id } },
    { path: 'deletionRequests.get', input: { deletionRequestId: A.deletionRequestId } },
    { path: 'deletionRequests.auditTrail', input: { deletionRequestId: A.deletionRequestId } },
    { path: 'deletionRequests.retry', input: { deletionRequestId: A.deletionRequestId } },
    { path: 'deletionRequests.cancel', input: { deletionRequestId: A.deletionRequestId } },
    { path: 'deletionRequests.checkStatus', input: { deletionRequestId: A.deletionRequestId } },
    {
      path: 'deletionRequests.retryIntegration',
      input: { deletionRequestId: A.deletionRequestId, integrationRequestId: A.integrationRequestId },
    },
    {
      path: 'deletionRequests.checkStatusNow',
      input: { deletionRequestId: A.deletionRequestId, integrationRequestId: A.integrationRequestId },
    },
    {
      path: 'deletionRequests.cancelIntegration',
      input: { deletionRequestId: A.deletionRequestId, integrationRequestId: A.integrationRequestId },
    },
    // B's own request with A's integration request, and A's request with B's: both answer nothing.
    {
      path: 'deletionRequests.cancelIntegration',
      input: { deletionRequestId: B.deletionRequestId, integrationRequestId: A.integrationRequestId },
    },
    {
      path: 'deletionRequests.retryIntegration',
      input: { deletionRequestId: A.deletionRequestId, integrationRequestId: B.integrationRequestId },
    },
    { path: 'deletionRequests.bulkRetry', input: { deletionRequestIds: [A.deletionRequestId] } },
    { path: 'deletionRequests.bulkCancel', input: { filter: { workspaceId: A.workspace.id } } },
    { path: 'deletionRequests.countMatching', input: { filter: { workspaceId: A.workspace.id } } },
    { path: 'accounts.get', input: { accountId: A.accountId } },
    {
      path: 'accounts.update',
      input: { accountId: A.accountId, name: 'taken over', secrets: { token: 'attacker-controlled-token' } },
    },
    { path: 'accounts.delete', input: { accountId: A.accountId } },
    { path: 'integrations.list', input: { workspaceId: A.workspace.id } },
    { path: 'integrations.get', input: { integrationId: A.integrationId } },
    {
      path: 'integrations.create',
      input: { workspaceId: A.workspace.id, name: 'implant', type: 'WEBHOOK', accountId: B.accountId, config: webhook },
    },
    {
      path: 'integrations.create',
      input: { workspaceId: B.workspace.id, name: 'borrow', type: 'WEBHOOK', accountId: A.accountId, config: webhook },
    },
    { path: 'integrations.update', input: { integrationId: A.integrationId, name: 'taken over', config: webhook } },
    { path: 'integrations.swapAccount', input: { integrationId: A.integrationId, accountId: B.accountId } },
    { path: 'integrations.swapAccount', input: { integrationId: B.integrationId, accountId: A.accountId } },
    { path: 'integrations.setEnabled', input: { integrationId: A.integrationId, enabled: false } },
    { path: 'integrations.delete', input: { integrationId: A.integrationId } },
    { path: 'integrations.testConnection', input: { integrationId: A.integrationId } },
    { path: 'integrations.rotateHashKey', input: { integrationId: A.integrationId } },
    { path: 'integrations.discoverSchema', input: { accountId: A.accountId } },
    { path: 'integrations.foreignKeyGraph', input: { accountId: A.accountId, schema: 'public', table: 'users' } },
    {
      path: 'integrations.dryRun',
      input: {
        accountId: A.accountId,
        config: { rules: [{ table: 'users', identifierColumns: ['email'], action: 'delete' }] },
        identifier: 'x@b.example',
      },
    },
    {
      path: 'integrations.testConfiguration',
      input: {
        type: 'WEBHOOK',
        accountId: A.accountId,
        config: { initiate: { url: 'http://127.0.0.1:1/erase' } },
        trialIdentifier: 'x@b.example',
      },
    },
    { path: 'members.changeRole', input: { userId: A.user.id, role: 'MEMBER' } },
    { path: 'members.remove', input: { userId: A.user.id } },
    { path: 'members.revokeInvitation', input: { invitationId: A.invitationId } },
    { path: 'dashboard.requestDetail', input: { deletionRequestId: A.deletionRequestId } },
    {
      path: 'deadlines.extend',
      input: { deletionRequestId: A.deletionRequestId, reason: 'an attempt from another organization' },
    },
    { path: 'deadlines.confirmReceipt', input: { deletionRequestId: A.deletionRequestId } },
    {
      path: 'deadlines.correctReceiptConfirmation',
      input: {
        deletionRequestId: A.deletionRequestId,
        confirmedAt: null,
        reason: 'an attempt from another organization',
      },
    },
    { path: 'deadlines.deletePolicy', input: { policyId: A.policyId } },
    { path: 'deadlines.setWorkspaceRegulation', input: { workspaceId: A.workspace.id, regulation: 'CCPA' } },
    { path: 'dashboard.revealIdentifier', input: { deletionRequestId: A.deletionRequestId } },
    { path: 'dashboard.personRequests', input: { deletionRequestId: A.deletionRequestId } },
    { path: 'dashboard.revealAuditTrail', input: { deletionRequestId: A.deletionRequestId } },
    { path: 'identities.listLookups', input: { workspaceId: A.workspace.id } },
    {
      path: 'identities.createLookup',
      input: {
        workspaceId: A.workspace.id,
        kind: 'webhook',
        name: 'implant',
        url: 'http://127.0.0.1:1/x',
        timeoutMs: 1_000,
        maxIdentifiers: 5,
      },
    },
    {
      path: 'identities.createLookup',
      input: {
        workspaceId: B.workspace.id,
        kind: 'sql',
        name: "A's database",
        accountId: A.accountId,
        query: 'SELECT id AS user_id FROM users WHERE email = {{email}}',
        columns: { user_id: 'user_id' },
        timeoutMs: 1_000,
        maxRows: 5,
      },
    },
    { path: 'identities.deleteLookup', input: { lookupId: A.lookupId } },
    { path: 'identities.setIntegrationType', input: { integrationId: A.integrationId, consumesType: 'email' } },
    { path: 'identities.requestIdentifiers', input: { deletionRequestId: A.deletionRequestId } },
    {
      path: 'identities.revealRequestIdentifier',
      input: { deletionRequestId: A.deletionRequestId, identifierId: A.requestIdentifierId },
    },
    {
      path: 'identities.revealRequestIdentifier',
      input: { deletionRequestId: B.deletionRequestId, identifierId: A.requestIdentifierId },
    },
    {
      path: 'callbacks.create',
      input: { url: 'http://127.0.0.1:1/implant', events: ['deletion_request.completed'], workspaceId: A.workspace.id },
    },
    { path: 'callbacks.update', input: { endpointId: A.endpointId, url: 'http://127.0.0.1:2/taken-over' } },
    { path: 'callbacks.delete', input: { endpointId: A.endpointId } },
    { path: 'callbacks.rotateSecret', input: { endpointId: A.endpointId, overlapHours: 0 } },
    { path: 'callbacks.sendTest', input: { endpointId: A.endpointId } },
    { path: 'callbacks.deliveries', input: { endpointId: A.endpointId } },
    { path: 'callbacks.resend', input: { deliveryId: A.deliveryId } },
    { path: 'dashboard.searchRequests', input: { filter: { workspaceId: A.workspace.id } } },
    { path: 'dashboard.searchRequests', input: { filter: { createdByUserId: A.user.id } } },
    { path: 'dashboard.searchRequests', input: { filter: { identifier: SUBJECT } } },
    { path: 'dashboard.auditLog', input: { filter: { workspaceId: A.workspace.id } } },
    { path: 'dashboard.auditLog', input: { filter: { actorId: A.user.id } } },
    { path: 'dashboard.auditLog', input: { filter: { deletionRequestId: A.deletionRequestId } } },
    { path: 'manualTasks.ofRequest', input: { deletionRequestId: A.deletionRequestId } },
    { path: 'manualTasks.answer', input: { id: A.manualTaskId, answer: 'not_found' } },
    // B's own task link cannot reveal an identifier of A's request.
    { path: 'manualTasks.revealOnTask', input: { token: B.manualTaskToken, identifierId: A.requestIdentifierId } },
  ];
}

/** Field names (nested one level, "filter.workspaceId") of a procedure's input object. */
function inputFields(schema: any, prefix = ''): string[] {
  let s = schema;
  for (let i = 0; i < 5 && s && !s.shape; i++) s = s._zod?.def?.innerType ?? s._zod?.def?.in ?? null;
  if (!s?.shape) return [];
  return Object.entries(s.shape as Record<string, unknown>).flatMap(([key, child]) => [
    prefix + key,
    ...(prefix ? [] : inputFields(child, `${key}.`)),
  ]);
}

const ID_FIELD = /(Id|ApiKey)$/;

describe('cross-tenant: organization B against organization A', () => {
  it('every procedure that takes an id or key has an attempt in this suite', () => {
    const procedures = (appRouter._def as any).procedures as Record<string, any>;
    const covered = new Set(attempts().map((a) => a.path));
    const uncovered = Object.entries(procedures)
      .filter(([, p]) =>
        (p._def.inputs ?? []).some((schema: unknown) => inputFields(schema).some((f) => ID_FIELD.test(f))),
      )
      .map(([path]) => path)
      .filter((path) => !covered.has(path));
    expect(uncovered, "add an attempt with organization A's ids for these procedures").toEqual([]);
  });

  it('tRPC (session and PAT): refused or empty, nothing of A in the answer, nothing written', async () => {
    const problems: string[] = [];
    for (const auth of ['session', 'pat'] as const) {
      const sessionToken = auth === 'session' ? await signIn(B.email) : undefined;
      const before = await snapshot();
      for (const { path, input, sessionOnly } of attempts()) {
        if (sessionOnly && auth === 'pat') continue;
        if (!(path in (appRouter._def as any).procedures)) continue; // an attempt for a procedure not (yet) in this build
        const { caller } = callerFor(env.deps, auth === 'pat' ? { pat: B.pat } : { sessionToken });
        const procedure = path.split('.').reduce<any>((node, key) => node[key], caller);
        const type = ((appRouter._def as any).procedures[path]._def.type as string) ?? 'query';
        try {
          const result = await procedure(input);
          const text = JSON.stringify(result, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
          expectNothingOfA(text, `${path} (${auth})`);
          if (type === 'mutation') problems.push(`${path} (${auth}) succeeded: ${text.slice(0, 200)}`);
          else if (!isEmptyAnswer(result)) problems.push(`${path} (${auth}) answered with data: ${text.slice(0, 200)}`);
        } catch (error) {
          const code = error instanceof TRPCError ? error.code : 'THROWN';
          expectNothingOfA(`${(error as Error).message}`, `${path} (${auth}) error`);
          if (code !== 'NOT_FOUND' && code !== 'FORBIDDEN')
            problems.push(`${path} (${auth}) ${code}: ${(error as Error).message}`);
        }
      }
      const after = await snapshot();
      expect(after === before, `${auth}: a refused attempt wrote to the database`).toBe(true);
    }
    expect(problems).toEqual([]);
  });

  it("REST: every public path with A's ids and keys answers 403/404 with nothing of A, and writes nothing", async () => {
    const document = buildOpenApiDocument(server.baseUrl);
    const values: Record<string, string> = {
      workspaceId: A.workspace.id,
      userId: A.user.id,
      deletionRequestId: A.deletionRequestId,
      integrationRequestId: A.integrationRequestId,
      endpointId: A.endpointId,
      deliveryId: A.deliveryId,
      id: A.manualTaskId,
    };
    const before = await snapshot();
    let calls = 0;
    for (const [template, item] of Object.entries(document.paths ?? {})) {
      // Downloads name their own server (/api); the rest are under /api/public.
      const { servers, ...operations } = item as Record<string, any>;
      const base = servers?.[0]?.url ?? `${server.baseUrl}/api/public`;
      for (const [method, operation] of Object.entries(operations)) {
        // Erasure checks name no id of A: they answer about B's own organization (next test).
        if (operation.tags?.includes('Erasure checks')) continue;
        // The certificate-signing key is B's own (made on first use): it names nothing of A.
        if (operation.operationId === 'downloadCertificatePublicKey') continue;
        const path = template.replace(/\{(\w+)\}/g, (_m, name: string) =>
          encodeURIComponent(values[name] ?? 'missing'),
        );
        const headerSets: Array<Record<string, string>> = [
          { 'x-api-key': B.pat },
          { 'x-api-key': B.pat, 'x-workspace-api-key': A.workspaceApiKey },
        ];
        for (const headers of headerSets) {
          // The CSV import names A's workspace for its rows; bulk actions name A's request.
          const csvImport =
            template === '/deletion-requests/import'
              ? { csv: 'identifier\nx@b.example\n', workspaceId: A.workspace.id }
              : {};
          // A callback endpoint registered for A's workspace.
          const callback =
            template === '/callback-endpoints'
              ? {
                  url: 'http://127.0.0.1:2/taken-over',
                  events: ['deletion_request.created'],
                  workspaceId: A.workspace.id,
                }
              : {};
          // A correction says what the record should be (here: withdrawn).
          const correction = template.endsWith('/correct-receipt-confirmation') ? { confirmedAt: null } : {};
          // A cancel names one of its reasons.
          const cancel = template.endsWith('/cancel') ? { reason: 'duplicate' } : {};
          // An answer names what it is.
          const answer = template.endsWith('/answer') ? { answer: 'not_found' } : {};
          const body = !operation.requestBody
            ? undefined
            : template === '/downloads/requests.csv'
              ? JSON.stringify({ filter: { workspaceId: A.workspace.id } })
              : template.includes('/bulk-')
                ? JSON.stringify({ deletionRequestIds: [A.deletionRequestId] })
                : JSON.stringify({
                    workspaceApiKey: A.workspaceApiKey,
                    identifier: 'x@b.example',
                    reason: 'a valid reason given by organization B',
                    ...csvImport,
                    ...callback,
                    ...correction,
                    ...cancel,
                    ...answer,
                  });
          const response = await fetch(`${base}${path}`, {
            method: method.toUpperCase(),
            headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
            body,
          });
          const text = await response.text();
          calls += 1;
          expectNothingOfA(text, `${method.toUpperCase()} ${template}`);
          // B's own list (empty for A's workspace) or key, with nothing of A in it (just checked).
          if (operation.tags?.includes('Downloads') && !template.includes('{')) continue;
          // The workspace key header counts where the operation reads it (the lists of requests).
          const readsWorkspaceKey = ((operation.parameters ?? []) as { in: string; name: string }[]).some(
            (p) => p.in === 'header' && p.name.toLowerCase() === 'x-workspace-api-key',
          );
          const hasAId =
            template.includes('{') || body !== undefined || ('x-workspace-api-key' in headers && readsWorkspaceKey);
          if (hasAId)
            expect(
              [403, 404],
              `${method.toUpperCase()} ${template} ${JSON.stringify(Object.keys(headers))}: ${text}`,
            ).toContain(response.status);
          else if (operation.tags?.includes('Downloads'))
            continue; // B's own list or key: nothing of A in it (above)
          else if (template === '/callback-endpoints')
            expect(JSON.parse(text).map((e: { id: string }) => e.id)).toEqual([B.endpointId]); // B's own only
          else for (const item of JSON.parse(text)) expect(item.organizationId).toBe(B.organization.id);
        }
      }
    }
    expect(calls).toBeGreaterThanOrEqual(8);
    expect(await snapshot()).toBe(before);
  });
});

describe('erasure checks across organizations', () => {
  it("B asking about A's subject learns nothing: not found, single and batch", async () => {
    const subject = 'only-in-a@example.org';
    const created = await fetch(`${server.baseUrl}/api/public/deletion-requests`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': A.pat },
      body: JSON.stringify({ workspaceApiKey: A.workspaceApiKey, identifier: subject }),
    });
    expect(created.status).toBe(201);
    const ask = (path: string, body: unknown, pat: string) =>
      fetch(`${server.baseUrl}/api/public${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': pat },
        body: JSON.stringify(body),
      }).then((r) => r.json());
    expect(await ask('/erasure-checks', { identifier: subject }, B.pat)).toMatchObject({
      found: false,
      deletionRequestId: null,
    });
    expect((await ask('/erasure-checks/batch', { identifiers: [subject] }, B.pat)).results).toEqual([
      expect.objectContaining({ found: false }),
    ]);
    expect(await ask('/erasure-checks', { identifier: subject }, A.pat)).toMatchObject({ found: true });
  });
});

function isEmptyAnswer(result: unknown): boolean {
  if (Array.isArray(result)) return result.length === 0;
  if (result && typeof result === 'object' && 'items' in result)
    return Array.isArray((result as { items: unknown[] }).items) && (result as { items: unknown[] }).items.length === 0;
  return false;
}

async function signIn(email: string): Promise<string> {
  const { caller, ctx } = callerFor(env.deps);
  await caller.auth.signIn({ email, password: 'correct horse battery staple' });
  return ctx.cookies.dds_session!;
}
