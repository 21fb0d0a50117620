import { z } from 'zod';

/** As many calls as a worker process may run at once (WORKER_CONCURRENCY's own limit). */
export const MAX_CONCURRENCY_LIMIT = 1_024;

/** Most calls to one destination in flight at once, across all worker processes. */
export const maxConcurrencySchema = z
  .number()
  .int('Must be a whole number')
  .min(1, 'At least 1')
  .max(MAX_CONCURRENCY_LIMIT, `At most ${MAX_CONCURRENCY_LIMIT.toLocaleString('en-US')}`);
