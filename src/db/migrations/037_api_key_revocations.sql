-- Every process caches the API keys it found good for a moment (modules/apikeys/service.ts)
-- and empties that cache when told a key was revoked. The service tells it from the revoking
-- transaction; this trigger tells it of any other write that changes whether or how a key
-- authenticates (an operator's UPDATE or DELETE, a future code path): a notification on the
-- change channel (db/changes.ts CHANGES_CHANNEL; payload "topic:id:nonce") at COMMIT.
-- Writes of last_used_at (every 30 s) and key rotation's re-encryption notify nobody.
CREATE FUNCTION api_keys_revoked_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('wallet_service_changes', 'apikeys-revoked::');
  RETURN NULL;
END
$$;

CREATE TRIGGER api_keys_revoked_on_update
  AFTER UPDATE ON api_keys FOR EACH ROW
  WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at
     OR OLD.key_hash IS DISTINCT FROM NEW.key_hash
     OR OLD.business_id IS DISTINCT FROM NEW.business_id
     OR OLD.wallet_id IS DISTINCT FROM NEW.wallet_id
     OR OLD.scopes IS DISTINCT FROM NEW.scopes
     OR OLD.rate_limit IS DISTINCT FROM NEW.rate_limit)
  EXECUTE FUNCTION api_keys_revoked_notify();

CREATE TRIGGER api_keys_revoked_on_delete
  AFTER DELETE ON api_keys FOR EACH STATEMENT
  EXECUTE FUNCTION api_keys_revoked_notify();

CREATE TRIGGER api_keys_revoked_on_truncate
  AFTER TRUNCATE ON api_keys FOR EACH STATEMENT
  EXECUTE FUNCTION api_keys_revoked_notify();
