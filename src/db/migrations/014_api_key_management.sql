-- Business API keys that can be managed (issue 17, item 2) and limited (issue 11, item 7).
--
-- A business may hold several live business keys (wallet_id NULL), each with a name for
-- people, optional restrictions and its own request rate; keys are listed by prefix and
-- last use and revoked through the API, the CLI and the dashboard.
--
-- - name: a label chosen by whoever created the key ('' for keys made before this).
-- - scopes: restrictions; empty = everything a key of its kind may do. READ_ONLY: GET only
--   (no key export either). NO_KEY_EXPORT: never `showPrivateKey`.
-- - rate_limit: requests per second per instance for this key; NULL = the configured
--   default (API_KEY_RATE_LIMIT); 0 = unlimited.
-- - last_used_at: written in batches, at most once per flush interval per key and process,
--   never by the request itself.
ALTER TABLE api_keys
  ADD COLUMN name text NOT NULL DEFAULT '',
  ADD COLUMN scopes text[] NOT NULL DEFAULT '{}',
  ADD COLUMN rate_limit integer,
  ADD COLUMN last_used_at timestamptz,
  ADD CONSTRAINT api_keys_scopes_known CHECK (scopes <@ ARRAY['READ_ONLY', 'NO_KEY_EXPORT']::text[]),
  ADD CONSTRAINT api_keys_rate_limit_range CHECK (rate_limit IS NULL OR rate_limit BETWEEN 0 AND 1000000),
  ADD CONSTRAINT api_keys_name_length CHECK (char_length(name) <= 100);

-- The business's own keys, newest first (GET /v1/api-keys, the dashboard, the CLI).
CREATE INDEX api_keys_business_keys ON api_keys (business_id, created_at DESC) WHERE wallet_id IS NULL;
