-- Transaction policies, approvals, a hash-chained audit log, and dashboard users with roles,
-- invitations and TOTP two-factor sign-in (issue 31; docs/policies.md, docs/dashboard.md).

-- Policies: rules per business, optionally per wallet or sending address, evaluated in
-- ascending `priority` (ties: oldest first); the first whose conditions all match decides.
CREATE TABLE policies (
  id           uuid PRIMARY KEY,
  business_id  uuid NOT NULL REFERENCES businesses(id),
  wallet_id    uuid REFERENCES wallets(id),
  address_id   uuid REFERENCES addresses(id),
  name         text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  priority     integer NOT NULL CHECK (priority BETWEEN 0 AND 1000000),
  is_active    boolean NOT NULL DEFAULT true,
  -- What the rule matches on (modules/policies/rules.ts, Conditions): types, assets, amount,
  -- velocity, destination, initiators. Empty: everything.
  conditions   jsonb NOT NULL DEFAULT '{}'::jsonb,
  action       text NOT NULL CHECK (action IN ('ALLOW', 'BLOCK', 'REQUIRE_APPROVAL')),
  -- REQUIRE_APPROVAL only: approvers (roles, users, API keys), quorum, time to live.
  approval     jsonb,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  deleted_at   timestamptz,
  CHECK ((action = 'REQUIRE_APPROVAL') = (approval IS NOT NULL)),
  CHECK (address_id IS NULL OR wallet_id IS NOT NULL)
);
CREATE INDEX policies_business ON policies (business_id, priority, id) WHERE deleted_at IS NULL;

-- A payout waiting for approval: PENDING_APPROVAL, nothing signed, its amount held back
-- (withdrawals' funds check counts it like a PENDING one).
ALTER TABLE transactions DROP CONSTRAINT transactions_status_check;
ALTER TABLE transactions ADD CONSTRAINT transactions_status_check
  CHECK (status IN ('PENDING', 'PENDING_APPROVAL', 'SUCCESS', 'FAILED', 'CANCELLED'));
DROP INDEX transactions_spending_pending;
CREATE INDEX transactions_spending_pending ON transactions (chain_id, sender_address)
  WHERE type IN ('WITHDRAW', 'SWAP', 'AUTO_SETTLEMENT', 'CUSTOM_SMART_CONTRACT') AND status IN ('PENDING', 'PENDING_APPROVAL');
-- Velocity per destination (policies' rolling windows).
CREATE INDEX transactions_recipient_created ON transactions (lower(recipient_address), created_at)
  WHERE type IN ('WITHDRAW', 'SIGNED', 'AUTO_SETTLEMENT', 'SWAP', 'CUSTOM_SMART_CONTRACT');

-- One approval request per transaction that a REQUIRE_APPROVAL rule held back. The rule's
-- approvers, quorum and expiry are copied in: editing or deleting the rule later does not
-- change a request already open.
CREATE TABLE approvals (
  id              uuid PRIMARY KEY,
  business_id     uuid NOT NULL REFERENCES businesses(id),
  wallet_id       uuid NOT NULL REFERENCES wallets(id),
  transaction_id  uuid NOT NULL UNIQUE REFERENCES transactions(id),
  policy_id       uuid NOT NULL REFERENCES policies(id),
  policy_name     text NOT NULL,
  approvers       jsonb NOT NULL,
  quorum          integer NOT NULL CHECK (quorum BETWEEN 1 AND 20),
  -- Who asked: 'key:<api key id>' or 'user:<dashboard user id>'; never an approver of it.
  initiator       text NOT NULL,
  initiator_label text NOT NULL,
  status          text NOT NULL CHECK (status IN ('PENDING', 'APPROVED', 'REJECTED', 'EXPIRED', 'CANCELLED')),
  reason          text,
  expires_at      timestamptz NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  decided_at      timestamptz
);
CREATE INDEX approvals_business ON approvals (business_id, created_at DESC, id DESC);
CREATE INDEX approvals_due ON approvals (expires_at) WHERE status = 'PENDING';

-- One vote per approver and request: the primary key is what makes approvers distinct.
CREATE TABLE approval_votes (
  approval_id  uuid NOT NULL REFERENCES approvals(id),
  voter        text NOT NULL,
  voter_label  text NOT NULL,
  decision     text NOT NULL CHECK (decision IN ('APPROVE', 'REJECT', 'OVERRIDE')),
  comment      text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (approval_id, voter)
);

-- The audit log becomes a hash chain: `seq` orders it, each entry's `hash` is the SHA-256 of
-- its content and the previous entry's hash (`prev_hash`), computed by the application
-- (modules/audit/chain.ts) under one advisory lock, so the verify command can recompute it
-- without trusting anything stored in the database. Entries written before this migration
-- are chained by the first append after it (in their order).
ALTER TABLE audit_log ADD COLUMN seq bigint;
UPDATE audit_log a SET seq = o.n
  FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM audit_log) o WHERE o.id = a.id;
CREATE SEQUENCE audit_log_seq OWNED BY audit_log.seq;
SELECT setval('audit_log_seq', coalesce((SELECT max(seq) FROM audit_log), 0) + 1, false);
ALTER TABLE audit_log ALTER COLUMN seq SET DEFAULT nextval('audit_log_seq'), ALTER COLUMN seq SET NOT NULL;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_seq_key UNIQUE (seq);
ALTER TABLE audit_log ADD COLUMN prev_hash text, ADD COLUMN hash text;
CREATE INDEX audit_log_unchained ON audit_log (seq) WHERE hash IS NULL;
CREATE INDEX audit_log_business ON audit_log (business_id, seq DESC);

-- Append-only: no UPDATE, DELETE or TRUNCATE, except the one write that chains an entry
-- written before the chain existed (its hashes set once, nothing else changed).
CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.hash IS NULL AND NEW.hash IS NOT NULL
     AND (NEW.id, NEW.seq, NEW.business_id, NEW.wallet_id, NEW.actor, NEW.action, NEW.target_type, NEW.target_id,
          NEW.details, NEW.request_id, NEW.created_at)
         IS NOT DISTINCT FROM
         (OLD.id, OLD.seq, OLD.business_id, OLD.wallet_id, OLD.actor, OLD.action, OLD.target_type, OLD.target_id,
          OLD.details, OLD.request_id, OLD.created_at) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'audit_log is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();

-- Dashboard users get a role; users made before roles existed acted with the whole
-- business's authority, so they are owners.
ALTER TABLE dashboard_users
  ADD COLUMN role text NOT NULL DEFAULT 'owner' CHECK (role IN ('owner', 'admin', 'approver', 'developer', 'viewer')),
  -- TOTP (RFC 6238): the secret sealed by the key vault (keys/sealed-columns.ts), set when
  -- enrolment starts and live once a first code confirms it (totp_enabled_at).
  ADD COLUMN totp_secret_sealed bytea,
  ADD COLUMN totp_enabled_at timestamptz,
  -- The last time step a code was accepted for: a code is good once.
  ADD COLUMN totp_last_step bigint,
  ADD COLUMN disabled_at timestamptz;

-- A session is 'full' once every factor the user needs is given: 'totp' waits for the
-- second factor, 'enrol' for a user whose role requires TOTP and who has none yet.
ALTER TABLE dashboard_sessions
  ADD COLUMN stage text NOT NULL DEFAULT 'full' CHECK (stage IN ('full', 'totp', 'enrol')),
  ADD COLUMN two_factor boolean NOT NULL DEFAULT false;

-- Invitations: a random token (only its SHA-256 is stored) that lets one person set a
-- password and join the business with the role given.
CREATE TABLE dashboard_invitations (
  id           uuid PRIMARY KEY,
  business_id  uuid NOT NULL REFERENCES businesses(id),
  email        text NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
  role         text NOT NULL CHECK (role IN ('owner', 'admin', 'approver', 'developer', 'viewer')),
  token_hash   bytea NOT NULL UNIQUE,
  invited_by   uuid REFERENCES dashboard_users(id),
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  accepted_at  timestamptz,
  revoked_at   timestamptz
);
CREATE INDEX dashboard_invitations_business ON dashboard_invitations (business_id, created_at DESC);

-- API keys gain two grants beside their restrictions: APPROVE (vote on approvals) and
-- MANAGE_POLICIES (create, change, delete policies). Granted only by the operator (CLI).
ALTER TABLE api_keys DROP CONSTRAINT api_keys_scopes_known;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_scopes_known
  CHECK (scopes <@ ARRAY['READ_ONLY', 'NO_KEY_EXPORT', 'APPROVE', 'MANAGE_POLICIES']::text[]);
