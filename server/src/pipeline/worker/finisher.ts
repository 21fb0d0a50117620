import type pg from 'pg';
import type { RequestStatus } from '@shared/statuses';
import { isDatabaseUnreachable } from '../../db/connections';
import { finishSteps, type FinishingStep } from '../store/finish';

/**
 * Group commit for one worker: outcomes that arrive while a batch is being written are
 * written together in the next transaction, so under load one commit records many steps,
 * and with a single step nothing waits. If a batch fails, its steps are written one by
 * one, so a step that cannot be written does not hold back the others.
 *
 * While the database is unreachable (a restart, a failover) a batch is written again and
 * again, for up to `retryForMs`: the outcome of a call already made is recorded as soon as
 * the database is back instead of being lost and the call repeated. If the lease was taken
 * over meanwhile, the write changes nothing (it is conditional on the lease) and the new
 * owner repeats the call with the same Idempotency-Key.
 */
export class StepFinisher {
  private queue: {
    step: FinishingStep;
    resolve: (status: RequestStatus | null) => void;
    reject: (error: unknown) => void;
  }[] = [];
  private flushing = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly workerId: string,
    private readonly maxBatch = 32,
    private readonly retryForMs = 5 * 60_000,
  ) {}

  private async write(steps: FinishingStep[]): Promise<(RequestStatus | null)[]> {
    const started = Date.now();
    for (let wait = 100; ; wait = Math.min(wait * 2, 2_000)) {
      try {
        return await finishSteps(this.pool, this.workerId, steps);
      } catch (error) {
        if (!isDatabaseUnreachable(error) || Date.now() - started + wait > this.retryForMs) throw error;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  readonly finish = (step: FinishingStep): Promise<RequestStatus | null> =>
    new Promise((resolve, reject) => {
      this.queue.push({ step, resolve, reject });
      if (!this.flushing) {
        this.flushing = true;
        // Steps that complete in the same turn of the event loop go into the same batch.
        setImmediate(() => void this.flush());
      }
    });

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      try {
        const results = await this.write(batch.map((b) => b.step));
        batch.forEach((b, i) => b.resolve(results[i]!));
      } catch (error) {
        if (batch.length === 1) batch[0]!.reject(error);
        else {
          for (const b of batch) {
            await this.write([b.step]).then(([status]) => b.resolve(status!), b.reject);
          }
        }
      }
    }
    this.flushing = false;
  }
}
