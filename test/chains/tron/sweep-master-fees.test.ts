/**
 * A Tron sweep with energy lent costs the master two small transactions of its own: the lend
 * (delegateresource) and the give-back (undelegateresource), their bandwidth burned once the
 * master's free bytes of the day are spent. Those fees are the master's spends, as a top-up
 * is: a payout of all the master's TRX accepted while such a sweep is under way must leave
 * them, and a sweep planned beside such a payout must not be started. Otherwise one of the
 * two is refused on chain (java-tron: no TRX for the bytes, or balance is not sufficient)
 * and waits, unsent, until the master is refilled: the payout PENDING, or the loan out.
 * The worker is off: each row is driven by hand.
 */
import { describe, expect, it } from 'vitest';
import { masterFeeKit, stakedMasterWorld } from './master-fee-kit.js';

const w = stakedMasterWorld('tron-sweep-master-fees', 990_315);

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

describe("a Tron sweep's lend and give-back fees at the master", () => {
  it('a payout of all the TRX accepted while the sweep is under way leaves them: both are made', async () => {
    await spendMasterFreeBandwidth();
    const deposit = await childWithDeposit();
    const swept = await w.h.api('POST', `${base()}/transactions/sweep/assets`, { key: w.wallet.apiKey, body: { transactionId: deposit } });
    expect(swept.status, JSON.stringify(swept.body)).toBe(200);
    const sweep = (await sweepOf(deposit))!;
    expect((await sweepRows(sweep)).map((r) => r.purpose)).toEqual(['sweep-lend']);

    // Everything the master holds but the payout's own fee: refused, the sweep's fees are held.
    const balance = await trxOf(w.wallet.address);
    const all = balance - (await payoutFee(balance));
    const res = await payout(all);
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error, JSON.stringify(res.body)).toBe('INSUFFICIENT_BALANCE');

    // What the lend and the give-back may burn (a few hundred bytes each) less: accepted, and both made.
    const fits = all - 1_000_000n;
    const ok = await payout(fits);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    await drive(sweep);
    await drive(ok.body.data.id);
    await drive(sweep);
    expect((await sweepRows(sweep)).map((r) => [r.purpose, r.stage])).toEqual([
      ['sweep-lend', 'mined'],
      ['sweep', 'mined'],
      ['sweep-give-back', 'mined'],
    ]);
    const paid = (await w.h.api('GET', `${base()}/transactions/${ok.body.data.id}`, { key: w.wallet.apiKey })).body.data;
    expect(paid.status).toBe('SUCCESS');
  }, 240_000);

  it('a sweep asked for beside a pending payout of all the TRX is refused: the payout is made', async () => {
    await spendMasterFreeBandwidth();
    const deposit = await childWithDeposit();
    const balance = await trxOf(w.wallet.address);
    const all = balance - (await payoutFee(balance));
    const res = await payout(all);
    expect(res.status, JSON.stringify(res.body)).toBe(200);

    // The sweep would lend energy: the lend and the give-back burn the master's TRX the payout holds.
    const swept = await w.h.api('POST', `${base()}/transactions/sweep/assets`, { key: w.wallet.apiKey, body: { transactionId: deposit } });
    expect(swept.status, JSON.stringify(swept.body)).toBe(422);
    expect(swept.body.error, JSON.stringify(swept.body)).toBe('INSUFFICIENT_BALANCE');
    expect(await sweepOf(deposit)).toBeNull();

    await drive(res.body.data.id);
    const paid = (await w.h.api('GET', `${base()}/transactions/${res.body.data.id}`, { key: w.wallet.apiKey })).body.data;
    expect(paid.status).toBe('SUCCESS');
  }, 240_000);
});
