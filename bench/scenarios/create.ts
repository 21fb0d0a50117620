import type { BenchCluster } from '../lib/database';
import { interleave, warmUp, type LoadSpec } from '../lib/load';
import { startBaseline, startService } from '../lib/processes';
import type { Comparison } from '../lib/report';
import { addPostgresIntegration, addWebhookIntegration, prepareCustomerDatabase, seedOrganization } from '../lib/seed';
import type { BenchSettings } from '../settings';

/**
 * POST /api/public/deletion-requests into a workspace with 3 integrations, against the
 * baseline doing the same durable work on raw pg, and a single INSERT as the floor; and
 * against the service's own statements and caching on bare Fastify (the framework's cost).
 */
export async function createScenario(cluster: BenchCluster, settings: BenchSettings): Promise<Comparison[]> {
  const url = await cluster.createDatabase('bench_create');
  const customerUrl = await cluster.createDatabase('bench_create_customer', { migrated: false });
  await prepareCustomerDatabase(customerUrl, [], 10);
  const org = await seedOrganization(url, 1);
  const workspace = org.workspaces[0]!;
  // Destinations are never called here: this process runs no worker.
  await addWebhookIntegration(org, workspace.id, 'http://127.0.0.1:9/erase', 'CRM');
  await addWebhookIntegration(org, workspace.id, 'http://127.0.0.1:9/support', 'Support desk');
  await addPostgresIntegration(org, workspace.id, customerUrl);
  await org.close();

  const body = (n: number) => ({
    workspaceApiKey: workspace.apiKey,
    identifier: `create-${n}-${Date.now()}@customer.example`,
  });
  const spec = (path: string): LoadSpec => ({
    path,
    method: 'POST',
    headers: { 'x-api-key': org.pat },
    body,
    connections: settings.connections,
    durationSeconds: settings.secondsPerRound,
  });

  const steady = settings.smoke ? 0 : 10;
  const service = await startService(url, { ROLE: 'api' });
  const baseline = await startBaseline(url);
  try {
    await warmUp(service, spec('/api/public/deletion-requests'), steady);
    await warmUp(baseline, spec('/create'), steady);
    await warmUp(baseline, spec('/floor'), steady);
    await warmUp(baseline, spec('/create-lean'), steady);
    const [serviceResult, baselineResult, floor, lean] = await interleave(
      [
        { target: service, spec: spec('/api/public/deletion-requests') },
        { target: baseline, spec: spec('/create') },
        { target: baseline, spec: spec('/floor') },
        { target: baseline, spec: spec('/create-lean') },
      ],
      settings.rounds,
    );
    const ratio = serviceResult.requestsPerSecond / baselineResult.requestsPerSecond;
    const leanRatio = serviceResult.requestsPerSecond / lean.requestsPerSecond;
    return [
      {
        scenario: 'create',
        case: 'POST /api/public/deletion-requests (3 integrations)',
        service: serviceResult,
        baseline: baselineResult,
        floor,
        ratio,
        target: 'throughput >= 0.60 x baseline',
        met: ratio >= 0.6 && serviceResult.failures === 0,
      },
      // What the framework costs: the same statements and caching without tRPC, the OpenAPI adapter and zod.
      {
        scenario: 'create',
        case: "the service's own design on bare Fastify",
        service: serviceResult,
        baseline: lean,
        ratio: leanRatio,
        target: 'reported',
        met: serviceResult.failures === 0,
      },
    ];
  } finally {
    await service.stop();
    await baseline.stop();
  }
}
