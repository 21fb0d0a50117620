import type pg from 'pg';
import type { ServiceDeps } from '../../services/deps';

/** What the engine needs beyond the services: the raw pool for queue queries and the outbound policy. */
export interface EngineDeps extends ServiceDeps {
  pool: pg.Pool;
}
