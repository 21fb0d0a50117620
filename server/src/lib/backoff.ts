/** Capped exponential backoff with jitter (between half and all of the step), in ms. */
export function retryDelayMs(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  const step = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(step / 2 + (random() * step) / 2);
}

/** The wait before the next status check of an async destination grows with the job's age. */
export function pollDelayMs(ageMs: number, intervalMs: number, maxMs: number): number {
  return Math.min(maxMs, Math.max(intervalMs, Math.round(ageMs / 10)));
}
