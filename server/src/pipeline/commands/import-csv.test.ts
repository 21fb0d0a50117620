import { createTRPCClient, httpBatchLink } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSV_IMPORT_MAX_BYTES } from '@shared/schemas/csv-import';
import { CSV_REPLAY_WINDOW_MS } from './import-csv';
import { CSV_IMPORT_BODY_LIMIT_BYTES } from '../../http/body-limits';
import type { AppRouter } from '../../routers/root';
import { createWorkspace } from '../../services/workspaces/workspaces';
import { createTestEnv, seedOrganization, callerFor, startTestServer, type TestEnv } from '../../test/harness';
import { expectError, restClient } from '../../test/rest';

let env: TestEnv;
let server: Awaited<ReturnType<typeof startTestServer>>;
let org: Awaited<ReturnType<typeof seedOrganization>>;
let other: Awaited<ReturnType<typeof seedOrganization>>;
let staging: { id: string };
let api: ReturnType<typeof restClient>;

beforeAll(async () => {
  env = await createTestEnv();
  server = await startTestServer(env.deps);
  api = restClient(server.baseUrl);
  org = await seedOrganization(env.deps, 'csv-import');
  other = await seedOrganization(env.deps, 'csv-import-other');
  staging = await createWorkspace(env.deps.prisma, env.deps.keyring, org.actor, { name: 'Staging' });
});
afterAll(async () => {
  await server?.close();
  await env?.close();
});

const importCsv = (body: unknown, token = org.pat) =>
  api.post('/api/public/deletion-requests/import', body, { 'X-API-Key': token });

const file = [
  'identifier,workspace,regulation',
  'ann@example.com,Staging,GDPR',
  `"=cmd|' /C calc'!A0",${'csv-import workspace'},CCPA`,
  '"quoted ""name"", with comma",,',
  ',Staging,',
  'bob@example.com,Nowhere,',
  'carol@example.com,Staging,HIPAA',
  'dörte@例え.jp,Staging,',
].join('\r\n');

describe('CSV import over REST', () => {
  it('creates valid rows through the create command and reports each bad one with its reason', async () => {
    const res = await importCsv({ csv: file, workspaceId: org.workspace.id, batchKey: 'crm-2026-11.csv' });
    expect(res.status).toBe(200);
    const report = await res.json();
    expect(report).toMatchObject({ created: 4, existing: 0, errors: 3 });
    expect(report.rows.map((r: { line: number; result: string }) => [r.line, r.result])).toEqual([
      [2, 'created'],
      [3, 'created'],
      [4, 'created'],
      [5, 'error'],
      [6, 'error'],
      [7, 'error'],
      [8, 'created'],
    ]);
    expect(report.rows[3].message).toBe('identifier must not be empty');
    expect(report.rows[4].message).toMatch(/No workspace with this name/);
    expect(report.rows[5].message).toMatch(/Unknown regulation/);
    // No message repeats an identifier.
    expect(JSON.stringify(report.rows.map((r: { message: string | null }) => r.message))).not.toMatch(/bob@|carol@/);
    const created = await env.deps.prisma.deletionRequest.findMany({
      where: {
        id: {
          in: report.rows
            .filter((r: { result: string }) => r.result === 'created')
            .map((r: { deletionRequestId: string }) => r.deletionRequestId),
        },
      },
      select: { identifier: true, workspaceId: true, regulation: true, channel: true },
    });
    expect(created).toEqual(
      expect.arrayContaining([
        { identifier: 'ann@example.com', workspaceId: staging.id, regulation: 'GDPR', channel: 'API' },
        { identifier: `=cmd|' /C calc'!A0`, workspaceId: org.workspace.id, regulation: 'CCPA', channel: 'API' },
        { identifier: 'quoted "name", with comma', workspaceId: org.workspace.id, regulation: 'GDPR', channel: 'API' },
        { identifier: 'dörte@例え.jp', workspaceId: staging.id, regulation: 'GDPR', channel: 'API' },
      ]),
    );
    const audit = await env.deps.prisma.auditLog.findFirst({
      where: { organizationId: org.organization.id, action: 'requests.imported' },
    });
    expect(audit?.summary).toBe('CSV import: 4 created, 0 already existed, 3 refused');
  });

  it('is idempotent: the same file again creates nothing new; the fixed row alone is created', async () => {
    const before = await env.deps.prisma.deletionRequest.count({ where: { organizationId: org.organization.id } });
    const again = await (
      await importCsv({ csv: file, workspaceId: org.workspace.id, batchKey: 'crm-2026-11.csv' })
    ).json();
    expect(again).toMatchObject({ created: 0, existing: 4, errors: 3 });
    expect(await env.deps.prisma.deletionRequest.count({ where: { organizationId: org.organization.id } })).toBe(
      before,
    );
    const fixed = await (
      await importCsv({
        csv: file.replace('bob@example.com,Nowhere', 'bob@example.com,Staging'),
        workspaceId: org.workspace.id,
        batchKey: 'crm-2026-11.csv',
      })
    ).json();
    expect(fixed).toMatchObject({ created: 1, existing: 4, errors: 2 });
    // Another batch key is another import.
    const otherBatch = await (
      await importCsv({ csv: 'identifier\nann@example.com\n', workspaceId: staging.id, batchKey: 'next-month' })
    ).json();
    expect(otherBatch).toMatchObject({ created: 1, existing: 0, errors: 0 });
  });

  it('reads a regulation by what it names: the same file with "gdpr" for "GDPR" is the same import', async () => {
    const csv = 'identifier,regulation\nspelled@example.com,GDPR\ncpra@example.com,CCPA\n';
    const first = await (await importCsv({ csv, workspaceId: staging.id, batchKey: 'spelling.csv' })).json();
    expect(first).toMatchObject({ created: 2, existing: 0, errors: 0 });
    const respelled = csv.replace(',GDPR', ',gdpr').replace(',CCPA', ', CPRA');
    const again = await (await importCsv({ csv: respelled, workspaceId: staging.id, batchKey: 'spelling.csv' })).json();
    expect(again).toMatchObject({ created: 0, existing: 2, errors: 0 });
    expect(again.rows.map((r: { deletionRequestId: string }) => r.deletionRequestId)).toEqual(
      first.rows.map((r: { deletionRequestId: string }) => r.deletionRequestId),
    );
    // Another regulation is still another body.
    const other = await (
      await importCsv({ csv: csv.replace(',GDPR', ',CCPA'), workspaceId: staging.id, batchKey: 'spelling.csv' })
    ).json();
    expect(other.rows[0]).toMatchObject({ result: 'error', message: expect.stringMatching(/different regulation/) });
  });

  it("takes a receivedAt column: each deadline runs from its row's receipt; a bad date refuses that row only", async () => {
    const csv = [
      'identifier,receivedAt',
      'backlog-1@example.com,2026-11-02',
      'backlog-2@example.com,2026-11-03T15:30:00+01:00',
      'backlog-3@example.com,',
      'backlog-4@example.com,2026-13-01',
    ].join('\n');
    const report = await (await importCsv({ csv, workspaceId: staging.id, batchKey: 'backlog.csv' })).json();
    expect(report).toMatchObject({ created: 3, existing: 0, errors: 1 });
    expect(report.rows[3]).toMatchObject({ line: 5, result: 'error', message: expect.stringMatching(/^receivedAt: /) });
    const stored = await env.deps.prisma.deletionRequest.findMany({
      where: { id: { in: report.rows.slice(0, 3).map((r: { deletionRequestId: string }) => r.deletionRequestId) } },
      select: { id: true, receivedAt: true, dueAt: true, createdAt: true },
    });
    const byId = new Map(stored.map((r) => [r.id, r]));
    const row = (n: number) => byId.get(report.rows[n].deletionRequestId)!;
    expect(row(0)).toMatchObject({
      receivedAt: new Date('2026-11-02T00:00:00Z'),
      dueAt: new Date('2026-12-02T23:59:59.999Z'),
    });
    expect(row(1)).toMatchObject({
      receivedAt: new Date('2026-11-03T14:30:00Z'),
      dueAt: new Date('2026-12-03T23:59:59.999Z'),
    });
    expect(row(2).receivedAt).toBeNull();
    // The same rows with another time of receipt are another body under the same batch key.
    const moved = await (
      await importCsv({
        csv: csv.replace('2026-11-02', '2026-11-01'),
        workspaceId: staging.id,
        batchKey: 'backlog.csv',
      })
    ).json();
    expect(moved).toMatchObject({ created: 0, existing: 2, errors: 2 });
    expect(moved.rows[0]).toMatchObject({ result: 'error', message: expect.stringMatching(/time of receipt/) });
  });

  it('after a day, the same file name asks again: a subject who asks again gets a new request', async () => {
    const csv = 'identifier\nrepeat@example.com\n';
    const first = await (await importCsv({ csv, workspaceId: staging.id, batchKey: 'deletions.csv' })).json();
    expect(first).toMatchObject({ created: 1, existing: 0 });
    const within = await (await importCsv({ csv, workspaceId: staging.id, batchKey: 'deletions.csv' })).json();
    expect(within).toMatchObject({ created: 0, existing: 1 });
    // The first upload, a day and a minute ago.
    const earlier = first.rows[0].deletionRequestId as string;
    await env.deps.prisma.deletionRequest.update({
      where: { id: earlier },
      data: { createdAt: new Date(Date.now() - CSV_REPLAY_WINDOW_MS - 60_000) },
    });
    const later = await (await importCsv({ csv, workspaceId: staging.id, batchKey: 'deletions.csv' })).json();
    expect(later).toMatchObject({ created: 1, existing: 0 });
    expect(later.rows[0].deletionRequestId).not.toBe(earlier);
    // ...and that new request answers the next repeat within the window.
    const again = await (await importCsv({ csv, workspaceId: staging.id, batchKey: 'deletions.csv' })).json();
    expect(again).toMatchObject({ created: 0, existing: 1 });
    expect(again.rows[0].deletionRequestId).toBe(later.rows[0].deletionRequestId);
  });

  it('skips lines of empty cells and names the earlier line of a subject repeated in the file', async () => {
    const csv = ['identifier,regulation', 'dup@example.com,', ',', ' , ', 'dup@example.com,', ''].join('\n');
    const report = await (await importCsv({ csv, workspaceId: staging.id, batchKey: 'dups.csv' })).json();
    expect(report).toMatchObject({ created: 1, existing: 1, errors: 0 });
    expect(report.rows).toEqual([
      { line: 2, result: 'created', deletionRequestId: expect.any(String), message: null },
      {
        line: 5,
        result: 'existing',
        deletionRequestId: report.rows[0].deletionRequestId,
        message: 'The same subject and workspace as line 2',
      },
    ]);
  });

  it('takes one column per identifier type: each row a person with several identifiers; a value its type refuses refuses the row', async () => {
    const typed = await seedOrganization(env.deps, 'csv-typed');
    await callerFor(env.deps, { pat: typed.pat }).caller.identities.createType({ name: 'stripe_customer_id' });
    const res = await importCsv(
      {
        csv: [
          'email,user_id,stripe_customer_id,phone',
          'ann@example.com,u_1,cus_1,',
          'bob@example.com,,,020 7946 0018',
          ',u_3,,+44 20 7946 0958',
        ].join('\n'),
        workspaceId: typed.workspace.id,
      },
      typed.pat,
    );
    const report = await res.json();
    expect(report.rows.map((r: { result: string }) => r.result)).toEqual(['created', 'error', 'created']);
    expect(report.rows[1].message).toMatch(/phone: the value is not a phone number in E\.164 form/);
    expect(report.rows[1].message).not.toContain('7946');
    const identifiers = (id: string) =>
      env.deps.prisma.requestIdentifier
        .findMany({ where: { deletionRequestId: id }, orderBy: [{ primary: 'desc' }, { type: 'asc' }] })
        .then((rows) => rows.map((r) => [r.type, r.value, r.primary]));
    expect(await identifiers(report.rows[0].deletionRequestId)).toEqual([
      ['email', 'ann@example.com', true],
      ['stripe_customer_id', 'cus_1', false],
      ['user_id', 'u_1', false],
    ]);
    // No "identifier" column: the first filled type column is the primary identifier; phones in E.164.
    expect(await identifiers(report.rows[2].deletionRequestId)).toEqual([
      ['user_id', 'u_3', true],
      ['phone', '+442079460958', false],
    ]);
  });

  it('refuses whole-file problems with a clear 4xx and creates nothing', async () => {
    const before = await env.deps.prisma.deletionRequest.count();
    await expectError(
      await importCsv({ csv: 'mail\nann@example.com\n', workspaceId: org.workspace.id }),
      400,
      'BAD_REQUEST',
    );
    // A file without its header line: line 1 is an identifier, and the error does not repeat it.
    const headless = await expectError(
      await importCsv({ csv: 'identifier,Jane@Example.com\nbob@example.com\n', workspaceId: org.workspace.id }),
      400,
      'BAD_REQUEST',
    );
    expect(headless.message).toBe(
      'Line 1 must name the columns (identifier, workspace, regulation, receivedAt, or an identifier type: email, phone, user_id); column 2 of line 1 is not one of them',
    );
    await expectError(await importCsv({ csv: 'identifier\nann@example.com\n' }), 400, 'BAD_REQUEST');
    const broken = await expectError(
      await importCsv({ csv: 'identifier\n"ann@example.com\n', workspaceId: org.workspace.id }),
      400,
      'BAD_REQUEST',
    );
    expect(broken.message).toBe('Line 2: A quoted cell is not closed');
    const tooMany = `identifier\n${Array.from({ length: 1001 }, (_, i) => `u${i}@x.io`).join('\n')}`;
    const big = await expectError(
      await importCsv({ csv: tooMany, workspaceId: org.workspace.id }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    expect(big.message).toContain('at most 1000');
    await expectError(
      await importCsv({ csv: 'identifier\nx@y.z\n', workspaceId: other.workspace.id }),
      404,
      'NOT_FOUND',
    );
    expect(await env.deps.prisma.deletionRequest.count()).toBe(before);
  });
});

describe('CSV import body limits', () => {
  // Rows naming no workspace of the organization: the file is read whole, each row refused, nothing created.
  const longRows = (count: number) =>
    `identifier,workspace\n${Array.from({ length: count }, (_, i) => `${String(i).padStart(6, '0')}${'y'.repeat(220)}@example.com,Nowhere`).join('\n')}\n`;

  it('takes a file up to its own 256 KiB over REST, although BODY_LIMIT_BYTES is 64 KiB', async () => {
    expect(env.deps.config.BODY_LIMIT_BYTES).toBe(65_536);
    const csv = longRows(900);
    expect(Buffer.byteLength(csv)).toBeGreaterThan(200 * 1024);
    expect(Buffer.byteLength(csv)).toBeLessThan(CSV_IMPORT_MAX_BYTES);
    const res = await importCsv({ csv, workspaceId: org.workspace.id, batchKey: 'large.csv' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ created: 0, existing: 0, errors: 900 });
    // The other public paths keep BODY_LIMIT_BYTES.
    await expectError(
      await api.post(
        '/api/public/deletion-requests',
        { workspaceApiKey: org.workspaceApiKey, identifier: 'x'.repeat(100_000) },
        { 'X-API-Key': org.pat },
      ),
      413,
      'PAYLOAD_TOO_LARGE',
    );
  });

  it('a file over 256 KiB is refused by the import with its own message; a body over the route limit by the server', async () => {
    const over = await expectError(
      await importCsv({ csv: `identifier\n${'z'.repeat(CSV_IMPORT_MAX_BYTES)}\n`, workspaceId: org.workspace.id }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    expect(over.message).toMatch(/larger than 256 KiB/);
    const body = await expectError(
      await importCsv({
        csv: `identifier\n${'z'.repeat(CSV_IMPORT_BODY_LIMIT_BYTES)}\n`,
        workspaceId: org.workspace.id,
      }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    expect(body.message).toBe('Request body is too large');
  });

  it("the dashboard's tRPC upload takes the same file; other procedures keep BODY_LIMIT_BYTES", async () => {
    let cookie = '';
    const dashboard = createTRPCClient<AppRouter>({
      links: [
        httpBatchLink({
          url: `${server.baseUrl}/trpc`,
          headers: () => ({ origin: server.baseUrl, ...(cookie ? { cookie } : {}) }),
          fetch: async (input, init) => {
            const response = await fetch(input, init);
            const set = response.headers.get('set-cookie');
            if (set) cookie = set.split(';')[0]!;
            return response;
          },
        }),
      ],
    });
    await dashboard.auth.signIn.mutate({ email: org.email, password: 'correct horse battery staple' });
    const report = await dashboard.deletionRequests.importCsv.mutate({
      csv: longRows(900),
      workspaceId: org.workspace.id,
      batchKey: 'large-dashboard.csv',
    });
    expect(report).toMatchObject({ created: 0, existing: 0, errors: 900 });
    const tooLarge = await dashboard.deletionRequests.createInWorkspace
      .mutate({ workspaceId: org.workspace.id, identifier: 'x'.repeat(100_000) })
      .catch((e) => e);
    expect(tooLarge.meta?.response?.status).toBe(413);
  });
});

describe('CSV import with an Idempotency-Key', () => {
  it('replays the first report for the same key and body; another body with that key is a 422', async () => {
    const csv = 'identifier\nkeyed-1@example.com\nkeyed-2@example.com\n';
    const headers = { 'X-API-Key': org.pat, 'Idempotency-Key': 'import-keyed-1' };
    const first = await api.post(
      '/api/public/deletion-requests/import',
      { csv, workspaceId: org.workspace.id },
      headers,
    );
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const report = await first.json();
    expect(report).toMatchObject({ created: 2, existing: 0, errors: 0 });
    const count = await env.deps.prisma.deletionRequest.count({ where: { organizationId: org.organization.id } });
    const again = await api.post(
      '/api/public/deletion-requests/import',
      { csv, workspaceId: org.workspace.id },
      headers,
    );
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(report);
    await expectError(
      await api.post(
        '/api/public/deletion-requests/import',
        { csv: 'identifier\nkeyed-3@example.com\n', workspaceId: org.workspace.id },
        headers,
      ),
      422,
      'UNPROCESSABLE_CONTENT',
    );
    expect(await env.deps.prisma.deletionRequest.count({ where: { organizationId: org.organization.id } })).toBe(count);
  });
});
