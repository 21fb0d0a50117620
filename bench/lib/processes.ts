import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from '../../server/src/db/embedded';
import { BENCH_ENCRYPTION_KEY } from './seed';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface Child {
  process: ChildProcess;
  port: number;
  url: string;
  /** Peak resident set size so far (VmHWM), in MB. */
  peakRssMb(): number;
  /** CPU time (user and system) the process has used so far, in ms. */
  cpuMs(): number;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Node with tsx's loader in-process, so the pid is the server itself (its RSS is what we read). */
export function spawnTs(script: string, env: Record<string, string>, opts: { log?: boolean } = {}): ChildProcess {
  // BENCH_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=.tmp/prof") profiles the processes under load.
  const extra = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  return spawn(process.execPath, [...extra, '--import', 'tsx', script], {
    cwd: ROOT,
    env: { ...process.env, ...env, NODE_ENV: 'production' },
    stdio: ['ignore', opts.log ? 'inherit' : 'ignore', 'inherit'],
  });
}

export function peakRssMb(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return Math.round(kb / 1024);
  } catch {
    return 0;
  }
}

/** utime + stime from /proc/<pid>/stat (fields 14 and 15, in clock ticks of 10 ms). */
export function cpuMs(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

async function waitForHttp(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`process exited with code ${child.exitCode} before ${url} answered`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function wrap(child: ChildProcess, port: number): Child {
  return {
    process: child,
    port,
    url: `http://127.0.0.1:${port}`,
    peakRssMb: () => peakRssMb(child.pid),
    cpuMs: () => cpuMs(child.pid),
    stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
      return new Promise((resolve) => {
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        child.once('exit', (code) => {
          clearTimeout(timer);
          resolve(code);
        });
        child.kill(signal);
      });
    },
  };
}

/**
 * One process of the service (`server/src/main.ts`) on loopback. Rate limits are off (the
 * bench is one token hammering one address) and logging is at warn, as in most deployments
 * behind an access-logging proxy.
 */
export async function startService(databaseUrl: string, env: Record<string, string> = {}): Promise<Child> {
  const port = await freePort();
  const metricsPort = env.ROLE === 'worker' ? String(await freePort()) : undefined;
  const child = spawnTs('server/src/main.ts', {
    DATABASE_URL: databaseUrl,
    ENCRYPTION_KEY: BENCH_ENCRYPTION_KEY,
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'warn',
    API_RATE_LIMIT_PER_TOKEN: '0',
    API_RATE_LIMIT_PER_IP: '0',
    OUTBOUND_ALLOWLIST: '127.0.0.0/8',
    ...(metricsPort ? { METRICS_PORT: metricsPort } : {}),
    ...env,
  });
  const listening = Number(metricsPort ?? port);
  await waitForHttp(`http://127.0.0.1:${listening}/healthz`, child);
  return wrap(child, listening);
}

/** The hand-written baseline server (bench/baseline-server.ts). */
export async function startBaseline(databaseUrl: string): Promise<Child> {
  const port = await freePort();
  const child = spawnTs('bench/baseline-server.ts', {
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    ENCRYPTION_KEY: BENCH_ENCRYPTION_KEY,
  });
  await waitForHttp(`http://127.0.0.1:${port}/healthz`, child);
  return wrap(child, port);
}
