-- An API swap's plan keeps its receipt once final (plan.mined) with its block as one pointer
-- ({ number, hash }), as every receipt and an auto-settlement's swap plan have since migration
-- 034: swaps (036) had kept the block's number and hash as two flat fields. One layout, one
-- reader (outbound's minedRecord / minedOfRecord); a swap waiting at stage 'swapped' for its
-- settle job is read in the new layout after this runs.
UPDATE swaps
   SET plan = jsonb_set(plan #- '{mined,blockNumber}' #- '{mined,blockHash}', '{mined,block}',
                        jsonb_build_object('number', plan->'mined'->'blockNumber', 'hash', plan->'mined'->'blockHash'))
 WHERE plan ? 'mined' AND plan->'mined' ? 'blockHash';
