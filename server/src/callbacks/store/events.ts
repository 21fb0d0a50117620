import { CANCEL_REASON_LABELS, CLOSED_NOT_FULFILLED } from '@shared/cancel-reasons';
import type { CallbackEventType } from '@shared/schemas/callbacks';
import { NOW_UTC, type Query } from '../../db/query';

/**
 * Callback events, in one place: what a request's payload says (`requestJson`) and how an
 * event becomes one CallbackDelivery row per subscribed endpoint (`insertDeliveries`). Every
 * event is recorded in the transaction (or the statement) that made the change it reports,
 * so it exists exactly when the change was committed; the dispatcher (`../dispatcher.ts`)
 * sends the rows. Bodies leave the service: they never carry a subject identifier.
 */

/** A stored UTC timestamp as ISO 8601, as the API writes dates. */
const iso = (column: string) => `to_char(${column}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const NOW_ISO = iso(`(now() AT TIME ZONE 'UTC')`);

/** SQL expressions for the fields of a request's payload, wherever the request is read from. */
export interface RequestFields {
  id: string;
  workspaceId: string;
  status: string;
  statusReason: string;
  cancelReason: string;
  cancelNote: string;
  channel: string;
  /** Already ISO 8601 text (see `isoAt`). */
  createdAt: string;
  completedAt: string;
  /** A jsonb array of `integrationRequestJson` objects. */
  integrationRequests: string;
}

/** A timestamptz parameter or expression as the ISO 8601 text the payload carries. */
export const isoAt = (value: string) => iso(`(${value}::timestamptz AT TIME ZONE 'UTC')`);

/** `data.deletionRequest` of every event about a request: ids, statuses and times, never the identifier. */
export const requestJson = (f: RequestFields) =>
  `jsonb_build_object('id', ${f.id}, 'workspaceId', ${f.workspaceId}, 'status', ${f.status}, 'statusReason', ${f.statusReason},
  'cancelReason', ${f.cancelReason}, 'cancelNote', ${f.cancelNote},
  'channel', ${f.channel}, 'createdAt', ${f.createdAt}, 'completedAt', ${f.completedAt},
  'integrationRequests', ${f.integrationRequests})`;

/** One integration request in a payload; each argument is an SQL expression. */
export const integrationRequestJson = (f: {
  id: string;
  integrationId: string;
  name: string;
  type: string;
  status: string;
  attempts: string;
}) =>
  `jsonb_build_object('id', ${f.id}, 'integrationId', ${f.integrationId}, 'name', ${f.name}, 'type', ${f.type}, 'status', ${f.status}, 'attempts', ${f.attempts})`;

/** An event's body: `{ type, timestamp, data }`, as text (signed as is on every attempt). */
export const eventBody = (type: string, timestamp: string, data: string) =>
  `jsonb_build_object('type', ${type}, 'timestamp', ${timestamp}, 'data', ${data})::text`;

/**
 * One delivery per (event, subscribed endpoint). `events` is a query with columns id (the
 * request, or NULL), "organizationId", "workspaceId", type and body. Each row's id is its
 * `webhook-id`, fixed now, so every attempt (also after a crash) carries the same id.
 * `endpoint`: only that endpoint (an SQL expression), whatever it subscribes to and even when
 * disabled ("Send test event").
 */
export const insertDeliveries = (events: string, options: { now?: string; endpoint?: string } = {}) => {
  const now = options.now ?? NOW_UTC;
  const match = options.endpoint ? `e.id = ${options.endpoint}` : `e.enabled AND ev.type = ANY(e.events)`;
  return `INSERT INTO "CallbackDelivery" (id, "organizationId", "endpointId", "eventType", "deletionRequestId", body, "nextAttemptAt", "createdAt", "updatedAt")
  SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), ev."organizationId", e.id, ev.type, ev.id, ev.body, ${now}, ${now}, ${now}
    FROM (${events}) ev
    JOIN "CallbackEndpoint" e ON e."organizationId" = ev."organizationId" AND ${match}
                             AND (e."workspaceId" IS NULL OR e."workspaceId" = ev."workspaceId")
  RETURNING id`;
};

/** A canceled request's reason as the API words it (`closedNotFulfilled`): "Closed — not fulfilled (Duplicate request)". */
const REASON_LABEL = `CASE d."cancelReason" ${Object.entries(CANCEL_REASON_LABELS)
  .map(([reason, label]) => `WHEN '${reason}' THEN '${label}'`)
  .join(' ')} END`;
const STATUS_REASON = `COALESCE(d."statusReason", CASE WHEN d.status = 'CANCELED'
  THEN '${CLOSED_NOT_FULFILLED}' || COALESCE(' (' || NULLIF(concat_ws(': ', ${REASON_LABEL}, d."cancelNote"), '') || ')', '') END)`;

/** The payload of a stored request `d` with its integration requests as they are now. */
const REQUEST_JSON = requestJson({
  id: 'd.id',
  workspaceId: 'd."workspaceId"',
  status: 'd.status::text',
  statusReason: STATUS_REASON,
  cancelReason: 'd."cancelReason"',
  cancelNote: 'd."cancelNote"',
  channel: 'd.channel::text',
  createdAt: iso('d."createdAt"'),
  completedAt: iso('d."completedAt"'),
  integrationRequests: `COALESCE((SELECT jsonb_agg(${storedIntegrationRequest('ir')} ORDER BY ir."createdAt", ir.id)
    FROM "IntegrationRequest" ir WHERE ir."deletionRequestId" = d.id), '[]'::jsonb)`,
});

function storedIntegrationRequest(alias: string): string {
  return integrationRequestJson({
    id: `${alias}.id`,
    integrationId: `${alias}."integrationId"`,
    name: `${alias}."integrationName"`,
    type: `${alias}."integrationType"::text`,
    status: `${alias}.status::text`,
    attempts: `${alias}.attempts`,
  });
}

export interface CallbackEvent {
  organizationId: string;
  /** The workspace the event is about: endpoints of this workspace and organization-wide ones receive it. */
  workspaceId: string | null;
  type: CallbackEventType | 'callback.test';
  deletionRequestId?: string | null;
  /** The event's `data`; never a subject identifier (bodies leave the service). */
  data: Record<string, unknown>;
  /** Only this endpoint, whatever it subscribes to ("Send test event"). */
  endpointId?: string;
}

/**
 * Records an event built in the application (a test event, say) for every enabled endpoint
 * that subscribed to it, one delivery row each, in the caller's transaction. The body is
 * fixed now, and signed as is on each attempt.
 */
export async function enqueueCallbackEvent(query: Query, event: CallbackEvent, now = new Date()): Promise<string[]> {
  const body = JSON.stringify({ type: event.type, timestamp: now.toISOString(), data: event.data });
  const values: unknown[] = [
    event.organizationId,
    event.type,
    event.workspaceId,
    event.deletionRequestId ?? null,
    body,
  ];
  const endpoint = event.endpointId ? `$${values.push(event.endpointId)}::text` : undefined;
  const rows = await query<{ id: string }>(
    insertDeliveries(
      `SELECT $4::text AS id, $1::text AS "organizationId", $3::text AS "workspaceId", $2::text AS type, $5::text AS body`,
      { endpoint },
    ),
    values,
  );
  return rows.map((r) => r.id);
}

/**
 * `deletion_request.completed` (any final status, in data.deletionRequest.status) and, when
 * it ended FAILED or ERROR, `deletion_request.failed`, for requests that just finished. Runs
 * in the transaction that finished them (the roll-up), so the event exists exactly when the
 * outcome was committed.
 */
export async function enqueueRequestFinishedEvents(query: Query, deletionRequestIds: string[]): Promise<number> {
  if (deletionRequestIds.length === 0) return 0;
  const rows = await query(
    insertDeliveries(`
      SELECT d.id, d."organizationId", d."workspaceId", t.type,
             ${eventBody('t.type', NOW_ISO, `jsonb_build_object('deletionRequest', ${REQUEST_JSON})`)} AS body
        FROM "DeletionRequest" d
        CROSS JOIN LATERAL (VALUES ('deletion_request.completed'), ('deletion_request.failed')) AS t(type)
       WHERE d.id = ANY($1::text[]) AND d."completedAt" IS NOT NULL
         AND (t.type = 'deletion_request.completed' OR d.status IN ('FAILED', 'ERROR'))
         AND EXISTS (SELECT 1 FROM "CallbackEndpoint" x WHERE x."organizationId" = d."organizationId" AND x.enabled)`),
    [deletionRequestIds],
  );
  return rows.length;
}

/** `integration_request.failed` for integration requests that just became FAILED or ERROR (with their request). */
export async function enqueueIntegrationFailedEvents(query: Query, integrationRequestIds: string[]): Promise<number> {
  if (integrationRequestIds.length === 0) return 0;
  const rows = await query(
    insertDeliveries(`
      SELECT d.id, d."organizationId", d."workspaceId", 'integration_request.failed' AS type,
             ${eventBody(
               `'integration_request.failed'`,
               NOW_ISO,
               `jsonb_build_object('integrationRequest', ${storedIntegrationRequest('f')}, 'deletionRequest', ${REQUEST_JSON})`,
             )} AS body
        FROM "IntegrationRequest" f JOIN "DeletionRequest" d ON d.id = f."deletionRequestId"
       WHERE f.id = ANY($1::text[]) AND f.status IN ('FAILED', 'ERROR')
         AND EXISTS (SELECT 1 FROM "CallbackEndpoint" x WHERE x."organizationId" = d."organizationId" AND x.enabled)`),
    [integrationRequestIds],
  );
  return rows.length;
}

/**
 * `deletion_request.overdue`, `.at_risk` or `.receipt_overdue` for these requests, with their
 * deadline and the date their receipt was to be confirmed by (and, at risk, why: the integrations
 * that usually take longer than what is left). Run in the transaction that marks them as sent, so
 * each is recorded once.
 */
export async function enqueueDeadlineEvents(
  query: Query,
  type: 'deletion_request.overdue' | 'deletion_request.at_risk' | 'deletion_request.receipt_overdue',
  requests: { id: string; reasons?: string[] }[],
): Promise<number> {
  if (requests.length === 0) return 0;
  const rows = await query(
    insertDeliveries(`
      SELECT d.id, d."organizationId", d."workspaceId", $2::text AS type,
             ${eventBody(
               '$2::text',
               NOW_ISO,
               `jsonb_build_object('deletionRequest', ${REQUEST_JSON} || jsonb_build_object('dueAt', ${iso('d."dueAt"')},
                 'receiptConfirmBy', ${iso('d."receiptConfirmBy"')}), 'reasons', COALESCE(r.reasons, '[]'::jsonb))`,
             )} AS body
        FROM jsonb_to_recordset($1::jsonb) AS r(id text, reasons jsonb)
        JOIN "DeletionRequest" d ON d.id = r.id`),
    [JSON.stringify(requests.map((r) => ({ id: r.id, reasons: r.reasons ?? [] }))), type],
  );
  return rows.length;
}
