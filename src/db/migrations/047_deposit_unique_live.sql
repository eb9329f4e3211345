-- One live record per (chain, transaction, log, wallet): a FAILED deposit (reorged away, or
-- its transfer gone from its transaction, executed again differently in its new block) no
-- longer holds its position, so the transfer now at that position is recorded (the insert's
-- ON CONFLICT DO NOTHING skipped it before), and a record that follows its transfer to
-- another position moves past a failed one (deposits/record.ts applyMoves).
DROP INDEX transactions_deposit_unique_wallet;
CREATE UNIQUE INDEX transactions_deposit_unique_wallet ON transactions (chain_id, hash, log_index, wallet_id)
  WHERE type = 'DEPOSIT' AND status <> 'FAILED';
