/** The request, its integration requests and its audit entry in one atomic statement. $13 is the creation time (UTC), $25/$26 the regulation and its deadline. */
export const INSERT_REQUEST = `
  WITH request AS (
    INSERT INTO "DeletionRequest" (id, "organizationId", "workspaceId", identifier, "identifierHmac", status, "statusReason", channel,
                                   "createdByUserId", "createdByTokenId", "idempotencyKey", "requestHash", "createdAt", "updatedAt", "completedAt",
                                   regulation, "dueAt")
    VALUES ($1, $2, $3, $4, $5, $6::"RequestStatus", $7, $8::"RequestChannel", $9, $10, $11, $12,
            ($13::timestamptz AT TIME ZONE 'UTC'), ($13::timestamptz AT TIME ZONE 'UTC'),
            CASE WHEN $14::boolean THEN ($13::timestamptz AT TIME ZONE 'UTC') END,
            $25, ($26::timestamptz AT TIME ZONE 'UTC'))
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
  )
  SELECT (SELECT count(*) FROM work)::int AS queued`;
