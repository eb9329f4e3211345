-- A migration may change the table's rows.
UPDATE transactions SET stage = 'created' WHERE stage IS NULL;
