-- Dashboard sign-in, round two (issue 24, item 3): known devices, and the notice shown after
-- a sign-in that failed attempts came before.
--
-- A browser that signed in to an account gets a long-lived random device cookie; only its
-- SHA-256 is stored, per account (one browser may know several accounts). A sign-in attempt
-- carrying a known device of the account is throttled by that device's own failures only, so
-- strangers guessing the account's password cannot delay its owner's known browsers.
CREATE TABLE dashboard_devices (
  token_hash    bytea NOT NULL,
  user_id       uuid NOT NULL REFERENCES dashboard_users(id) ON DELETE CASCADE,
  created_at    timestamptz NOT NULL,
  last_used_at  timestamptz NOT NULL,
  PRIMARY KEY (token_hash, user_id)
);
CREATE INDEX dashboard_devices_user ON dashboard_devices (user_id, last_used_at);

-- The failed attempts since the user's previous sign-in, computed at sign-in from the audit
-- log and shown as a banner on every page of the session until dismissed (null: none).
ALTER TABLE dashboard_sessions ADD COLUMN notice jsonb;

-- Audit entries of one target (a dashboard user's sign-ins), newest first.
CREATE INDEX audit_log_target ON audit_log (target_id, action, created_at DESC) WHERE target_id IS NOT NULL;
