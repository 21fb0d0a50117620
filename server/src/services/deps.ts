import type { Config } from '../config';
import type { Db } from '../db/client';
import type { Keyring } from '../lib/crypto';
import type { Logger } from '../lib/logger';
import type { OutboundPolicy } from '../lib/ssrf';

/** What every service needs from the process: made once at start, handed to routers through the context and to the workers. */
export interface ServiceDeps {
  prisma: Db;
  keyring: Keyring;
  config: Config;
  log: Logger;
  /** Where outbound calls (webhooks, vendors, customer databases) may go. */
  policy: OutboundPolicy;
}
