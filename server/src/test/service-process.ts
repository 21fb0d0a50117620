import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../db/embedded';

const ROOT = path.resolve(import.meta.dirname, '../../..');

export interface ServiceProcess {
  child: ChildProcess;
  role: string;
  /** The API port (api/all) or the metrics port (worker). */
  url: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal: NodeJS.Signals): void;
  /** Signals the process's whole group, as a terminal's Ctrl-C does (only for `detached` processes, which lead their group). */
  killGroup(signal: NodeJS.Signals): void;
  /** The last lines the process wrote to stderr. */
  stderr(): string;
  /** Sum of a counter's samples on /metrics, e.g. dds_integration_outcomes_total. */
  counter(name: string): Promise<number>;
}

/**
 * Starts `server/src/main.ts` as its own process (as `npm run start:api` / `start:worker`
 * would) on loopback against `databaseUrl` (null: the embedded PostgreSQL in `DATA_DIR`),
 * and waits until it answers /healthz. `detached`: the process leads its own process group,
 * as `npm start` in a terminal does.
 */
/** The API port serves /metrics only with this bearer token (METRICS_TOKEN); the metrics port needs none. */
export const TEST_METRICS_TOKEN = 'test-metrics-token-0123456789';
export const METRICS_AUTH = { authorization: `Bearer ${TEST_METRICS_TOKEN}` };

export async function startServiceProcess(
  databaseUrl: string | null,
  env: Record<string, string>,
  options: { detached?: boolean } = {},
): Promise<ServiceProcess> {
  const role = env.ROLE ?? 'all';
  const port = await freePort();
  const metricsPort = role === 'worker' ? await freePort() : undefined;
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
    cwd: ROOT,
    detached: options.detached ?? false,
    env: {
      ...withoutDatabaseUrl(process.env),
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'warn',
      OUTBOUND_ALLOWLIST: '127.0.0.0/8,localhost',
      API_RATE_LIMIT_PER_TOKEN: '0',
      API_RATE_LIMIT_PER_IP: '0',
      WORKER_POLL_MS: '100',
      ...(metricsPort ? { METRICS_PORT: String(metricsPort) } : { METRICS_TOKEN: TEST_METRICS_TOKEN }),
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = `http://127.0.0.1:${metricsPort ?? port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${role} process exited with ${child.exitCode}: ${stderr}`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${role} process did not become healthy: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    role,
    url,
    exited,
    kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
    killGroup(signal) {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // the group is gone already
      }
    },
    stderr: () => stderr,
    async counter(name) {
      const text = await (await fetch(`${url}/metrics`, { headers: METRICS_AUTH })).text();
      return text
        .split('\n')
        .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
        .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
    },
  };
}

function withoutDatabaseUrl(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { DATABASE_URL: _ignored, ...rest } = env;
  return rest;
}

/** SIGTERM, then SIGKILL after `ms`: nothing is left running after a test. */
export async function stopServiceProcess(service: ServiceProcess, ms = 15_000): Promise<void> {
  if (service.child.exitCode !== null || service.child.signalCode !== null) return;
  service.kill('SIGTERM');
  const timer = setTimeout(() => service.kill('SIGKILL'), ms);
  await service.exited;
  clearTimeout(timer);
}
