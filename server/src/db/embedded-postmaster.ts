import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { connectClient } from './connections';
import { EmbeddedPostgresError, type EmbeddedLog, type RunAs } from './embedded-setup';

/**
 * One embedded PostgreSQL server process: started in its own session with a watchdog that
 * stops it if this process dies, started again when it exits under supervision, found again
 * (and adopted) when an earlier process left it running, and stopped with a fast shutdown.
 */
export class Postmaster {
  private child: ChildProcess | null = null;
  private adopted: number | null;
  private stopping = false;
  private supervising = false;
  private restartTimer: NodeJS.Timeout | null = null;
  private watchdog: ChildProcess | null = null;
  /** While supervising a server this process did not start (adopted), whether it is still there. */
  private adoptedCheck: NodeJS.Timeout | null = null;

  constructor(
    private readonly o: {
      native: string;
      dataDir: string;
      port: number;
      runAs: RunAs | null;
      detached: boolean;
      adoptedPid: number | null;
      log: EmbeddedLog;
      urlFor: (port: number, db?: string) => string;
    },
  ) {
    this.adopted = o.adoptedPid;
  }

  pid(): number | null {
    if (this.child && this.child.exitCode === null && this.child.signalCode === null) return this.child.pid ?? null;
    return readPostmasterPid(this.o.dataDir);
  }

  async start(): Promise<void> {
    removeStalePidFile(this.o.dataDir);
    const logFile = path.join(this.o.dataDir, 'postgres.log');
    const logFd = fs.openSync(logFile, 'a', 0o600);
    if (this.o.runAs) fs.fchownSync(logFd, this.o.runAs.uid, this.o.runAs.gid);
    const child = spawn(
      path.join(this.o.native, 'bin', 'postgres'),
      [
        '-D',
        this.o.dataDir,
        '-p',
        String(this.o.port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'max_connections=200',
      ],
      {
        ...(this.o.runAs ?? {}),
        detached: this.o.detached,
        stdio: ['ignore', logFd, logFd],
        env: { ...process.env, LC_MESSAGES: 'C' },
      },
    );
    fs.closeSync(logFd);
    this.child = child;
    this.adopted = null;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.once('exit', (code, signal) => this.exited(child, code, signal));
    // Ready when it answers; a server that exits first failed to start (its log says why).
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new EmbeddedPostgresError(
          `The embedded PostgreSQL exited at start: ${lastLine(logFile)} (log: ${logFile})`,
        );
      }
      if (await answers(this.o.urlFor(this.o.port, 'postgres'))) {
        this.watch(child.pid!);
        return;
      }
      if (Date.now() > deadline) {
        child.kill('SIGQUIT');
        await exited;
        throw new EmbeddedPostgresError(`The embedded PostgreSQL did not start within 60 s (log: ${logFile})`);
      }
      await Promise.race([exited, sleep(100)]);
    }
  }

  /**
   * Right after a postmaster was killed, its backends may hold its shared memory for a
   * moment and a new one refuses to start: try again for a few seconds.
   */
  async startPatiently(): Promise<void> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      try {
        return await this.start();
      } catch (error) {
        if (
          Date.now() > deadline ||
          !(error instanceof EmbeddedPostgresError) ||
          !/exited at start/.test(error.message)
        )
          throw error;
        await sleep(300);
      }
    }
  }

  /**
   * A detached server does not get the terminal's signals, nor dies with us: a small
   * process in its session reads a pipe from this one and, when the pipe closes because
   * this process is gone (even by SIGKILL), asks the postmaster for a fast shutdown.
   */
  watch(pid: number): void {
    if (!this.o.detached) return;
    this.watchdog?.kill('SIGKILL');
    const watchdog = spawn('/bin/sh', ['-c', 'read _; kill -INT "$1" 2>/dev/null', 'sh', String(pid)], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    watchdog.on('error', () => {});
    watchdog.stdin?.on('error', () => {});
    watchdog.unref();
    (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    this.watchdog = watchdog;
  }

  supervise(): void {
    this.supervising = true;
    this.checkAdopted();
  }

  /**
   * An adopted server is no child of ours, so no exit event says when it dies: under
   * supervision, look once a second and start it again when it is gone.
   */
  private checkAdopted(): void {
    if (this.adoptedCheck || !this.supervising) return;
    this.adoptedCheck = setInterval(() => {
      const pid = this.adopted;
      if (this.stopping || this.child || pid === null || processAlive(pid) || this.restartTimer) return;
      this.adopted = null;
      this.o.log('error', 'the embedded PostgreSQL exited unexpectedly; starting it again', { pid });
      this.restart(500);
    }, 1_000);
    this.adoptedCheck.unref();
  }

  private exited(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child) return;
    this.child = null;
    if (this.stopping || !this.supervising) return;
    this.o.log('error', 'the embedded PostgreSQL exited unexpectedly; starting it again', { code, signal });
    this.restart(500);
  }

  private restart(waitMs: number): void {
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (this.stopping) return;
      void (async () => {
        // Someone (an operator) may have started it again already: then it is ours to stop.
        const running = await findRunningServer(this.o.dataDir, this.o.urlFor);
        if (running) {
          this.adopted = running.pid;
          this.watch(running.pid);
          this.checkAdopted();
          this.o.log('info', 'the embedded PostgreSQL is running again', { pid: running.pid });
          return;
        }
        await this.start().then(
          () => this.o.log('info', 'the embedded PostgreSQL is running again', { pid: this.pid() }),
          (error: Error) => {
            this.o.log('error', 'could not start the embedded PostgreSQL again; retrying', { reason: error.message });
            this.restart(Math.min(waitMs * 2, 10_000));
          },
        );
      })();
    }, waitMs);
    this.restartTimer.unref();
  }

  /**
   * Fast shutdown (SIGINT: sessions are ended, the data is consistent), waiting for the
   * postmaster to be gone; whichever runs on our data directory is stopped, be it our child,
   * an adopted one, or one started again by someone else after an outage.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    if (this.adoptedCheck) clearInterval(this.adoptedCheck);
    this.watchdog?.kill('SIGKILL');
    const pid = this.pid() ?? this.adopted;
    if (pid === null || !processAlive(pid)) return;
    try {
      process.kill(pid, 'SIGINT');
    } catch {
      return;
    }
    const deadline = Date.now() + 30_000;
    while (processAlive(pid)) {
      if (Date.now() > deadline) {
        try {
          process.kill(pid, 'SIGQUIT');
        } catch {}
        break;
      }
      await sleep(50);
    }
  }
}

/** The postmaster running on `dataDir`, if one answers on the port its pid file names. */
export async function findRunningServer(
  dataDir: string,
  urlFor: (port: number, db?: string) => string,
): Promise<{ pid: number; port: number } | null> {
  const info = readPostmasterFile(dataDir);
  if (!info) return null;
  // A postmaster that is alive but not answering may be starting or shutting down: give it a moment.
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (!processAlive(info.pid)) return null;
    if (await answers(urlFor(info.port, 'postgres'))) return info;
    if (Date.now() > deadline) return null;
    await sleep(200);
  }
}

function readPostmasterFile(dataDir: string): { pid: number; port: number } | null {
  try {
    const lines = fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n');
    const pid = Number(lines[0]);
    const port = Number(lines[3]);
    return Number.isInteger(pid) && pid > 0 && Number.isInteger(port) && port > 0 ? { pid, port } : null;
  } catch {
    return null;
  }
}

function readPostmasterPid(dataDir: string): number | null {
  const info = readPostmasterFile(dataDir);
  return info && processAlive(info.pid) ? info.pid : null;
}

/** PostgreSQL refuses to start over a pid file whose pid exists, and a zombie's does: remove the file of a dead postmaster. */
function removeStalePidFile(dataDir: string): void {
  const info = readPostmasterFile(dataDir);
  if (info && !processAlive(info.pid)) fs.rmSync(path.join(dataDir, 'postmaster.pid'), { force: true });
}

/** Alive and not a zombie (a killed process stays one until its parent reaps it). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return true; // no /proc (macOS): kill(0) is all we know
  }
}

export async function answers(url: string): Promise<boolean> {
  try {
    const client = await connectClient({ connectionString: url, connectionTimeoutMillis: 2_000 });
    await client.query('SELECT 1');
    await client.end();
    return true;
  } catch {
    return false;
  }
}

function lastLine(file: string): string {
  try {
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    return lines[lines.length - 1] ?? '';
  } catch {
    return '';
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
