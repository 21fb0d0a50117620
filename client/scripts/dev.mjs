// `npm run dev`: the API under `tsx watch` and the Vite dev server (hot reload) in front of it.
// Open http://localhost:5173; /trpc and /api are proxied to the API on DDS_API_PORT (3000).
import { spawn } from 'node:child_process';

const apiPort = process.env.DDS_API_PORT ?? process.env.PORT ?? '3000';
const vitePort = process.env.VITE_PORT ?? '5173';
const env = {
  NODE_ENV: 'development',
  ...process.env,
  PORT: apiPort,
  DDS_API_PORT: apiPort,
  VITE_PORT: vitePort,
  PUBLIC_URL: process.env.PUBLIC_URL ?? `http://localhost:${vitePort}`,
};

const children = [
  spawn('npx', ['tsx', 'watch', 'server/src/main.ts'], { stdio: 'inherit', env }),
  spawn('npx', ['vite', '--config', 'client/vite.config.ts'], { stdio: 'inherit', env }),
];

let exiting = false;
function stopAll(code) {
  if (exiting) return;
  exiting = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 500).unref();
}
for (const child of children) child.on('exit', (code) => stopAll(code ?? 0));
process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));
