/** The request, its integration requests and its audit entry in one atomic statement. $13 is the creation time (UTC). */
export const INSERT_REQUEST = `
  WITH request AS (
    INSERT INTO "DeletionRequest" (id, "organizationId", "workspaceId", identifier, "identifierHmac", status, "statusReason", channel,
                                   "createdByUserId", "createdByTokenId", "idempotencyKey", "requestHash", "createdAt", "updatedAt", "completedAt")
    VALUES ($1, $2, $3, $4, $5, $6::"RequestStatus", $7, $8::"RequestChannel", $9, $10, $11, $12,
            ($13::timestamptz AT TIME ZONE 'UTC'), ($13::timestamptz AT TIME ZONE 'UTC'),
            CASE WHEN $14::boolean THEN ($13::timestamptz AT TIME ZONE 'UTC') END)
    RETURNING id
  ), work AS (
    INSERT INTO "IntegrationRequest" (id, "deletionRequestId", "integrationId", "integrationName", "integrationType", "configSnapshot",
                                      "accountId", "nextAttemptAt", "createdAt", "updatedAt")
    SELECT w.id, request.id, w.integration_id, w.name, w.type::"IntegrationType", w.config::jsonb, w.account_id,
           ($13::timestamptz AT TIME ZONE 'UTC'), ($13::timestamptz AT TIME ZONE 'UTC'), ($13::timestamptz AT TIME ZONE 'UTC')
      FROM request, unnest($15::text[], $16::text[], $17::text[], $18::text[], $19::text[], $20::text[]) AS w(id, integration_id, name, type, config, account_id)
    RETURNING 1
  ), audit AS (
    INSERT INTO "AuditLog" ("organizationId", "deletionRequestId", "actorType", "actorId", action, summary, details, "createdAt")
    SELECT $2, request.id, $21, $22, 'request.created', $23, $24::jsonb, ($13::timestamptz AT TIME ZONE 'UTC') FROM request
    RETURNING 1
  ), callbacks AS (
    -- Status callbacks: deletion_request.created (and, for a request with nothing to run,
    -- .completed and .failed at once) for every subscribed endpoint, in this same statement.
    INSERT INTO "CallbackDelivery" (id, "organizationId", "endpointId", "eventType", "deletionRequestId", body, "nextAttemptAt", "createdAt", "updatedAt")
    SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), $2, e.id, t.type, request.id,
           jsonb_build_object('type', t.type, 'timestamp', to_char($13::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'data', jsonb_build_object('deletionRequest', jsonb_build_object('id', request.id, 'workspaceId', $3, 'status', $6, 'statusReason', $7,
               'channel', $8, 'createdAt', to_char($13::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
               'completedAt', CASE WHEN $14::boolean THEN to_char($13::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') END,
               'integrationRequests', (SELECT COALESCE(jsonb_agg(jsonb_build_object('id', w.id, 'integrationId', w.integration_id, 'name', w.name,
                   'type', w.type, 'status', 'STAGING', 'attempts', 0)), '[]'::jsonb)
                 FROM unnest($15::text[], $16::text[], $17::text[], $18::text[]) AS w(id, integration_id, name, type)))))::text,
           ($13::timestamptz AT TIME ZONE 'UTC'), ($13::timestamptz AT TIME ZONE 'UTC'), ($13::timestamptz AT TIME ZONE 'UTC')
      FROM request
      JOIN "CallbackEndpoint" e ON e."organizationId" = $2 AND e.enabled AND (e."workspaceId" IS NULL OR e."workspaceId" = $3)
      CROSS JOIN LATERAL (VALUES ('deletion_request.created'), ('deletion_request.completed'), ('deletion_request.failed')) AS t(type)
     WHERE t.type = ANY(e.events) AND (t.type = 'deletion_request.created' OR $14::boolean)
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM work)::int AS queued`;
