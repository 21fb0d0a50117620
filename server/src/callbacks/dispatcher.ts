import type pg from 'pg';
import type { Db } from '../db/client';
import { retryDelayMs } from '../lib/backoff';
import { pgQuery } from '../db/query';
import { QueueRunner } from '../queue/runner';
import { CHANNELS } from '../queue/wake-up';
import {
  createHttpClient,
  destinationMessage,
  isSuccessStatus,
  parseRetryAfter,
  truncate,
} from '../integrations/runtime/http-client';
import { PermanentError } from '../integrations/types';
import type { Keyring } from '../lib/crypto';
import type { Logger } from '../lib/logger';
import { assertUrlAllowed, guardedLookup, type OutboundPolicy } from '../lib/ssrf';
import { signingSecrets } from './endpoints';
import { callbackHeaders } from '../lib/webhook-signing';
import {
  claimDueDeliveries,
  extendDeliveryLeases,
  releaseDeliveries,
  settleDelivery,
  type ClaimedDelivery,
  type DeliveryOutcome,
} from './store/queue';

export interface DispatcherDeps {
  prisma: Db;
  pool: pg.Pool;
  keyring: Keyring;
  log: Logger;
  policy: OutboundPolicy;
}

export interface DispatcherOptions {
  concurrency: number;
  pollIntervalMs: number;
  leaseMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  timeoutMs: number;
}

/**
 * Sends status callbacks. Every delivery row is its own queue entry, run by the queue runner
 * (`queue/runner.ts`: leases, LISTEN, heartbeat, stop) in any number of worker processes; the
 * outcome is written only while the lease is held. A dispatcher killed mid-call lets its
 * lease expire; the row is then sent again by another (or the restarted) one, with the same
 * `webhook-id` and body: at least once, never under two ids.
 */
export class CallbackDispatcher {
  private readonly runner: QueueRunner<ClaimedDelivery>;

  constructor(
    private readonly deps: DispatcherDeps,
    private readonly options: DispatcherOptions,
  ) {
    const query = pgQuery(deps.pool);
    this.runner = new QueueRunner(
      deps.pool,
      deps.log,
      {
        name: 'callback dispatcher',
        work: 'callback deliveries',
        channel: CHANNELS.callbacks,
        claim: async (owner, limit, leaseMs) => {
          const items = await claimDueDeliveries(query, owner, limit, leaseMs);
          return { items, examined: items.length };
        },
        extend: (owner, ids, leaseMs) => extendDeliveryLeases(query, owner, ids, leaseMs),
        handBack: (owner, ids) => releaseDeliveries(query, owner, ids),
        run: async (delivery, owner) => {
          await this.deliver(delivery, owner);
          // A slot is free: deliveries may be waiting for it.
          return true;
        },
      },
      options,
    );
  }

  get id(): string {
    return this.runner.id;
  }

  start(): Promise<void> {
    return this.runner.start();
  }

  /** Stops claiming; in-flight calls get `graceMs`, then their leases are handed back. */
  stop(graceMs: number): Promise<void> {
    return this.runner.stop(graceMs);
  }

  /** Looks for due deliveries now (after an event was recorded in this process, say). */
  kick(): void {
    this.runner.kick();
  }

  private async deliver(delivery: ClaimedDelivery, owner: string): Promise<void> {
    const outcome = await this.attempt(delivery);
    try {
      const kept = await settleDelivery(pgQuery(this.deps.pool), owner, delivery.id, outcome);
      if (!kept)
        this.deps.log.warn(
          { deliveryId: delivery.id },
          'callback delivery lease was lost before its outcome was written',
        );
    } catch (error) {
      // The lease expires and the delivery is sent again, with the same id.
      this.deps.log.error({ err: error, deliveryId: delivery.id }, 'could not record a callback delivery outcome');
    }
  }

  private async attempt(delivery: ClaimedDelivery): Promise<DeliveryOutcome> {
    if (!delivery.enabled && delivery.eventType !== 'callback.test')
      return { kind: 'failed', statusCode: null, error: 'The endpoint is disabled' };
    const retryOrFail = (statusCode: number | null, error: string, retryAfterMs?: number): DeliveryOutcome =>
      delivery.attempts >= this.options.maxAttempts
        ? { kind: 'failed', statusCode, error: `${error} (gave up after ${delivery.attempts} attempts)` }
        : {
            kind: 'retry',
            statusCode,
            error,
            // A receiver's Retry-After is honoured up to the backoff's cap (CALLBACK_RETRY_MAX_MS).
            delayMs: Math.min(
              this.options.retryMaxMs,
              Math.max(
                retryAfterMs ?? 0,
                retryDelayMs(delivery.attempts, this.options.retryBaseMs, this.options.retryMaxMs),
              ),
            ),
          };
    try {
      const secrets = await signingSecrets(this.deps, delivery);
      const client = createHttpClient({
        trail: [],
        secrets,
        lookup: guardedLookup(this.deps.policy),
        checkUrl: async (url) => void (await assertUrlAllowed(url, this.deps.policy)),
        defaultTimeoutMs: this.options.timeoutMs,
      });
      const response = await client.request({
        method: 'POST',
        url: delivery.url,
        headers: callbackHeaders(secrets, delivery.id, delivery.body),
        body: delivery.body,
      });
      if (isSuccessStatus(response.status)) return { kind: 'delivered', statusCode: response.status };
      return retryOrFail(
        response.status,
        destinationMessage(response),
        parseRetryAfter(response.headers['retry-after']),
      );
    } catch (error) {
      // The SSRF guard refused the address: retrying will not change that.
      if (error instanceof PermanentError)
        return { kind: 'failed', statusCode: null, error: truncate(error.message, 300) };
      return retryOrFail(null, truncate((error as Error).message, 300));
    }
  }
}
