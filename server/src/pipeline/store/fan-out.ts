import type { IntegrationType, RequestStatus } from '@shared/statuses';
import { hotQuery, type DbOrTx } from '../../db/client';
import { eventBody, insertDeliveries, integrationRequestJson, isoAt, requestJson } from '../../callbacks/store/events';

/** One integration request to be written: a snapshot of its integration, due at once. */
export interface NewIntegrationRequest {
  id: string;
  integrationId: string;
  integrationName: string;
  integrationType: IntegrationType;
  configSnapshot: unknown;
  accountId: string | null;
  /** The identifier type it consumes (null: the primary identifier). */
  consumesType: string | null;
}

/** One identifier of the request's subject to be written (see RequestIdentifier). */
export interface NewRequestIdentifier {
  id: string;
  type: string | null;
  value: string;
  valueHmac: string;
  matchHmac: string;
  primary: boolean;
  source: string;
}

/** A deletion request to be written with its fan-out and its first audit entry. */
export interface NewDeletionRequest {
  id: string;
  organizationId: string;
  workspaceId: string;
  identifier: string;
  identifierHmac: string;
  status: RequestStatus;
  statusReason: string | null;
  channel: 'DASHBOARD' | 'API';
  createdByUserId: string;
  createdByTokenId: string | null;
  idempotencyKey: string | null;
  requestHash: string;
  createdAt: Date;
  /** When the subject's request was received, if before it was entered (null: createdAt). */
  receivedAt: Date | null;
  /** FAILED at once (no integrations): completed when created. */
  completed: boolean;
  /** The regulation and the legal deadline it gives. */
  regulation: string;
  dueAt: Date;
  /** When receipt must be confirmed to the subject (CCPA), or null. */
  receiptConfirmBy: Date | null;
  /** The workspace has identity lookups: they run before any integration request is sent. */
  lookupsPending: boolean;
  identifiers: NewRequestIdentifier[];
  integrationRequests: NewIntegrationRequest[];
  audit: { actorType: string; actorId: string | null; summary: string; details: unknown };
}

const at = (param: string) => `(${param}::timestamptz AT TIME ZONE 'UTC')`;

/**
 * The fan-out: one integration request per integration, each its own queue entry due at
 * `now`. Used by the create statement and by the late fan-out of a request that had no
 * integrations; `request` is a CTE with the parent's `id`, `now` the parameter holding the
 * time, and the seven parameters from `first` on are the columns of `fanOutValues`.
 */
const fanOut = (request: string, now: string, first: number) => {
  const p = (n: number) => `$${first + n}::text[]`;
  return `INSERT INTO "IntegrationRequest" (id, "deletionRequestId", "integrationId", "integrationName", "integrationType", "configSnapshot",
                                      "accountId", "consumesType", "nextAttemptAt", "createdAt", "updatedAt")
    SELECT w.id, ${request}.id, w.integration_id, w.name, w.type::"IntegrationType", w.config::jsonb, w.account_id, w.consumes_type, ${at(now)}, ${at(now)}, ${at(now)}
      FROM ${request}, unnest(${p(0)}, ${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}) AS w(id, integration_id, name, type, config, account_id, consumes_type)
    RETURNING 1`;
};

/** The new integration requests as the fan-out's seven column arrays. */
const fanOutValues = (rows: NewIntegrationRequest[]) => [
  rows.map((r) => r.id),
  rows.map((r) => r.integrationId),
  rows.map((r) => r.integrationName),
  rows.map((r) => r.integrationType),
  rows.map((r) => JSON.stringify(r.configSnapshot)),
  rows.map((r) => r.accountId),
  rows.map((r) => r.consumesType),
];

/** The payload of the request being created, from the create statement's parameters (it cannot read its own rows). */
const CREATED_REQUEST_JSON = requestJson({
  id: 'request.id',
  workspaceId: '$3',
  status: '$6',
  statusReason: '$7',
  cancelReason: 'NULL',
  cancelNote: 'NULL',
  channel: '$8',
  createdAt: isoAt('$13'),
  completedAt: `CASE WHEN $14::boolean THEN ${isoAt('$13')} END`,
  integrationRequests: `(SELECT COALESCE(jsonb_agg(${integrationRequestJson({ id: 'w.id', integrationId: 'w.integration_id', name: 'w.name', type: 'w.type', status: "'STAGING'", attempts: '0' })}), '[]'::jsonb)
    FROM unnest($15::text[], $16::text[], $17::text[], $18::text[]) AS w(id, integration_id, name, type))`,
});

/** The request, its integration requests and its audit entry in one atomic statement (values: `insertRequestValues`). */
export const INSERT_REQUEST = `
  WITH request AS (
    INSERT INTO "DeletionRequest" (id, "organizationId", "workspaceId", identifier, "identifierHmac", status, "statusReason", channel,
                                   "createdByUserId", "createdByTokenId", "idempotencyKey", "requestHash", "createdAt", "updatedAt", "completedAt",
                                   regulation, "dueAt", "receivedAt", "receiptConfirmBy", "lookupsPending")
    VALUES ($1, $2, $3, $4, $5, $6::"RequestStatus", $7, $8::"RequestChannel", $9, $10, $11, $12, ${at('$13')}, ${at('$13')},
            CASE WHEN $14::boolean THEN ${at('$13')} END, $26, ${at('$27')}, ${at('$28')}, ${at('$29')}, $30)
    RETURNING id
  ), work AS (
    ${fanOut('request', '$13', 15)}
  ), identifiers AS (
    INSERT INTO "RequestIdentifier" (id, "deletionRequestId", type, value, "valueHmac", "matchHmac", "primary", source, "createdAt")
    SELECT v.id, request.id, v.type, v.value, v.value_hmac, v.match_hmac, v.is_primary, v.source, ${at('$13')}
      FROM request, unnest($31::text[], $32::text[], $33::text[], $34::text[], $35::text[], $36::boolean[], $37::text[])
           AS v(id, type, value, value_hmac, match_hmac, is_primary, source)
    RETURNING 1
  ), audit AS (
    INSERT INTO "AuditLog" ("organizationId", "deletionRequestId", "actorType", "actorId", action, summary, details, "createdAt")
    SELECT $2, request.id, $22, $23, 'request.created', $24, $25::jsonb, ${at('$13')} FROM request
    RETURNING 1
  ), callbacks AS (
    -- Status callbacks: deletion_request.created (and, for a request with nothing to run,
    -- .completed and .failed at once) for every subscribed endpoint, in this same statement.
    ${insertDeliveries(
      `SELECT request.id, $2::text AS "organizationId", $3::text AS "workspaceId", t.type, ${eventBody('t.type', isoAt('$13'), `jsonb_build_object('deletionRequest', ${CREATED_REQUEST_JSON})`)} AS body
         FROM request CROSS JOIN LATERAL (VALUES ('deletion_request.created'), ('deletion_request.completed'), ('deletion_request.failed')) AS t(type)
        WHERE t.type = 'deletion_request.created' OR $14::boolean`,
      { now: at('$13') },
    )}
  )
  SELECT (SELECT count(*) FROM work)::int AS queued, (SELECT count(*) FROM identifiers)::int AS identifiers, (SELECT count(*) FROM callbacks)::int AS callbacks`;

/** The parameters of `INSERT_REQUEST`: the one place a new request becomes positional values. */
export function insertRequestValues(row: NewDeletionRequest): unknown[] {
  return [
    row.id,
    row.organizationId,
    row.workspaceId,
    row.identifier,
    row.identifierHmac,
    row.status,
    row.statusReason,
    row.channel,
    row.createdByUserId,
    row.createdByTokenId,
    row.idempotencyKey,
    row.requestHash,
    row.createdAt.toISOString(),
    row.completed,
    ...fanOutValues(row.integrationRequests),
    row.audit.actorType,
    row.audit.actorId,
    row.audit.summary,
    JSON.stringify(row.audit.details),
    row.regulation,
    row.dueAt.toISOString(),
    row.receivedAt?.toISOString() ?? null,
    row.receiptConfirmBy?.toISOString() ?? null,
    row.lookupsPending,
    row.identifiers.map((i) => i.id),
    row.identifiers.map((i) => i.type),
    row.identifiers.map((i) => i.value),
    row.identifiers.map((i) => i.valueHmac),
    row.identifiers.map((i) => i.matchHmac),
    row.identifiers.map((i) => i.primary),
    row.identifiers.map((i) => i.source),
  ];
}

/**
 * Writes a new deletion request (one statement: data-modifying CTEs are atomic and need no
 * BEGIN/COMMIT round trips). Foreign keys are checked at the end of the statement, when the
 * parent row exists.
 */
export async function insertDeletionRequest(db: DbOrTx, row: NewDeletionRequest): Promise<{ callbacks: number }> {
  const [result] = await hotQuery<{ callbacks: number }>(db, INSERT_REQUEST, insertRequestValues(row));
  return { callbacks: result?.callbacks ?? 0 };
}

const FAN_OUT_LATE = `
  WITH request AS (SELECT id FROM "DeletionRequest" WHERE id = $1), work AS (
    ${fanOut('request', '$2', 3)}
  )
  SELECT (SELECT count(*) FROM work)::int AS queued`;

/** Fans a request that had no integration requests out to `rows` (the caller holds the parent's lock). */
export async function fanOutLate(
  db: DbOrTx,
  deletionRequestId: string,
  rows: NewIntegrationRequest[],
  now: Date,
): Promise<void> {
  await hotQuery(db, FAN_OUT_LATE, [deletionRequestId, now.toISOString(), ...fanOutValues(rows)]);
}
