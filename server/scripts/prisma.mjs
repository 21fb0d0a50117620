// Runs the Prisma CLI offline: migrations use the WASM schema engine through the pg
// adapter (prisma/prisma.config.ts), and the native-engine presence check is satisfied
// by a placeholder file that is never executed.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const placeholder = path.join(root, 'prisma/.engine-placeholder');

export function runPrisma(args, extraEnv = {}, capture = false) {
  const env = {
    ...process.env,
    CHECKPOINT_DISABLE: '1',
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
    PRISMA_QUERY_ENGINE_LIBRARY: process.env.PRISMA_QUERY_ENGINE_LIBRARY ?? placeholder,
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? placeholder,
    ...extraEnv,
  };
  const cli = path.join(root, 'node_modules/prisma/build/index.js');
  const result = spawnSync(process.execPath, [cli, ...args, '--config', path.join(root, 'prisma/prisma.config.ts')], {
    cwd: root,
    env,
    stdio: capture ? ['ignore', 'pipe', 'inherit'] : 'inherit',
    encoding: 'utf8',
  });
  return capture ? { status: result.status ?? 1, stdout: result.stdout } : (result.status ?? 1);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exit(runPrisma(process.argv.slice(2)));
}
