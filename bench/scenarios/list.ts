import pg from 'pg';
import { bulkLoadRequests } from '../lib/bulk-load';
import type { BenchCluster } from '../lib/database';
import { interleave, warmUp, type LoadResult, type LoadSpec } from '../lib/load';
import { startBaseline, startService } from '../lib/processes';
import type { Comparison } from '../lib/report';
import { seedOrganization } from '../lib/seed';
import type { BenchSettings } from '../settings';

const LIST_CONNECTIONS = 4;

async function cursorAt(url: string, where: string, values: unknown[], offset: number): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ createdAt: Date; id: string }>(
      `SELECT "createdAt", id FROM "DeletionRequest" WHERE ${where} ORDER BY "createdAt" DESC, id DESC OFFSET ${offset} LIMIT 1`,
      values,
    );
    const row = rows[0]!;
    return Buffer.from(`${row.createdAt.toISOString()}|${row.id}`).toString('base64url');
  } finally {
    await client.end();
  }
}

/**
 * The organization, workspace and user lists over `listRequests` requests, first page and
 * a page 90% of the way down, with and without integration requests, against hand-written SQL.
 */
export async function listScenario(cluster: BenchCluster, settings: BenchSettings): Promise<Comparison[]> {
  const url = await cluster.createDatabase('bench_list');
  const org = await seedOrganization(url, 4);
  await bulkLoadRequests(url, org, settings.listRequests);
  await org.close();
  const workspace = org.workspaces[0]!;
  const scopes = [
    {
      name: 'organization',
      service: '/api/public/deletion-requests/organization',
      baseline: '/list/organization',
      where: `"organizationId" = $1`,
      values: [org.organizationId],
      rows: settings.listRequests,
    },
    {
      name: 'workspace',
      service: `/api/public/deletion-requests/workspace/${workspace.id}`,
      baseline: `/list/workspace/${workspace.id}`,
      where: `"workspaceId" = $1`,
      values: [workspace.id],
      rows: settings.listRequests / 4,
    },
    {
      name: 'user',
      service: `/api/public/deletion-requests/user/${org.memberId}`,
      baseline: `/list/user/${org.memberId}`,
      where: `"createdByUserId" = $1`,
      values: [org.memberId],
      rows: settings.listRequests / 2,
    },
  ];
  const service = await startService(url, { ROLE: 'api' });
  const baseline = await startBaseline(url);
  const spec = (path: string): LoadSpec => ({
    path,
    headers: { 'x-api-key': org.pat },
    connections: LIST_CONNECTIONS,
    durationSeconds: settings.listSecondsPerRound,
  });
  const comparisons: Comparison[] = [];
  try {
    await warmUp(service, spec(scopes[0]!.service));
    await warmUp(baseline, spec(scopes[0]!.baseline));
    for (const scope of scopes) {
      const deep = await cursorAt(url, scope.where, scope.values, Math.floor(scope.rows * 0.9));
      const firstPages: Record<string, LoadResult> = {};
      for (const depth of ['first', 'deep'] as const) {
        for (const fetchIntegrationRequests of [true, false]) {
          const query = `?limit=100&fetchIntegrationRequests=${fetchIntegrationRequests}${depth === 'deep' ? `&cursor=${deep}` : ''}`;
          const [serviceResult, baselineResult] = await interleave(
            [
              { target: service, spec: spec(scope.service + query) },
              { target: baseline, spec: spec(scope.baseline + query) },
            ],
            settings.rounds,
          );
          const ratio = serviceResult.p99Ms / Math.max(baselineResult.p99Ms, 1);
          const key = String(fetchIntegrationRequests);
          if (depth === 'first') firstPages[key] = serviceResult;
          const depthNote =
            depth === 'deep'
              ? `; deep/first p99 ${(serviceResult.p99Ms / Math.max(firstPages[key]!.p99Ms, 1)).toFixed(2)}`
              : '';
          comparisons.push({
            scenario: 'list',
            case: `${scope.name}, ${depth} page (row ${depth === 'deep' ? Math.floor(scope.rows * 0.9) : 0}), ${fetchIntegrationRequests ? 'with' : 'without'} integration requests`,
            service: serviceResult,
            baseline: baselineResult,
            ratio,
            target: `p99 <= 3 x baseline${depthNote}`,
            met: ratio <= 3 && serviceResult.failures === 0,
          });
        }
      }
    }
    return comparisons;
  } finally {
    await service.stop();
    await baseline.stop();
  }
}
