import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyRetention } from '../pipeline/commands/apply-retention';
import { callerFor, createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../test/harness';
import { expectError, restClient } from '../test/rest';

let env: TestEnv;
let server: Awaited<ReturnType<typeof startTestServer>>;
let rest: ReturnType<typeof restClient>;
let org: Awaited<ReturnType<typeof seedOrganization>>;

beforeAll(async () => {
  env = await createTestEnv({ ERASURE_CHECK_LIMIT_PER_TOKEN: '3000' });
  server = await startTestServer(env.deps);
  rest = restClient(server.baseUrl);
  org = await seedOrganization(env.deps, 'checker');
});
afterAll(async () => {
  await server?.close();
  await env?.close();
});

const create = (identifier: string, workspaceApiKey = org.workspaceApiKey, pat = org.pat) =>
  rest
    .post('/api/public/deletion-requests', { workspaceApiKey, identifier }, { 'x-api-key': pat })
    .then((r) => r.json());
const check = (identifier: unknown, pat = org.pat) =>
  rest.post('/api/public/erasure-checks', { identifier }, { 'x-api-key': pat });

describe('POST /api/public/erasure-checks', () => {
  it("answers found with the latest request's status and completion time, or not found", async () => {
    const request = await create('erased@example.com');
    // The workspace has no integrations: the request finishes at once (FAILED, nothing to run).
    const found = await check('  erased@example.com ');
    expect(found.status).toBe(200);
    expect(await found.json()).toMatchObject({
      found: true,
      erased: false,
      deletionRequestId: request.id,
      status: 'FAILED',
      completedAt: request.completedAt,
      requestCount: 1,
    });
    await env.db.prisma.deletionRequest.update({ where: { id: request.id }, data: { status: 'SUCCESS' } });
    expect(await (await check('erased@example.com')).json()).toMatchObject({
      found: true,
      erased: true,
      status: 'SUCCESS',
      erasedAt: request.completedAt,
    });
    expect(await (await check('never@example.com')).json()).toEqual({
      found: false,
      erased: false,
      deletionRequestId: null,
      status: null,
      requestedAt: null,
      completedAt: null,
      erasedAt: null,
      requestCount: 0,
    });
  });

  it('still answers after retention hashed the identifier', async () => {
    const request = await create('retained@example.com');
    await env.db.prisma.organization.update({
      where: { id: org.organization.id },
      data: { retentionAction: 'HASH', retentionDays: 0 },
    });
    await applyRetention(env.db.prisma, new Date(Date.now() + 1000), org.organization.id);
    const stored = await env.db.prisma.deletionRequest.findUniqueOrThrow({ where: { id: request.id } });
    expect(stored.hashed).toBe(true);
    expect(stored.identifier).not.toContain('retained@');
    expect(await (await check('retained@example.com')).json()).toMatchObject({
      found: true,
      deletionRequestId: request.id,
    });
    await env.db.prisma.organization.update({ where: { id: org.organization.id }, data: { retentionAction: 'NONE' } });
  });

  it('is audited without the identifier', async () => {
    await check('audited-subject@example.com');
    const entry = await env.db.prisma.auditLog.findFirstOrThrow({
      where: { organizationId: org.organization.id, action: 'erasure_check.performed' },
      orderBy: { id: 'desc' },
    });
    expect(entry.details).toMatchObject({ checked: 1, found: 0, tokenId: org.patId });
    expect(JSON.stringify({ ...entry, id: String(entry.id), chainSeq: null })).not.toContain('audited-subject');
  });

  it('400 for a missing, empty or too long identifier and for malformed JSON; 401 without a token', async () => {
    await expectError(await check(''), 400, 'BAD_REQUEST');
    await expectError(await check('x'.repeat(513)), 400, 'BAD_REQUEST');
    await expectError(await rest.post('/api/public/erasure-checks', {}, { 'x-api-key': org.pat }), 400, 'BAD_REQUEST');
    await expectError(
      await rest.post('/api/public/erasure-checks', '{"identifier":', { 'x-api-key': org.pat }),
      400,
      'BAD_REQUEST',
    );
    await expectError(await rest.post('/api/public/erasure-checks', { identifier: 'a' }), 401, 'UNAUTHORIZED');
  });

  it("never answers about another organization's subjects, nor outside a token's workspaces", async () => {
    const other = await seedOrganization(env.deps, 'other-checker');
    await create('shared-subject@example.com', other.workspaceApiKey, other.pat);
    expect(await (await check('shared-subject@example.com')).json()).toMatchObject({ found: false });
    const { caller } = callerFor(env.deps, { pat: org.pat });
    const elsewhere = await caller.workspaces.create({ name: 'elsewhere' });
    const limited = await caller.tokens.create({
      name: 'limited',
      scopes: ['erasure-checks:read'],
      workspaceIds: [elsewhere.id],
    });
    expect(await (await check('erased@example.com', limited.token)).json()).toMatchObject({ found: false });
    expect(await (await check('erased@example.com')).json()).toMatchObject({ found: true });
  });
});

describe('POST /api/public/erasure-checks/batch', () => {
  it('answers up to 1,000 identifiers in order, in one call', async () => {
    await create('batch-1@example.com');
    const identifiers = Array.from({ length: 1000 }, (_, i) =>
      i === 500 ? 'batch-1@example.com' : `unknown-${i}-${'x'.repeat(80)}@example.com`,
    );
    const response = await rest.post('/api/public/erasure-checks/batch', { identifiers }, { 'x-api-key': org.pat });
    expect(response.status).toBe(200);
    const { results } = await response.json();
    expect(results).toHaveLength(1000);
    expect(results[500]).toMatchObject({ found: true });
    expect(results.filter((r: { found: boolean }) => r.found)).toHaveLength(1);
  });

  it('400 for none or more than 1,000; other paths keep the normal body limit', async () => {
    await expectError(
      await rest.post('/api/public/erasure-checks/batch', { identifiers: [] }, { 'x-api-key': org.pat }),
      400,
      'BAD_REQUEST',
    );
    const tooMany = Array.from({ length: 1001 }, (_, i) => `s${i}`);
    await expectError(
      await rest.post('/api/public/erasure-checks/batch', { identifiers: tooMany }, { 'x-api-key': org.pat }),
      400,
      'BAD_REQUEST',
    );
    await expectError(
      await rest.post('/api/public/erasure-checks', { identifier: 'x'.repeat(100_000) }, { 'x-api-key': org.pat }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
  });

  it('is rate limited by identifiers per token: 429 with Retry-After once the budget is spent', async () => {
    const { caller } = callerFor(env.deps, { pat: org.pat });
    const token = await caller.tokens.create({ name: 'bulk', scopes: ['erasure-checks:read'] });
    const identifiers = Array.from({ length: 1000 }, (_, i) => `rate-${i}`);
    for (let i = 0; i < 3; i++)
      expect(
        (await rest.post('/api/public/erasure-checks/batch', { identifiers }, { 'x-api-key': token.token })).status,
      ).toBe(200);
    const limited = await rest.post('/api/public/erasure-checks/batch', { identifiers }, { 'x-api-key': token.token });
    await expectError(limited, 429, 'TOO_MANY_REQUESTS');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
