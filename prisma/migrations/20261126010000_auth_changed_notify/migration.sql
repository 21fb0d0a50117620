-- API processes keep verified personal access tokens for a few seconds. Whatever changes
-- whether a token is valid or what its owner may do (a revocation, an expiry change, a role
-- change, a removed membership, a deleted user or organization through their cascades)
-- tells every process to forget them, on commit, whichever process or tool made the change.
CREATE FUNCTION "dds_notify_auth_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('auth_changed', '');
  RETURN NULL;
END;
$$;

CREATE TRIGGER "PersonalAccessToken_auth_changed"
  AFTER UPDATE OF "revokedAt", "expiresAt", "tokenHash", "userId", "organizationId" OR DELETE ON "PersonalAccessToken"
  FOR EACH STATEMENT EXECUTE FUNCTION "dds_notify_auth_changed"();

CREATE TRIGGER "Membership_auth_changed"
  AFTER UPDATE OR DELETE ON "Membership"
  FOR EACH STATEMENT EXECUTE FUNCTION "dds_notify_auth_changed"();
