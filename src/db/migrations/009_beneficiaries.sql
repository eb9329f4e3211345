-- Beneficiaries: duplicates, the default, and scheduled settlement (docs/settlement.md).

-- One live beneficiary per address and wallet: a second POST of the same address is a 409,
-- and a deleted (soft) one does not block adding the address again.
CREATE UNIQUE INDEX beneficiaries_wallet_address ON beneficiaries (wallet_id, lower(address)) WHERE deleted_at IS NULL;
-- At most one default per wallet: setting a new default clears the old one in the same transaction.
CREATE UNIQUE INDEX beneficiaries_wallet_default ON beneficiaries (wallet_id) WHERE is_default AND deleted_at IS NULL;
-- Lists are newest first with a stable tie-break.
CREATE INDEX beneficiaries_wallet_created ON beneficiaries (wallet_id, created_at DESC, id DESC);

-- When the beneficiary's current settlement schedule began (it became a settlement
-- beneficiary, or changed frequency): only periods that end after it are settled, so a
-- DAILY beneficiary added at 14:00 is first settled at the next midnight (UTC), not at once
-- for the day before.
ALTER TABLE beneficiaries ADD COLUMN settlement_since timestamptz;
UPDATE beneficiaries SET settlement_since = updated_at WHERE is_settlement AND settlement_since IS NULL;
CREATE INDEX beneficiaries_settling ON beneficiaries (wallet_id) WHERE is_settlement AND is_active AND deleted_at IS NULL;

-- One row per settlement run. `period` names what the run settles: a closed UTC period
-- ('DAILY:2026-01-01', 'WEEKLY:2025-12-29', 'MONTHLY:2026-01', 'YEARLY:2026') or, for
-- INSTANT, the deposit that triggered it ('deposit:<id>'). The unique key makes a run happen
-- once per beneficiary and period, whatever the number of workers, ticks and restarts.
CREATE TABLE settlement_runs (
  id               uuid PRIMARY KEY,
  wallet_id        uuid NOT NULL REFERENCES wallets(id),
  beneficiary_id   uuid NOT NULL REFERENCES beneficiaries(id),
  period           text NOT NULL,
  -- pending: to run (or resume); done: withdrawals created; nothing: no balance to settle;
  -- failed: refused by a rule (insufficient gas, not whitelisted, ...), see error.
  status           text NOT NULL CHECK (status IN ('pending', 'done', 'nothing', 'failed')),
  -- Catalogue asset ids the run covers (INSTANT: the deposit's asset); NULL: every token
  -- enabled on the wallet when the run starts (scheduled runs).
  asset_ids        uuid[],
  -- The amounts decided before the withdrawal request, so a resumed run sends the same request
  -- (and is answered from its Idempotency-Key) instead of deciding anew.
  plan             jsonb,
  transaction_ids  uuid[] NOT NULL DEFAULT '{}',
  error            text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (beneficiary_id, period),
  -- A wallet settles a period once, whichever beneficiary is in force: handing over to
  -- another settlement beneficiary mid-period does not settle that period a second time.
  UNIQUE (wallet_id, period)
);
CREATE INDEX settlement_runs_pending ON settlement_runs (updated_at) WHERE status = 'pending';
