import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Db } from '../db/client';
import { retryDelayMs } from '../lib/backoff';
import { pgQuery } from '../db/query';
import { connectClient, isDatabaseUnreachable } from '../db/connections';
import { CALLBACK_CHANNEL } from './wake-up';
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
 * Sends status callbacks. Every delivery row is its own queue entry: dispatchers in any
 * number of worker processes lease due rows with FOR UPDATE SKIP LOCKED, renew the lease
 * while a call runs, and write the outcome only while they hold it. A dispatcher killed
 * mid-call lets its lease expire; the row is then sent again by another (or the restarted)
 * one, with the same `webhook-id` and body: at least once, never under two ids.
 */
export class CallbackDispatcher {
  readonly id = `${hostname()}:${process.pid}:cb:${randomBytes(3).toString('hex')}`;
  private running = false;
  private readonly inFlight = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  /** A wake-up that arrived while a tick ran: look again right after it. */
  private kicked = false;
  /** The connection that LISTENs for recorded events (null: not listening, polling covers it). */
  private listener: pg.Client | null = null;
  private listenRetryAt = 0;

  constructor(
    private readonly deps: DispatcherDeps,
    private readonly options: DispatcherOptions,
  ) {}

  start(): void {
    this.running = true;
    this.heartbeat = setInterval(() => void this.extendLeases(), Math.max(250, this.options.leaseMs / 3));
    this.heartbeat.unref();
    this.schedule(0);
    this.deps.log.info({ dispatcherId: this.id }, 'callback dispatcher started');
  }

  /** Stops claiming; in-flight calls get `graceMs`, then their leases are handed back. */
  async stop(graceMs: number): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    await this.ticking;
    const all = Promise.allSettled([...this.inFlight.values()]);
    await Promise.race([all, new Promise((resolve) => setTimeout(resolve, graceMs))]);
    if (this.heartbeat) clearInterval(this.heartbeat);
    await releaseDeliveries(pgQuery(this.deps.pool), this.id, [...this.inFlight.keys()]).catch(() => {});
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => {});
  }

  /** Looks for due deliveries now (after an event was recorded in this process, say). */
  kick(): void {
    if (!this.running) return;
    if (this.ticking) this.kicked = true;
    else this.schedule(0);
  }

  /**
   * LISTENs for `wakeCallbackDispatchers` (events recorded, test events, resends) so a
   * delivery goes out at once rather than at the next poll. A lost connection is retried
   * from the loop; meanwhile the poll finds every due delivery.
   */
  private async listen(): Promise<void> {
    if (Date.now() < this.listenRetryAt) return;
    const options = (this.deps.pool as unknown as { options: pg.ClientConfig }).options;
    let client: pg.Client | null = null;
    try {
      client = await connectClient(options, () => {
        if (this.listener === client) this.listener = null;
        this.listenRetryAt = Date.now() + 1_000;
        this.kick();
      });
      client.on('notification', () => this.kick());
      await client.query(`LISTEN ${CALLBACK_CHANNEL}`);
      if (!this.running) throw new Error('stopped');
      this.listener = client;
    } catch (error) {
      this.listenRetryAt = Date.now() + 5_000;
      if (this.running && !isDatabaseUnreachable(error))
        this.deps.log.warn({ err: error }, 'could not LISTEN for callback events; polling only');
      await client?.end().catch(() => {});
    }
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.ticking = this.tick().finally(() => {
        this.ticking = null;
        if (this.kicked) {
          this.kicked = false;
          this.schedule(0);
        }
      });
    }, ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (!this.listener) await this.listen();
    let claimed: ClaimedDelivery[] = [];
    try {
      const free = this.options.concurrency - this.inFlight.size;
      if (free > 0) claimed = await claimDueDeliveries(pgQuery(this.deps.pool), this.id, free, this.options.leaseMs);
    } catch (error) {
      this.deps.log.warn({ err: error }, 'could not claim callback deliveries; trying again');
    }
    for (const delivery of claimed) {
      const run = this.deliver(delivery).finally(() => {
        this.inFlight.delete(delivery.id);
        this.kick();
      });
      this.inFlight.set(delivery.id, run);
    }
    // A full batch may mean more are due: look again at once; otherwise at the poll interval.
    this.schedule(
      claimed.length > 0 && this.inFlight.size < this.options.concurrency ? 0 : this.options.pollIntervalMs,
    );
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    const outcome = await this.attempt(delivery);
    try {
      const kept = await settleDelivery(pgQuery(this.deps.pool), this.id, delivery.id, outcome);
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

  private async extendLeases(): Promise<void> {
    await extendDeliveryLeases(pgQuery(this.deps.pool), this.id, [...this.inFlight.keys()], this.options.leaseMs).catch(
      () => {},
    );
  }
}
