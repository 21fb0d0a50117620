/**
 * The one typed entry to the API for TypeScript clients (the dashboard, typed API clients):
 * types only, so importing it loads no server code.
 */
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from './routers/root';

export type { AppRouter };
export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;
