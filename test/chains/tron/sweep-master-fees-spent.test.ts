/**
 * A Tron sweep with energy lent holds at the master what its own steps burn (sweeps.master_fee:
 * the lend's and the give-back's bandwidth, a top-up's fee) while it is in flight. Once the lend
 * is mined, a balance read shows its fee paid; holding it still counted it twice, and a payout
 * of the master's TRX that leaves the give-back's fee was refused (422) until the sweep ended.
 * The top-up's and the lend's parts (migration 057) are let go once that step is mined before
 * the balance read. The worker is off: each row is driven by hand.
 */
import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { masterFeeKit, stakedMasterWorld } from './master-fee-kit.js';

const w = stakedMasterWorld('tron-sweep-master-fees-spent', 990_353);

const {
  base,
  trxOf,
  settle,
  ownRows: sweepRows,
  drive,
  payout,
  payoutFee,
  spendMasterFreeBandwidth,
  childWithDeposit,
  sweepOf,
} = masterFeeKit(() => w);

describe("a Tron sweep's fees at the master, once spent", () => {
  it("the lend mined (its bandwidth burned, the balance shows it): only the give-back's fee is still held", async () => {
    await spendMasterFreeBandwidth();
    const deposit = await childWithDeposit();
    const swept = await w.h.api('POST', `${base()}/transactions/sweep/assets`, { key: w.wallet.apiKey, body: { transactionId: deposit } });
    expect(swept.status, JSON.stringify(swept.body)).toBe(200);
    const sweep = (await sweepOf(deposit))!;
    const { rows } = await sql<{ master_fee: string }>`SELECT master_fee::text FROM sweeps WHERE id = ${sweep}`.execute(w.h.database.db);
    const masterFee = BigInt(rows[0]!.master_fee);
    // The lend and the transfer mined; the give-back not sent yet.
    const [lendRow] = await sweepRows(sweep);
    expect((await settle(lendRow!.id)).stage).toBe('mined');
    const transferRow = (await sweepRows(sweep)).find((r) => r.purpose === 'sweep')!;
    expect((await settle(transferRow.id)).stage).toBe('mined');
    expect((await sweepRows(sweep)).map((r) => [r.purpose, r.stage])).toEqual([
      ['sweep-lend', 'mined'],
      ['sweep', 'mined'],
      ['sweep-give-back', 'created'],
    ]);
    // All the master's TRX but the payout's fee and the give-back's (half the two steps' fees, and a margin).
    const balance = await trxOf(w.wallet.address);
    const amount = balance - (await payoutFee(balance)) - masterFee / 2n - 50_000n;
    const ok = await payout(amount);
    expect(ok.status, `${masterFee} ${JSON.stringify(ok.body)}`).toBe(200);
    await drive(sweep);
    await drive(ok.body.data.id);
    expect((await sweepRows(sweep)).map((r) => r.stage)).toEqual(['mined', 'mined', 'mined']);
  }, 240_000);
});
