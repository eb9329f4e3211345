-- Dashboard users and their sessions. A dashboard user belongs to one business and sees
-- only that business's wallets; the dashboard acts with the business's authority.

CREATE TABLE dashboard_users (
  id             uuid PRIMARY KEY,
  business_id    uuid NOT NULL REFERENCES businesses(id),
  -- Stored as typed; compared and kept unique case-insensitively.
  email          text NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
  -- Self-describing scrypt hash: scrypt$<log2 N>$<r>$<p>$<salt b64>$<hash b64>.
  password_hash  text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX dashboard_users_email ON dashboard_users (lower(email));
CREATE INDEX dashboard_users_business ON dashboard_users (business_id);

-- The cookie carries a random id; only its SHA-256 is stored, so a read of this table
-- does not hand out live sessions.
CREATE TABLE dashboard_sessions (
  id_hash     bytea PRIMARY KEY,
  user_id     uuid NOT NULL REFERENCES dashboard_users(id) ON DELETE CASCADE,
  csrf_token  text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);
CREATE INDEX dashboard_sessions_user ON dashboard_sessions (user_id);
CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions (expires_at);

-- Failed logins, counted per email and per client address over a window to slow down
-- password guessing on every replica alike (an in-process counter would not be shared).
CREATE TABLE dashboard_login_failures (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  email_lower  text NOT NULL,
  ip           text NOT NULL,
  at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dashboard_login_failures_email ON dashboard_login_failures (email_lower, at);
CREATE INDEX dashboard_login_failures_ip ON dashboard_login_failures (ip, at);
