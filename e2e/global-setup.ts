import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startMailSink } from './support/mail-sink';

const root = path.resolve(import.meta.dirname, '..');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitForReady(
  baseUrl: string,
  child: ChildProcess,
  output: () => string,
  timeoutMs = 180_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`The app exited with code ${child.exitCode} before it was ready:\n${output()}`);
    try {
      const response = await fetch(`${baseUrl}/readyz`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`The app was not ready within ${timeoutMs / 1000} s:\n${output()}`);
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/**
 * Builds the dashboard and starts the real app (`tsx server/src/main.ts`) on a fresh
 * embedded database in a temp dir, the way `npm start` runs it. Tests get its URL.
 */
export default async function setup({ provide }: { provide: (key: string, value: string) => void }) {
  if (process.env.E2E_SKIP_BUILD !== '1') {
    // The runner sets NODE_ENV=test, which would give React's development build: test what ships.
    const build = spawnSync('npm', ['run', 'build:client'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, NODE_ENV: 'production' },
    });
    if (build.status !== 0) throw new Error(`npm run build:client failed:\n${build.stdout}\n${build.stderr}`);
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dds-e2e-'));
  // initdb runs as the unprivileged postgres user when we are root.
  fs.chmodSync(dataDir, 0o755);
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  let log = '';
  // The app's outgoing mail (manual task links, notifications) lands in a loopback SMTP server the suites read.
  const mailFile = path.join(dataDir, 'mail.jsonl');
  const mailSink = await startMailSink(mailFile);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: baseUrl,
    // Every request line, so the privacy check (e2e/ui/privacy.test.ts) has the whole log to search.
    LOG_LEVEL: 'info',
    // The audit-chain check waits for entries to be sealed: seal every second, not every 30 s.
    AUDIT_SEAL_INTERVAL_MS: '1000',
    // The suites' destinations (a webhook receiver, a customer database) are on loopback.
    OUTBOUND_ALLOWLIST: '127.0.0.0/8,localhost',
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(mailSink.port),
    SMTP_FROM: 'Deletion Service <no-reply@e2e.test>',
    // Asynchronous vendors' fakes finish their jobs in a fraction of a second: poll every second.
    ASYNC_POLL_INTERVAL_MS: '1000',
  };
  // Always the embedded database in the temp dir, never a developer's server.
  delete env.DATABASE_URL;
  const child = spawn(path.join(root, 'node_modules/.bin/tsx'), ['server/src/main.ts'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so teardown reaches tsx's child and never leaves it running.
    detached: true,
  });
  // The whole server log, also on disk: the privacy check greps it for every identifier used.
  const logFile = fs.createWriteStream(path.join(dataDir, 'server.log'));
  const keep = (chunk: Buffer) => {
    logFile.write(chunk);
    log = (log + chunk).slice(-200_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  try {
    await waitForReady(baseUrl, child, () => log);
  } catch (error) {
    signalGroup(child, 'SIGKILL');
    throw error;
  }
  provide('baseUrl', baseUrl);
  provide('dataDir', dataDir);
  provide('mailFile', mailFile);

  return async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      signalGroup(child, 'SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 8_000))]);
      if (child.exitCode === null) signalGroup(child, 'SIGKILL');
    }
    child.stdout?.destroy();
    child.stderr?.destroy();
    logFile.end();
    await mailSink.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    dataDir: string;
    mailFile: string;
  }
}
