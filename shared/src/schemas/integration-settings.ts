import { z } from 'zod';

/** As many calls as a worker process may run at once (WORKER_CONCURRENCY's own limit). */
export const MAX_CONCURRENCY_LIMIT = 1_024;

/** Most calls to one destination in flight at once, across all worker processes. */
export const maxConcurrencySchema = z
  .number()
  .int('Must be a whole number')
  .min(1, 'At least 1')
  .max(MAX_CONCURRENCY_LIMIT, `At most ${MAX_CONCURRENCY_LIMIT.toLocaleString('en-US')}`);

/** The highest rate an integration may be given (a vendor allowing more needs no limit of its own). */
export const MAX_REQUESTS_PER_SECOND_LIMIT = 10_000;

/** Most calls to one destination per second, across all worker processes (fractions allowed: 0.5 is one call every 2 s). */
export const maxRequestsPerSecondSchema = z
  .number()
  .finite('Must be a number')
  .min(0.01, 'At least 0.01')
  .max(MAX_REQUESTS_PER_SECOND_LIMIT, `At most ${MAX_REQUESTS_PER_SECOND_LIMIT.toLocaleString('en-US')}`);
