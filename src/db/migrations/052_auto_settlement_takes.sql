-- Deposits an auto-settlement rule may take whose take has not run yet. The confirming
-- transaction (or the sweep's, for a swept deposit) only queues the job that looks the
-- deposit's rule up and writes its auto-settlement (auto_settle_deposits, auto_settle_swept);
-- until that job has run, the deposit's money at the master is not the settlement
-- beneficiary's to move. A row is written with the job, for deposits that reach the master of
-- a wallet with rules, and removed by the job (whether a rule took the deposit or not).
CREATE TABLE auto_settlement_takes (
  deposit_id uuid PRIMARY KEY REFERENCES transactions(id),
  wallet_id  uuid NOT NULL REFERENCES wallets(id),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX auto_settlement_takes_wallet ON auto_settlement_takes (wallet_id);
