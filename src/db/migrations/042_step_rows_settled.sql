-- Sweeps and recoveries record the version of each step's transaction that settled (their
-- steps' outbound.settled handlers); rows written before kept the first version, which a
-- speed-up or a rebuild after expiry left 'replaced' without a receipt (read by the carrier
-- path of a later deposit's sweep, and at a Tron give-back). Each such step points at the
-- newest version of it that was not replaced, when there is one (a row voided before signing
-- has none and stays as it is).
DO $$
DECLARE
  t record;
BEGIN
  FOR t IN SELECT * FROM (VALUES
      ('sweeps', 'topup_outbound_id', 'sweep-topup'), ('sweeps', 'lend_outbound_id', 'sweep-lend'),
      ('sweeps', 'transfer_outbound_id', 'sweep'), ('sweeps', 'give_back_outbound_id', 'sweep-give-back'),
      ('salvages', 'topup_outbound_id', 'salvage-topup'), ('salvages', 'lend_outbound_id', 'salvage-lend'),
      ('salvages', 'transfer_outbound_id', 'salvage'), ('salvages', 'give_back_outbound_id', 'salvage-give-back'))
    AS v(tab, col, purpose)
  LOOP
    EXECUTE format(
      'UPDATE %1$I s
          SET %2$I = (SELECT x.id FROM outbound_txs x WHERE x.owner_id = s.id AND x.purpose = %3$L AND x.stage <> ''replaced''
                       ORDER BY x.created_at DESC, x.id DESC LIMIT 1)
        WHERE EXISTS (SELECT 1 FROM outbound_txs o WHERE o.id = s.%2$I AND o.stage = ''replaced'')
          AND EXISTS (SELECT 1 FROM outbound_txs x WHERE x.owner_id = s.id AND x.purpose = %3$L AND x.stage <> ''replaced'')',
      t.tab, t.col, t.purpose);
  END LOOP;
END $$;
