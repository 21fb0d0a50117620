-- The identifier hashes (HMAC-SHA256 with the service pepper) and the hash of a request's body
-- are stored as their 32 bytes instead of 64 characters of hex: 32 bytes less per value, and as
-- much again in each index that holds them (about 75 bytes per integration request of a request
-- with one identifier and three integrations). Values are converted in place, so searches,
-- duplicates and Idempotency-Key replays find what they found before. A value that is not a hash
-- (a purged request's or identifier's "purged:<id>" marker) becomes the SHA-256 of its text,
-- which is what the retention policy now writes for a purge; the indexes are rebuilt with the
-- columns.
ALTER TABLE "DeletionRequest"
  ALTER COLUMN "identifierHmac" TYPE BYTEA USING
    CASE WHEN "identifierHmac" ~ '^[0-9a-f]{64}$' THEN decode("identifierHmac", 'hex')
         ELSE sha256(convert_to("identifierHmac", 'UTF8')) END,
  ALTER COLUMN "requestHash" TYPE BYTEA USING
    CASE WHEN "requestHash" ~ '^[0-9a-f]{64}$' THEN decode("requestHash", 'hex')
         ELSE sha256(convert_to("requestHash", 'UTF8')) END;

ALTER TABLE "RequestIdentifier"
  ALTER COLUMN "valueHmac" TYPE BYTEA USING
    CASE WHEN "valueHmac" ~ '^[0-9a-f]{64}$' THEN decode("valueHmac", 'hex')
         ELSE sha256(convert_to("valueHmac", 'UTF8')) END,
  ALTER COLUMN "matchHmac" TYPE BYTEA USING
    CASE WHEN "matchHmac" ~ '^[0-9a-f]{64}$' THEN decode("matchHmac", 'hex')
         ELSE sha256(convert_to("matchHmac", 'UTF8')) END;
