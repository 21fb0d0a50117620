import type { IntegrationType, RequestStatus } from '@shared/statuses';
import { hotQuery, type DbOrTx } from '../../db/client';
import { namedStatement } from '../../db/named-statement';
import { eventBody, insertDeliveries, integrationRequestJson, isoAt, requestJson } from '../../callbacks/store/events';
import { withDetailsPacked } from '../../services/audit/recorded-exchanges';
import { configSnapshotKey, storeConfigSnapshots } from './sql';

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
  /** The keyed hashes as hex (stored as their bytes). */
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
  /** Hex, as the two hashes below (stored as their bytes). */
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

/** A value as a statement parameter: dates as ISO 8601 text (cast back in the statement). */
const asParam = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

interface Column<T> {
  /** The SQL the column is written with (named parameters); null: the column's default. */
  sql: string | null;
  /** The value as written, which create answers with (nothing is read back). */
  written: (row: NewDeletionRequest) => T;
}
const column = <T>(sql: string | null, written: (row: NewDeletionRequest) => T): Column<T> => ({ sql, written });

/**
 * A new request's row, column by column: the one list the create statement, its parameters
 * and its answer are generated from. A column written as `$<its name>` takes its parameter
 * from `written` (dates as ISO text); a new field is one line here.
 */
const REQUEST_COLUMNS = {
  id: column('$id', (r) => r.id),
  organizationId: column('$organizationId', (r) => r.organizationId),
  workspaceId: column('$workspaceId', (r) => r.workspaceId),
  identifier: column('$identifier', (r): string | null => r.identifier),
  identifierHmac: column(`decode($identifierHmac, 'hex')`, (r) => r.identifierHmac),
  status: column('$status::"RequestStatus"', (r) => r.status),
  statusReason: column('$statusReason', (r) => r.statusReason),
  channel: column('$channel::"RequestChannel"', (r) => r.channel),
  createdByUserId: column('$createdByUserId', (r) => r.createdByUserId),
  createdByTokenId: column('$createdByTokenId', (r) => r.createdByTokenId),
  idempotencyKey: column('$idempotencyKey', (r) => r.idempotencyKey),
  requestHash: column(`decode($requestHash, 'hex')`, (r) => r.requestHash),
  createdAt: column(at('$createdAt'), (r) => r.createdAt),
  updatedAt: column(at('$createdAt'), (r) => r.createdAt),
  completedAt: column(`CASE WHEN $completed::boolean THEN ${at('$createdAt')} END`, (r) =>
    r.completed ? r.createdAt : null,
  ),
  regulation: column('$regulation', (r) => r.regulation),
  dueAt: column(at('$dueAt'), (r) => r.dueAt),
  receivedAt: column(at('$receivedAt'), (r) => r.receivedAt),
  receiptConfirmBy: column(at('$receiptConfirmBy'), (r) => r.receiptConfirmBy),
  lookupsPending: column('$lookupsPending', (r) => r.lookupsPending),
  dueExtendedAt: column(null, (): Date | null => null),
  receiptConfirmedAt: column(null, (): Date | null => null),
  cancelReason: column(null, (): string | null => null),
  cancelNote: column(null, (): string | null => null),
};

type Written = { [K in keyof typeof REQUEST_COLUMNS]: ReturnType<(typeof REQUEST_COLUMNS)[K]['written']> };

const writtenColumns = (Object.entries(REQUEST_COLUMNS) as [string, Column<unknown>][]).flatMap(([name, c]) =>
  c.sql === null ? [] : [{ name, sql: c.sql, written: c.written }],
);
/** Each column written as `$<its name>` is its own parameter. */
const columnParams = Object.fromEntries(
  writtenColumns
    .filter((c) => new RegExp(`\\$${c.name}\\b`).test(c.sql))
    .map((c) => [c.name, (r: NewDeletionRequest) => asParam(c.written(r))]),
);

/**
 * The fan-out: one integration request per integration, each its own queue entry due at
 * `now`, its configuration stored once per distinct configuration (`snapshots`). Used by the
 * create statement and by the late fan-out of a request that had no integrations; `request` is
 * a CTE with the parent's `id` and `organizationId`, `now` the parameter holding the time, and
 * the integration requests the `fanOutParams` arrays. Two CTEs: `snapshots` and `work`.
 */
const fanOut = (request: string, now: string) => {
  const config = 'c.config::jsonb';
  return `snapshots AS (
    ${storeConfigSnapshots(`${request}, unnest($irConfigs::text[]) AS c(config)`, `${request}."organizationId"`, config)}
  ), work AS (
    INSERT INTO "IntegrationRequest" (id, "deletionRequestId", "integrationId", "integrationName", "integrationType", "configSnapshotId",
                                      "accountId", "consumesType", "nextAttemptAt", "createdAt", "updatedAt")
    SELECT w.id, ${request}.id, w.integration_id, w.name, w.type, ${configSnapshotKey(`${request}."organizationId"`, 'w.config::jsonb')},
           w.account_id, w.consumes_type, ${at(now)}, ${at(now)}, ${at(now)}
      FROM ${request}, unnest($irIds::text[], $irIntegrationIds::text[], $irNames::text[], $irTypes::text[], $irConfigs::text[],
                              $irAccountIds::text[], $irConsumesTypes::text[]) AS w(id, integration_id, name, type, config, account_id, consumes_type)
    RETURNING 1
  )`;
};

/** The new integration requests as the fan-out's column arrays. */
const fanOutParams = <I>(rowsOf: (input: I) => NewIntegrationRequest[]) => ({
  irIds: (input: I) => rowsOf(input).map((r) => r.id),
  irIntegrationIds: (input: I) => rowsOf(input).map((r) => r.integrationId),
  irNames: (input: I) => rowsOf(input).map((r) => r.integrationName),
  irTypes: (input: I) => rowsOf(input).map((r) => r.integrationType),
  irConfigs: (input: I) => rowsOf(input).map((r) => JSON.stringify(r.configSnapshot)),
  irAccountIds: (input: I) => rowsOf(input).map((r) => r.accountId),
  irConsumesTypes: (input: I) => rowsOf(input).map((r) => r.consumesType),
});

/** The creation entry's details as stored (their bulk compressed), worked out once per request for its two parameters. */
const packedAudit = new WeakMap<NewDeletionRequest['audit'], ReturnType<typeof withDetailsPacked>>();
function storedAuditDetails(row: NewDeletionRequest) {
  let stored = packedAudit.get(row.audit);
  if (!stored) packedAudit.set(row.audit, (stored = withDetailsPacked({ details: row.audit.details })));
  return stored;
}

/** The payload of the request being created, from the create statement's parameters (it cannot read its own rows). */
const CREATED_REQUEST_JSON = requestJson({
  id: 'request.id',
  workspaceId: '$workspaceId',
  status: '$status',
  statusReason: '$statusReason',
  cancelReason: 'NULL',
  cancelNote: 'NULL',
  channel: '$channel',
  createdAt: isoAt('$createdAt'),
  completedAt: `CASE WHEN $completed::boolean THEN ${isoAt('$createdAt')} END`,
  integrationRequests: `(SELECT COALESCE(jsonb_agg(${integrationRequestJson({ id: 'w.id', integrationId: 'w.integration_id', name: 'w.name', type: 'w.type', status: "'STAGING'", attempts: '0' })}), '[]'::jsonb)
    FROM unnest($irIds::text[], $irIntegrationIds::text[], $irNames::text[], $irTypes::text[]) AS w(id, integration_id, name, type))`,
});

/** The request, its integration requests, identifiers, audit entry and callbacks in one atomic statement. */
const CREATE = namedStatement<NewDeletionRequest>(
  `
  WITH request AS (
    INSERT INTO "DeletionRequest" (${writtenColumns.map((c) => `"${c.name}"`).join(', ')})
    VALUES (${writtenColumns.map((c) => c.sql).join(', ')})
    RETURNING id, "organizationId"
  ), ${fanOut('request', '$createdAt')}, identifiers AS (
    INSERT INTO "RequestIdentifier" (id, "deletionRequestId", type, value, "valueHmac", "matchHmac", "primary", source, "createdAt")
    SELECT v.id, request.id, v.type, v.value, decode(v.value_hmac, 'hex'), decode(v.match_hmac, 'hex'), v.is_primary, v.source, ${at('$createdAt')}
      FROM request, unnest($idIds::text[], $idTypes::text[], $idValues::text[], $idValueHmacs::text[], $idMatchHmacs::text[],
                           $idPrimary::boolean[], $idSources::text[])
           AS v(id, type, value, value_hmac, match_hmac, is_primary, source)
    RETURNING 1
  ), audit AS (
    INSERT INTO "AuditLog" ("organizationId", "deletionRequestId", "actorType", "actorId", action, summary, details, exchanges, "createdAt")
    SELECT $organizationId, request.id, $auditActorType, $auditActorId, 'request.created', $auditSummary, $auditDetails::jsonb,
           decode($auditPacked::text, 'base64'), ${at('$createdAt')} FROM request
    RETURNING 1
  ), callbacks AS (
    -- Status callbacks: deletion_request.created (and, for a request with nothing to run,
    -- .completed and .failed at once) for every subscribed endpoint, in this same statement.
    ${insertDeliveries(
      `SELECT request.id, $organizationId::text AS "organizationId", $workspaceId::text AS "workspaceId", t.type, ${eventBody('t.type', isoAt('$createdAt'), `jsonb_build_object('deletionRequest', ${CREATED_REQUEST_JSON})`)} AS body
         FROM request CROSS JOIN LATERAL (VALUES ('deletion_request.created'), ('deletion_request.completed'), ('deletion_request.failed')) AS t(type)
        WHERE t.type = 'deletion_request.created' OR $completed::boolean`,
      { now: at('$createdAt') },
    )}
  )
  SELECT (SELECT count(*) FROM work)::int AS queued, (SELECT count(*) FROM identifiers)::int AS identifiers, (SELECT count(*) FROM callbacks)::int AS callbacks`,
  {
    ...columnParams,
    completed: (r) => r.completed,
    ...fanOutParams((r: NewDeletionRequest) => r.integrationRequests),
    idIds: (r) => r.identifiers.map((i) => i.id),
    idTypes: (r) => r.identifiers.map((i) => i.type),
    idValues: (r) => r.identifiers.map((i) => i.value),
    idValueHmacs: (r) => r.identifiers.map((i) => i.valueHmac),
    idMatchHmacs: (r) => r.identifiers.map((i) => i.matchHmac),
    idPrimary: (r) => r.identifiers.map((i) => i.primary),
    idSources: (r) => r.identifiers.map((i) => i.source),
    auditActorType: (r) => r.audit.actorType,
    auditActorId: (r) => r.audit.actorId,
    auditSummary: (r) => r.audit.summary,
    auditDetails: (r) => JSON.stringify(storedAuditDetails(r).details),
    auditPacked: (r) => storedAuditDetails(r).exchanges,
  },
);

/** The create statement (one text, prepared once per connection). */
export const INSERT_REQUEST = CREATE.text;

/** The parameters of `INSERT_REQUEST` for a new request. */
export const insertRequestValues = (row: NewDeletionRequest): unknown[] => CREATE.values(row);

/**
 * Writes a new deletion request (one statement: data-modifying CTEs are atomic and need no
 * BEGIN/COMMIT round trips). Foreign keys are checked at the end of the statement, when the
 * parent row exists.
 */
export async function insertDeletionRequest(db: DbOrTx, row: NewDeletionRequest): Promise<{ callbacks: number }> {
  const [result] = await hotQuery<{ callbacks: number }>(db, INSERT_REQUEST, insertRequestValues(row));
  return { callbacks: result?.callbacks ?? 0 };
}

/** The new request as the row the create statement wrote, for the answer (nothing is read back). */
export function writtenRequest(row: NewDeletionRequest) {
  const columns = Object.fromEntries(
    Object.entries(REQUEST_COLUMNS).map(([name, c]) => [name, (c as Column<unknown>).written(row)]),
  ) as Written;
  return {
    ...columns,
    hashed: false,
    integrationRequests: row.integrationRequests.map((ir) => ({
      id: ir.id,
      integrationId: ir.integrationId,
      integrationName: ir.integrationName,
      integrationType: ir.integrationType,
      status: 'STAGING' as const,
      attempts: 0,
      trackingId: null,
      lastError: null,
      nextAttemptAt: row.createdAt,
      createdAt: row.createdAt,
      updatedAt: row.createdAt,
      completedAt: null,
    })),
  };
}

interface LateFanOut {
  deletionRequestId: string;
  now: Date;
  rows: NewIntegrationRequest[];
}

const FAN_OUT_LATE = namedStatement<LateFanOut>(
  `
  WITH request AS (SELECT id, "organizationId" FROM "DeletionRequest" WHERE id = $deletionRequestId), ${fanOut('request', '$now')}
  SELECT (SELECT count(*) FROM work)::int AS queued`,
  {
    deletionRequestId: (input) => input.deletionRequestId,
    now: (input) => input.now.toISOString(),
    ...fanOutParams((input: LateFanOut) => input.rows),
  },
);

/** Fans a request that had no integration requests out to `rows` (the caller holds the parent's lock). */
export async function fanOutLate(
  db: DbOrTx,
  deletionRequestId: string,
  rows: NewIntegrationRequest[],
  now: Date,
): Promise<void> {
  await hotQuery(db, FAN_OUT_LATE.text, FAN_OUT_LATE.values({ deletionRequestId, now, rows }));
}
