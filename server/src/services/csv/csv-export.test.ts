import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskIdentifier } from '@shared/mask-identifier';
import { createWorkspace } from '../workspaces/workspaces';
import { parseCsv } from '../../lib/csv';
import { createDeletionRequest } from '../../pipeline/commands/create';
import { createPersonalAccessToken } from '../tokens/personal-access-tokens';
import { createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../../test/harness';
import { exportRequestsCsv } from './export-requests';

let env: TestEnv;
let server: Awaited<ReturnType<typeof startTestServer>>;
let org: Awaited<ReturnType<typeof seedOrganization>>;
let other: Awaited<ReturnType<typeof seedOrganization>>;
const hostile = [
  `=cmd|' /C calc'!A0`,
  '+SUM(1,2)',
  '-2+3',
  '@HYPERLINK("http://evil")',
  'say "hi", then go',
  'ünïcødé 🙂 日本語',
];
const ids: string[] = [];

beforeAll(async () => {
  env = await createTestEnv();
  server = await startTestServer(env.deps);
  org = await seedOrganization(env.deps, 'csv-export');
  other = await seedOrganization(env.deps, 'csv-export-other');
  // Hostile text in the cells a user controls: the identifier (masked, its first character kept) and the workspace name.
  for (const identifier of hostile) {
    const workspace = await createWorkspace(env.deps.prisma, env.deps.keyring, org.actor, {
      name: identifier.slice(0, 60),
    });
    ids.push(
      (await createDeletionRequest(env.deps, org.actor, { workspace: { id: workspace.id }, identifier }))
        .deletionRequest.id,
    );
  }
  await createDeletionRequest(env.deps, other.actor, {
    workspace: { id: other.workspace.id },
    identifier: 'someone-else@example.com',
  });
});
afterAll(async () => {
  await server?.close();
  await env?.close();
});

const get = (path: string, token = org.pat, init: RequestInit = {}) =>
  fetch(`${server.baseUrl}${path}`, { ...init, headers: { 'X-API-Key': token, ...(init.headers ?? {}) } });
const unneutralise = (cell: string) => (/^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell);

describe('CSV export', () => {
  it('streams the filtered list with formula injection neutralised and every cell round-tripping', async () => {
    const res = await get('/api/downloads/requests.csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="deletion-requests-.*\.csv"$/);
    const records = parseCsv(await res.text());
    const [header, ...rows] = records.map((r) => r.cells);
    expect(header?.slice(0, 5)).toEqual(['id', 'workspace', 'workspaceId', 'maskedIdentifier', 'status']);
    expect(header?.slice(-6)).toEqual([
      'integrations',
      'receivedAt',
      'receiptConfirmBy',
      'receiptConfirmedAt',
      'cancelReason',
      'cancelNote',
    ]);
    expect(rows.map((r) => r[0]).sort()).toEqual([...ids].sort());
    // Each request's time of receipt (its creation here); no confirmation of receipt is due under GDPR.
    for (const row of rows) expect(row.slice(-5)).toEqual([row[header!.indexOf('createdAt')], '', '', '', '']);
    const workspaces = rows.map((r) => r[1]!);
    for (const cell of [...workspaces, ...rows.map((r) => r[3]!)]) expect(cell).not.toMatch(/^[=+\-@]/);
    expect(workspaces).toContain(`'=cmd|' /C calc'!A0`);
    expect(workspaces.map(unneutralise).sort()).toEqual([...hostile].sort());
    // Identifiers are masked as on screen; the full ones never leave in bulk.
    expect(rows.map((r) => unneutralise(r[3]!)).sort()).toEqual(hostile.map(maskIdentifier).sort());
    expect(rows.map((r) => r[3]).join()).not.toContain('calc');
  });

  it('pages through the database: every row once, in the list order, whatever the page size', async () => {
    const lines: string[] = [];
    for await (const chunk of exportRequestsCsv(
      env.deps.prisma,
      env.deps.keyring,
      org.actor,
      { filter: {}, sort: 'created' },
      2,
    ))
      lines.push(chunk);
    const rows = parseCsv(lines.join('')).slice(1);
    expect(rows.map((r) => r.cells[0])).toEqual([...ids].reverse());
  });

  it('applies the list filters; an identifier filter only in a POSTed body, never in the URL', async () => {
    const none = parseCsv(await (await get('/api/downloads/requests.csv?statuses=SUCCESS')).text());
    expect(none).toHaveLength(1);
    const inUrl = await get(`/api/downloads/requests.csv?identifier=${encodeURIComponent(hostile[5]!)}`);
    expect(inUrl.status).toBe(400);
    const body = await inUrl.json();
    expect(body.code).toBe('BAD_REQUEST');
    expect(JSON.stringify(body)).not.toContain(hostile[5]);
    const posted = await get('/api/downloads/requests.csv', org.pat, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ filter: { identifier: hostile[5] } }),
    });
    const rows = parseCsv(await posted.text()).slice(1);
    expect(rows.map((r) => r.cells[0])).toEqual([ids[5]]);
    expect((await get('/api/downloads/requests.csv?due=someday')).status).toBe(400);
    // Empty parameters, as the README's example and a form leave them, are no filter.
    const blank = await get(
      '/api/downloads/requests.csv?workspaceId=&statuses=&createdFrom=&createdTo=&createdByUserId=&due=&sort=',
    );
    expect(blank.status).toBe(200);
    expect(parseCsv(await blank.text()).slice(1)).toHaveLength(ids.length);
  });

  it("exports one request's whole audit trail; other organizations, missing scopes and anonymous callers get nothing", async () => {
    const res = await get(`/api/downloads/requests/${ids[0]}/audit-trail.csv`);
    expect(res.status).toBe(200);
    const [header, ...rows] = parseCsv(await res.text()).map((r) => r.cells);
    expect(header).toEqual([
      'id',
      'createdAt',
      'integrationRequestId',
      'integration',
      'actorType',
      'actor',
      'action',
      'outcome',
      'summary',
      'details',
    ]);
    const stored = await env.deps.prisma.auditLog.count({ where: { deletionRequestId: ids[0] } });
    expect(rows).toHaveLength(stored);
    expect(rows[0]?.[6]).toBe('request.created');
    expect((await get(`/api/downloads/requests/${ids[0]}/audit-trail.csv`, other.pat)).status).toBe(404);
    expect((await fetch(`${server.baseUrl}/api/downloads/requests/${ids[0]}/audit-trail.csv`)).status).toBe(401);
    const checker = await createPersonalAccessToken(env.deps.prisma, org.actor, {
      name: 'checks only',
      scopes: ['erasure-checks:read'],
    });
    const forbidden = await get(`/api/downloads/requests/${ids[0]}/audit-trail.csv`, checker.token);
    expect(forbidden.status).toBe(403);
    expect((await forbidden.json()).message).toContain('requests:read');
    // The other organization's export holds only its own request.
    const theirs = parseCsv(await (await get('/api/downloads/requests.csv', other.pat)).text());
    expect(theirs).toHaveLength(2);
  });
});
