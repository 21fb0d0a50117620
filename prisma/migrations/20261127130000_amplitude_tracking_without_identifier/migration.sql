-- Amplitude integrations that take the subject's Amplitude id as its identifier used to keep that id
-- in the tracking id (shown in the dashboard, the API and certificates, and kept after retention).
-- Every id such a tracking id lists is the subject's own, so each list becomes the word "subject",
-- which the driver reads as the request's identifier again.
UPDATE "IntegrationRequest"
SET "trackingId" = regexp_replace("trackingId", ':[0-9][0-9,]*', ':subject', 'g')
WHERE "integrationType" = 'AMPLITUDE'
  AND "configSnapshot"->>'identifierType' = 'amplitude_id'
  AND "trackingId" ~ ':[0-9]';
