import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = import.meta.dirname;
// `npm run dev` starts the API on DDS_API_PORT and Vite in front of it with hot reload.
const apiTarget = `http://127.0.0.1:${process.env.DDS_API_PORT ?? '3000'}`;
// Host is kept (no changeOrigin): the API's same-origin check compares Origin with Host.
const proxy = { target: apiTarget, changeOrigin: false };

export default defineConfig({
  root,
  plugins: [react()],
  resolve: { alias: { '@shared': path.resolve(root, '../shared/src') } },
  build: {
    outDir: path.resolve(root, 'dist'),
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 400,
  },
  server: {
    port: Number(process.env.VITE_PORT ?? '5173'),
    strictPort: true,
    proxy: { '/trpc': proxy, '/api': proxy, '/healthz': proxy, '/readyz': proxy },
  },
});
