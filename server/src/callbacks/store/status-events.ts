import { CANCEL_REASON_LABELS, CLOSED_NOT_FULFILLED } from '@shared/cancel-reasons';
import type { Query } from '../../db/query';

/** A stored UTC timestamp as ISO 8601, as the API writes dates. */
const iso = (column: string) => `to_char(${column}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const NOW_ISO = iso(`(now() AT TIME ZONE 'UTC')`);

/** A canceled request's reason as the API words it (`closedNotFulfilled`): "Closed — not fulfilled (Duplicate request)". */
const REASON_LABEL = `CASE d."cancelReason" ${Object.entries(CANCEL_REASON_LABELS)
  .map(([reason, label]) => `WHEN '${reason}' THEN '${label}'`)
  .join(' ')} END`;
const STATUS_REASON = `COALESCE(d."statusReason", CASE WHEN d.status = 'CANCELED'
  THEN '${CLOSED_NOT_FULFILLED}' || COALESCE(' (' || NULLIF(concat_ws(': ', ${REASON_LABEL}, d."cancelNote"), '') || ')', '') END)`;

/** The `data.deletionRequest` of every event about a request: ids, statuses and times, never the identifier. */
const REQUEST_JSON = `jsonb_build_object('id', d.id, 'workspaceId', d."workspaceId", 'status', d.status::text, 'statusReason', ${STATUS_REASON},
  'cancelReason', d."cancelReason", 'cancelNote', d."cancelNote",
  'channel', d.channel::text, 'createdAt', ${iso('d."createdAt"')}, 'completedAt', ${iso('d."completedAt"')},
  'integrationRequests', COALESCE((SELECT jsonb_agg(jsonb_build_object('id', ir.id, 'integrationId', ir."integrationId", 'name', ir."integrationName",
      'type', ir."integrationType"::text, 'status', ir.status::text, 'attempts', ir.attempts) ORDER BY ir."createdAt", ir.id)
    FROM "IntegrationRequest" ir WHERE ir."deletionRequestId" = d.id), '[]'::jsonb))`;

/** One delivery per (event, subscribed endpoint); `events` has columns id (request), "organizationId", "workspaceId", type, body. */
const INSERT_DELIVERIES = (events: string) => `
  INSERT INTO "CallbackDelivery" (id, "organizationId", "endpointId", "eventType", "deletionRequestId", body, "nextAttemptAt", "createdAt", "updatedAt")
  SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), ev."organizationId", e.id, ev.type, ev.id, ev.body,
         now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
    FROM (${events}) ev
    JOIN "CallbackEndpoint" e ON e."organizationId" = ev."organizationId" AND e.enabled AND ev.type = ANY(e.events)
                             AND (e."workspaceId" IS NULL OR e."workspaceId" = ev."workspaceId")
  RETURNING 1`;

/**
 * `deletion_request.completed` (any final status, in data.deletionRequest.status) and, when
 * it ended FAILED or ERROR, `deletion_request.failed`, for requests that just finished. Runs
 * in the transaction that finished them (the roll-up), so the event exists exactly when the
 * outcome was committed.
 */
export async function enqueueRequestFinishedEvents(query: Query, deletionRequestIds: string[]): Promise<number> {
  if (deletionRequestIds.length === 0) return 0;
  const rows = await query(
    INSERT_DELIVERIES(`
      SELECT d.id, d."organizationId", d."workspaceId", t.type,
             jsonb_build_object('type', t.type, 'timestamp', ${NOW_ISO}, 'data', jsonb_build_object('deletionRequest', ${REQUEST_JSON}))::text AS body
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
    INSERT_DELIVERIES(`
      SELECT d.id, d."organizationId", d."workspaceId", 'integration_request.failed' AS type,
             jsonb_build_object('type', 'integration_request.failed', 'timestamp', ${NOW_ISO}, 'data', jsonb_build_object(
               'integrationRequest', jsonb_build_object('id', f.id, 'integrationId', f."integrationId", 'name', f."integrationName",
                 'type', f."integrationType"::text, 'status', f.status::text, 'attempts', f.attempts),
               'deletionRequest', ${REQUEST_JSON}))::text AS body
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
    INSERT_DELIVERIES(`
      SELECT d.id, d."organizationId", d."workspaceId", $2::text AS type,
             jsonb_build_object('type', $2::text, 'timestamp', ${NOW_ISO}, 'data', jsonb_build_object(
               'deletionRequest', ${REQUEST_JSON} || jsonb_build_object('dueAt', ${iso('d."dueAt"')},
                 'receiptConfirmBy', ${iso('d."receiptConfirmBy"')}),
               'reasons', COALESCE(r.reasons, '[]'::jsonb)))::text AS body
        FROM jsonb_to_recordset($1::jsonb) AS r(id text, reasons jsonb)
        JOIN "DeletionRequest" d ON d.id = r.id`),
    [JSON.stringify(requests.map((r) => ({ id: r.id, reasons: r.reasons ?? [] }))), type],
  );
  return rows.length;
}
