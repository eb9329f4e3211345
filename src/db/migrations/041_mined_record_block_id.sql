-- A swap's mined transaction, kept in swaps.plan.mined until the swap settles
-- (modules/outbound/service.ts MinedRecord), names its block's id `blockId` instead of
-- `blockHash` (issue 25: shared modules speak no family's words). Swaps mined and not yet
-- settled when this runs are rewritten here, so the settling job reads them as before.
UPDATE swaps
   SET plan = jsonb_set(plan, '{mined}', ((plan -> 'mined') - 'blockHash') || jsonb_build_object('blockId', plan -> 'mined' -> 'blockHash'))
 WHERE plan -> 'mined' ? 'blockHash';
