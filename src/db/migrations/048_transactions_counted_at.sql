-- When a payout last entered the velocity windows of transaction policies, if not at its
-- creation: a retried FAILED withdrawal is decided as a new payout (withdrawals/lifecycle.ts)
-- and counts in the windows from its retry on. Windowed by its creation time alone, a payout
-- that failed long ago and was retried now would fall outside the window at once, and the
-- next payout would be weighed without it.
ALTER TABLE transactions ADD COLUMN counted_at timestamptz;
