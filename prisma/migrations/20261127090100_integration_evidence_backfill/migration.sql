-- Integration requests that succeeded before evidence was kept on them: their evidence from the
-- last successful step's audit payload, where the retention policy has not removed it. Payloads
-- recorded before the engine blanked the identifier in evidence may hold it (a customer id or a
-- user id that is the identifier): it is blanked here in every string and key of the evidence, as the
-- engine now does (as written, in lower and in upper case; one of under 4 characters only where
-- it stands alone).
CREATE FUNCTION pg_temp.blank_text(value text, identifier text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  out text := value;
  form text;
BEGIN
  FOREACH form IN ARRAY ARRAY[identifier, lower(identifier), upper(identifier)] LOOP
    IF length(form) >= 4 THEN
      out := replace(out, form, '[identifier]');
    ELSE
      out := regexp_replace(out, '(^|[^[:alnum:]])' || regexp_replace(form, '([^[:alnum:]])', '\\\1', 'g') || '(?![[:alnum:]])', '\1[identifier]', 'g');
    END IF;
  END LOOP;
  RETURN out;
END
$$;

-- Keys included: a proof per customer id is keyed by the identifier when the customer id is it.
CREATE FUNCTION pg_temp.blank_identifier(value jsonb, identifier text) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  CASE jsonb_typeof(value)
    WHEN 'string' THEN
      RETURN to_jsonb(pg_temp.blank_text(value #>> '{}', identifier));
    WHEN 'object' THEN
      RETURN COALESCE((SELECT jsonb_object_agg(pg_temp.blank_text(e.key, identifier), pg_temp.blank_identifier(e.value, identifier)) FROM jsonb_each(value) AS e), '{}'::jsonb);
    WHEN 'array' THEN
      RETURN COALESCE((SELECT jsonb_agg(pg_temp.blank_identifier(a.value, identifier) ORDER BY a.n) FROM jsonb_array_elements(value) WITH ORDINALITY AS a(value, n)), '[]'::jsonb);
    ELSE
      RETURN value;
  END CASE;
END
$$;

UPDATE "IntegrationRequest" ir
   SET "evidence" = pg_temp.blank_identifier(last.evidence, dr.identifier)
  FROM (
    SELECT DISTINCT ON (al."integrationRequestId") al."integrationRequestId" AS ir_id, al."details"->'evidence' AS evidence
      FROM "AuditLog" al
     WHERE al."integrationRequestId" IS NOT NULL
       AND al."outcome" = 'SUCCESS'
       AND al."action" IN ('deletion.requested', 'deletion.status_checked')
       AND jsonb_typeof(al."details"->'evidence') = 'object'
     ORDER BY al."integrationRequestId", al.id DESC
  ) last,
  "DeletionRequest" dr
 WHERE ir.id = last.ir_id
   AND dr.id = ir."deletionRequestId"
   AND ir.status = 'SUCCESS'
   AND ir."evidence" IS NULL
   AND dr.identifier IS NOT NULL
   AND dr.identifier <> ''
   AND NOT dr.hashed;

DROP FUNCTION pg_temp.blank_identifier(jsonb, text);
DROP FUNCTION pg_temp.blank_text(text, text);
