import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerFor, createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../test/harness';
import { watchQueueDepth } from './queue-depth';
import { Counter, Histogram, Registry } from './registry';

const TOKEN = 'metrics-token-for-tests-0123';
const AUTH = { authorization: `Bearer ${TOKEN}` };
let env: TestEnv;
let server: Awaited<ReturnType<typeof startTestServer>>;

beforeAll(async () => {
  env = await createTestEnv({ OUTBOUND_ALLOWLIST: '127.0.0.0/8', METRICS_TOKEN: TOKEN });
  server = await startTestServer(env.deps);
});
afterAll(async () => {
  await server?.close();
  await env?.close();
});

describe('/metrics', () => {
  it('reports requests by route pattern (ids folded) and status, with latency histograms', async () => {
    const org = await seedOrganization(env.deps);
    await fetch(`${server.baseUrl}/healthz`);
    const list = await fetch(`${server.baseUrl}/api/public/deletion-requests/workspace/${org.workspace.id}`, {
      headers: { 'x-api-key': org.pat },
    });
    expect(list.status).toBe(200);
    const res = await fetch(`${server.baseUrl}/metrics`, { headers: AUTH });
    expect(res.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    const text = await res.text();
    expect(text).toMatch(/dds_http_requests_total\{method="GET",route="\/healthz",status="200"\} [1-9]/);
    expect(text).toMatch(
      /dds_http_requests_total\{method="GET",route="\/api\/public\/deletion-requests\/workspace\/\{workspaceId\}",status="200"\} 1/,
    );
    expect(text).toContain('dds_http_request_duration_seconds_bucket{method="GET",route="/healthz",le="+Inf"}');
    expect(text).not.toContain(org.workspace.id);
  });

  it('is not served on the API port without its bearer token, nor at all without METRICS_TOKEN', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong-token-wrong-token' }, { authorization: TOKEN }] as Record<
      string,
      string
    >[]) {
      const res = await fetch(`${server.baseUrl}/metrics`, { headers });
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain('dds_');
    }
    const plain = await createTestEnv();
    const open = await startTestServer(plain.deps);
    try {
      // No such route: the dashboard's deep-link fallback (HTML), never the metrics.
      const res = await fetch(`${open.baseUrl}/metrics`);
      expect(res.headers.get('content-type')).not.toContain('version=0.0.4');
      expect(await res.text()).not.toContain('dds_');
    } finally {
      await open.close();
      await plain.close();
    }
  });

  it('labels every unmatched path with one value, never the raw path', async () => {
    const probes = [
      '/no/such/page-jane@example.com',
      '/api/public/nope/jane@example.com',
      '/trpc/nope.jane@example.com',
      '/requests/jane@example.com',
    ];
    for (const path of probes) await fetch(`${server.baseUrl}${path}`);
    await fetch(`${server.baseUrl}/trpc/workspaces.list`);
    const text = await (await fetch(`${server.baseUrl}/metrics`, { headers: AUTH })).text();
    expect(text).not.toContain('jane');
    expect(text).toMatch(/dds_http_requests_total\{method="GET",route="unmatched",status="\d+"\} [1-9]/);
    expect(text).toMatch(/route="\/trpc\/workspaces.list"/);
  });

  it('reads queue depth by integration type and state from the database', async () => {
    const org = await seedOrganization(env.deps);
    const { caller } = callerFor(env.deps, { pat: org.pat });
    await caller.integrations.create({
      workspaceId: org.workspace.id,
      name: 'CRM',
      type: 'WEBHOOK',
      config: { initiate: { url: 'http://127.0.0.1:9/erase' } },
    });
    await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'queued@example.com',
    });
    const registry = new Registry();
    const stop = watchQueueDepth(registry, env.db.pool);
    const text = await registry.render();
    expect(text).toContain('dds_queue_depth{type="WEBHOOK",state="due"} 1');
    expect(text).toContain('dds_queue_depth{type="WEBHOOK",state="leased"} 0');
    expect(text).toMatch(/dds_queue_oldest_due_seconds\{type="WEBHOOK"\} \d/);
    stop();
    expect(await registry.render()).not.toContain('dds_queue_depth');
  });

  it('renders the text exposition format, escaping label values', async () => {
    const registry = new Registry();
    const counter = registry.register(new Counter('c_total', 'A counter.', ['path'] as const));
    counter.inc({ path: 'a"b\\c' }, 2);
    const histogram = registry.register(new Histogram('h_seconds', 'A histogram.', ['k'] as const, [0.1, 1]));
    histogram.observe({ k: 'x' }, 0.5);
    expect(await registry.render()).toBe(
      [
        '# HELP c_total A counter.',
        '# TYPE c_total counter',
        'c_total{path="a\\"b\\\\c"} 2',
        '# HELP h_seconds A histogram.',
        '# TYPE h_seconds histogram',
        'h_seconds_bucket{k="x",le="0.1"} 0',
        'h_seconds_bucket{k="x",le="1"} 1',
        'h_seconds_bucket{k="x",le="+Inf"} 1',
        'h_seconds_sum{k="x"} 0.5',
        'h_seconds_count{k="x"} 1',
        '',
      ].join('\n'),
    );
  });
});
