import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectClient } from './connections';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded';

const made: string[] = [];
const started: EmbeddedDatabase[] = [];
afterAll(async () => {
  for (const db of started.reverse()) await db.stop().catch(() => {});
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

async function answers(url: string): Promise<boolean> {
  try {
    const client = await connectClient(url);
    await client.query('SELECT 1');
    await client.end();
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('the embedded PostgreSQL under supervision', () => {
  it('starts again a server it adopted (left running by a process that was killed) when that server dies', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dds-supervise-'));
    made.push(dir);
    fs.chmodSync(dir, 0o755);
    const dataDir = path.join(dir, 'data');
    // An earlier process started it and was killed: its owner file names a process that is gone.
    const earlier = await startEmbeddedPostgres({ dataDir, database: 'postgres', detached: true });
    started.push(earlier);
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    fs.writeFileSync(`${dataDir}.owner`, `${gone}\n`);

    const adopted = await startEmbeddedPostgres({ dataDir, database: 'postgres', detached: true, supervise: true });
    started.push(adopted);
    const first = adopted.pid();
    expect(first).toBe(earlier.pid());
    process.kill(first!, 'SIGKILL');
    await waitUntil('the server to be gone', async () => !(await answers(adopted.url)), 10_000);
    await waitUntil('the server to answer again', () => answers(adopted.url), 20_000);
    expect(adopted.pid()).not.toBe(first);
  }, 60_000);
});
