import type pg from 'pg';
import { prepared, type Tx } from '../db/client';

/** One SQL round trip: the engine's hot statements run the same on a pg client or a Prisma transaction. */
export type Query = <R = Record<string, unknown>>(text: string, values?: unknown[]) => Promise<R[]>;

export const pgQuery =
  (client: pg.PoolClient | pg.Pool): Query =>
  async <R>(text: string, values: unknown[] = []) =>
    (await client.query(prepared(text, values))).rows as R[];

export const prismaQuery =
  (tx: Tx): Query =>
  <R>(text: string, values: unknown[] = []) =>
    tx.$queryRawUnsafe<R[]>(text, ...values);

/**
 * Timestamps are stored as UTC without a time zone (as Prisma writes them): compare and
 * write them in UTC whatever the database session's time zone is.
 */
export const NOW_UTC = `(now() AT TIME ZONE 'UTC')`;
export const utc = (param: string) => `(${param}::timestamptz AT TIME ZONE 'UTC')`;
export const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

export interface AuditRow {
  organizationId: string;
  deletionRequestId: string;
  integrationRequestId?: string | null;
  action: string;
  outcome?: string | null;
  summary: string;
  details?: unknown;
}

export const AUDIT_COLUMNS = `"organizationId", "deletionRequestId", "integrationRequestId", "actorType", "actorId", action, outcome, summary, details, "createdAt"`;

/** `VALUES (...)` rows of system audit entries, parameters numbered after `values`' current length. */
export function auditValues(rows: AuditRow[], values: unknown[]): string {
  const tuples = rows.map((row) => {
    const base = values.length;
    values.push(row.organizationId, row.deletionRequestId, row.integrationRequestId ?? null, row.action, row.outcome ?? null, row.summary, row.details === undefined ? null : JSON.stringify(row.details));
    return `($${base + 1}, $${base + 2}, $${base + 3}, 'system', NULL::text, $${base + 4}, $${base + 5}, $${base + 6}, $${base + 7}::jsonb, ${NOW_UTC})`;
  });
  return `VALUES ${tuples.join(', ')}`;
}
