-- A deposit a reorganisation failed and that was found again (re-mined: deposits/record.ts
-- applyMoves, PENDING once more, then SUCCESS) kept the reason it had failed with, so a
-- credited deposit said "The block holding this deposit was replaced" in the API and in its
-- deposit.processing and deposit.success webhooks. relocateDeposit now clears it; this clears
-- what it left on live deposits. Only the indexer's two reorganisation reasons are cleared
-- (the only reasons a deposit is given, besides the FAILED records of migration 012).
UPDATE transactions SET reason = NULL
 WHERE type = 'DEPOSIT' AND status <> 'FAILED'
   AND reason IN ('The block holding this deposit was replaced (chain reorganisation)',
                  'Its transfer is no longer in the transaction, executed again in another block (chain reorganisation)');
