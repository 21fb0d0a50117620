import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { precompress } from './build/precompress';

const root = import.meta.dirname;
// `npm run dev` starts the API on DDS_API_PORT and Vite in front of it with hot reload.
const apiTarget = `http://127.0.0.1:${process.env.DDS_API_PORT ?? '3000'}`;
// Host is kept (no changeOrigin): the API's same-origin check compares Origin with Host.
const proxy = { target: apiTarget, changeOrigin: false };

const reactRouterDist = path.resolve(root, '../node_modules/react-router/dist/production');
const reactRouterProduction = [
  { find: /^react-router$/, replacement: path.join(reactRouterDist, 'index.mjs') },
  { find: /^react-router\/dom$/, replacement: path.join(reactRouterDist, 'dom-export.mjs') },
];

export default defineConfig(({ command, isSsrBuild }) => ({
  root,
  plugins: isSsrBuild ? [react()] : [react(), precompress()],
  resolve: {
    alias: [
      { find: '@shared', replacement: path.resolve(root, '../shared/src') },
      // react-router's package exports name only its development build (dev checks and
      // warnings, a fifth bigger); builds take the production one it ships beside it.
      ...(command === 'build' ? reactRouterProduction : []),
    ],
  },
  build: isSsrBuild
    ? {
        // The server renders the Requests screen's first rows with this (server/src/http/requests-page.ts).
        outDir: path.resolve(root, 'dist-server'),
        emptyOutDir: true,
        target: 'node20',
        rollupOptions: { input: path.resolve(root, 'src/entry-server.tsx') },
      }
    : {
        outDir: path.resolve(root, 'dist'),
        emptyOutDir: true,
        target: 'es2022',
        chunkSizeWarningLimit: 400,
        // .vite/manifest.json: the server names the Requests screen's chunks in that page's HTML (server/src/http/requests-page.ts).
        manifest: true,
        rolldownOptions: {
          output: {
            codeSplitting: {
              // Every form's helpers come together: one request instead of three on each form screen.
              groups: [
                {
                  name: 'form',
                  includeDependenciesRecursively: false,
                  test: /client[\\/]src[\\/](lib[\\/](form|use-form-submit)\.ts|components[\\/]field\.tsx)$/,
                },
              ],
            },
          },
        },
      },
  server: {
    port: Number(process.env.VITE_PORT ?? '5173'),
    strictPort: true,
    proxy: { '/trpc': proxy, '/api': proxy, '/healthz': proxy, '/readyz': proxy },
  },
}));
