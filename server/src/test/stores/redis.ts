import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from 'redis';
import { freePort, waitUntil } from './free-port';

/** A real Redis (Debian's `redis-server`) on a free loopback port, with a password and no persistence (a one-node cluster with `cluster`). */
export async function startRedis(options: { cluster?: boolean } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dds-test-redis-'));
  const port = await freePort();
  const password = 'redis-pass-1';
  const server = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--requirepass',
      password,
      ...(options.cluster ? ['--cluster-enabled', 'yes', '--cluster-config-file', path.join(dir, 'nodes.conf')] : []),
    ],
    {
      stdio: ['ignore', 'ignore', 'ignore'],
    },
  );
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  const client = createClient({ socket: { host: '127.0.0.1', port, reconnectStrategy: false }, password });
  client.on('error', () => {});
  await waitUntil(
    async () => {
      if (server.exitCode !== null) throw new Error('redis-server exited');
      if (!client.isOpen) await client.connect();
    },
    20_000,
    'Redis',
  );
  return {
    port,
    /** The test's own client, for seeding and checking. */
    client,
    credentials: { host: '127.0.0.1', port, password },
    async stop() {
      client.destroy();
      server.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      if (server.exitCode === null) server.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
