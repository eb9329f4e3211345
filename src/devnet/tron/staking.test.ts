// Stake 2.0 through tronweb: freezeBalanceV2, delegateResource (also locked),
// undelegateResource, and TRC-20 transfers paid with delegated energy instead of burned TRX.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TronStandIn } from './index.js';
import { MAINNET_LIKE_PARAMS as P } from './params.js';
import { fundedWallet, hexText, info, newWallet, post, sendToken, sendTrx, startForTest, tronWeb, type Wallet } from './testkit.js';

let s: TronStandIn;
beforeAll(async () => {
  s = await startForTest();
});
afterAll(async () => {
  await s?.stop();
});

async function signSend(w: Wallet, tx: any) {
  const tw = tronWeb(s);
  return tw.trx.sendRawTransaction(await tw.trx.sign(tx, w.privateKey));
}

/** EnergyProcessor.calculateGlobalEnergyLimitV2 with the stand-in's totals. */
async function expectedEnergyLimit(stakedSun: number): Promise<number> {
  const r = await post(s, 'wallet/getaccountresource', { address: s.faucet.hex });
  return Math.trunc((stakedSun / 1_000_000) * (P.totalEnergyLimit / r.TotalEnergyWeight));
}

describe('staking and delegation', () => {
  it('freezeBalanceV2 turns TRX into energy from the network totals; delegation lends it and undelegation takes it back', async () => {
    const tw = tronWeb(s);
    const master = await fundedWallet(s, 20_000_000_000, { USDT: 10_000_000n });
    const child = await fundedWallet(s, 1_000_000, { USDT: 5_000_000n });
    const weightBefore = (await post(s, 'wallet/getaccountresource', { address: master.hex })).TotalEnergyWeight;

    const freeze = await signSend(master, await tw.transactionBuilder.freezeBalanceV2(10_000_000_000, 'ENERGY', master.address));
    expect(freeze.result).toBe(true);
    await s.control.produceBlocks(1);
    const staked = await post(s, 'wallet/getaccount', { address: master.hex });
    expect(staked.balance).toBe(20_000_000_000 - 10_000_000_000);
    expect(staked.frozenV2).toEqual([{}, { type: 'ENERGY', amount: 10_000_000_000 }, { type: 'TRON_POWER' }]);
    const res = await tw.trx.getAccountResources(master.address);
    expect(res.TotalEnergyWeight).toBe(weightBefore + 10_000);
    expect(res.EnergyLimit).toBe(await expectedEnergyLimit(10_000_000_000));
    expect(res.EnergyLimit).toBeGreaterThan(90_000);

    // The receiver must exist, as on mainnet: delegating to a fresh address is refused.
    const nobody = newWallet();
    const refused = await signSend(
      master,
      await tw.transactionBuilder.delegateResource(1_000_000_000, nobody.address, 'ENERGY', master.address),
    );
    expect(hexText((refused as { message: string }).message)).toBe(`Contract validate error : Account[${nobody.hex}] not exists`);

    const max = (await post(s, 'wallet/getcandelegatedmaxsize', { owner_address: master.hex, type: 1 })).max_size;
    expect(max).toBe(10_000_000_000);
    const lend = await signSend(
      master,
      await tw.transactionBuilder.delegateResource(5_000_000_000, child.address, 'ENERGY', master.address),
    );
    expect(lend.result).toBe(true);
    await s.control.produceBlocks(1);
    const childRes = await tw.trx.getAccountResources(child.address);
    expect(childRes.EnergyLimit).toBe(await expectedEnergyLimit(5_000_000_000));
    expect(
      (await post(s, 'wallet/getaccount', { address: child.hex })).account_resource.acquired_delegated_frozenV2_balance_for_energy,
    ).toBe(5_000_000_000);
    expect(await post(s, 'wallet/getdelegatedresourcev2', { fromAddress: master.hex, toAddress: child.hex })).toEqual({
      delegatedResource: [{ from: master.hex, to: child.hex, frozen_balance_for_energy: 5_000_000_000 }],
    });
    expect(await post(s, 'wallet/getdelegatedresourceaccountindexv2', { value: master.hex })).toEqual({
      account: master.hex,
      toAccounts: [child.hex],
    });

    // The child's TRC-20 transfer burns no TRX for energy: it spends the lent energy.
    const before = (await post(s, 'wallet/getaccount', { address: child.hex })).balance;
    const r = await sendToken(s, child, s.tokens[0]!.address, newWallet().address, 1_000_000n, 10_000_000);
    await s.control.produceBlocks(1);
    const i = await info(s, r.txid);
    expect(i.receipt.result).toBe('SUCCESS');
    expect(i.receipt.energy_usage).toBe(i.receipt.energy_usage_total);
    expect(i.receipt.energy_fee ?? 0).toBe(0);
    expect((await post(s, 'wallet/getaccount', { address: child.hex })).balance).toBe(before - (i.fee ?? 0));
    // Usage starts to recover at once (24 h window, 3 s slots): a few units may be gone.
    const used = (await tw.trx.getAccountResources(child.address)).EnergyUsed;
    expect(used).toBeLessThanOrEqual(i.receipt.energy_usage_total);
    expect(used).toBeGreaterThan(i.receipt.energy_usage_total - 20);

    // Reclaim: the child has no energy left, the master has its stake back to delegate.
    const back = await signSend(
      master,
      await tw.transactionBuilder.undelegateResource(5_000_000_000, child.address, 'ENERGY', master.address),
    );
    expect(back.result).toBe(true);
    await s.control.produceBlocks(1);
    expect((await tw.trx.getAccountResources(child.address)).EnergyLimit ?? 0).toBe(0);
    expect(await post(s, 'wallet/getdelegatedresourcev2', { fromAddress: master.hex, toAddress: child.hex })).toEqual({});
    const afterAcc = await post(s, 'wallet/getaccount', { address: master.hex });
    expect(afterAcc.frozenV2[1]).toEqual({ type: 'ENERGY', amount: 10_000_000_000 });
    // The usage the child had made follows the stake back to the master.
    expect((await tw.trx.getAccountResources(master.address)).EnergyUsed).toBeGreaterThan(0);

    // Without energy the next transfer burns TRX again.
    const r2 = await sendToken(s, child, s.tokens[0]!.address, newWallet().address, 1n, 10_000_000);
    await s.control.produceBlocks(1);
    expect((await info(s, r2.txid)).receipt.energy_fee).toBeGreaterThan(0);
  });

  it('a locked delegation cannot be taken back before its lock ends', async () => {
    const tw = tronWeb(s);
    const master = await fundedWallet(s, 5_000_000_000);
    const child = await fundedWallet(s, 1_000_000);
    await signSend(master, await tw.transactionBuilder.freezeBalanceV2(2_000_000_000, 'ENERGY', master.address));
    await s.control.produceBlocks(1);
    const lend = await signSend(
      master,
      await tw.transactionBuilder.delegateResource(1_000_000_000, child.address, 'ENERGY', master.address, true, 100),
    );
    expect(lend.result).toBe(true);
    await s.control.produceBlocks(1);
    const d = await post(s, 'wallet/getdelegatedresourcev2', { fromAddress: master.hex, toAddress: child.hex });
    expect(d.delegatedResource[0].frozen_balance_for_energy).toBe(1_000_000_000);
    expect(d.delegatedResource[0].expire_time_for_energy).toBeGreaterThan(0);
    const early = await signSend(
      master,
      await tw.transactionBuilder.undelegateResource(1_000_000_000, child.address, 'ENERGY', master.address),
    );
    expect(hexText((early as { message: string }).message)).toBe(
      'Contract validate error : insufficient delegateFrozenBalance(Energy), request=1000000000, unlock_balance=0',
    );
    await s.control.advanceTime(100 * 3_000 + 3_000);
    await s.control.produceBlocks(1);
    expect(
      (await signSend(master, await tw.transactionBuilder.undelegateResource(1_000_000_000, child.address, 'ENERGY', master.address)))
        .result,
    ).toBe(true);
  });

  it('unfreezeBalanceV2 waits 14 days before withdrawExpireUnfreeze pays out', async () => {
    const tw = tronWeb(s);
    const w = await fundedWallet(s, 3_000_000_000);
    await signSend(w, await tw.transactionBuilder.freezeBalanceV2(2_000_000_000, 'BANDWIDTH', w.address));
    await s.control.produceBlocks(1);
    expect((await tw.trx.getAccountResources(w.address)).NetLimit).toBeGreaterThan(0);
    await signSend(w, await tw.transactionBuilder.unfreezeBalanceV2(500_000_000, 'BANDWIDTH', w.address));
    await s.control.produceBlocks(1);
    const acc = await post(s, 'wallet/getaccount', { address: w.hex });
    expect(acc.unfrozenV2).toHaveLength(1);
    expect(acc.unfrozenV2[0].unfreeze_amount).toBe(500_000_000);
    const early = await signSend(w, await tw.transactionBuilder.withdrawExpireUnfreeze(w.address));
    expect(hexText((early as { message: string }).message)).toBe('Contract validate error : no unFreeze balance to withdraw ');
    await s.control.advanceTime(14 * 86_400_000);
    await s.control.produceBlocks(1);
    const before = (await post(s, 'wallet/getaccount', { address: w.hex })).balance;
    const r = await signSend(w, await tw.transactionBuilder.withdrawExpireUnfreeze(w.address));
    await s.control.produceBlocks(1);
    const i = await info(s, r.txid);
    expect(i.withdraw_expire_amount).toBe(500_000_000);
    expect((await post(s, 'wallet/getaccount', { address: w.hex })).balance).toBe(before + 500_000_000 - (i.fee ?? 0));
  });

  it('staked bandwidth pays for transfers before the free allowance', async () => {
    const tw = tronWeb(s);
    const w = await fundedWallet(s, 2_000_000_000);
    await signSend(w, await tw.transactionBuilder.freezeBalanceV2(1_000_000_000, 'BANDWIDTH', w.address));
    await s.control.produceBlocks(1);
    const freeBefore = (await tw.trx.getAccountResources(w.address)).freeNetUsed ?? 0;
    const r = await sendTrx(s, w, s.faucet.address, 1_000_000);
    await s.control.produceBlocks(1);
    const i = await info(s, r.txid);
    expect(i.fee ?? 0).toBe(0);
    const res = await tw.trx.getAccountResources(w.address);
    expect(res.NetUsed).toBe(i.receipt.net_usage);
    expect(res.freeNetUsed ?? 0).toBeLessThanOrEqual(freeBefore);
  });
});

describe('cancelling unstakes (cancelallunfreezev2)', () => {
  it('puts pending unstakes back into their stake and pays out the ones already unlocked', async () => {
    const tw = tronWeb(s);
    const w = await fundedWallet(s, 5_000_000_000);
    await signSend(w, await tw.transactionBuilder.freezeBalanceV2(3_000_000_000, 'ENERGY', w.address));
    await signSend(w, await tw.transactionBuilder.freezeBalanceV2(1_000_000_000, 'BANDWIDTH', w.address));
    await s.control.produceBlocks(1);
    const weight = (await post(s, 'wallet/getaccountresource', { address: w.hex })).TotalEnergyWeight;
    // One unstake that unlocks before the cancel, and two that are still locking (an unstake
    // pays out the matured ones first, so the later two are made before the first matures).
    await signSend(w, await tw.transactionBuilder.unfreezeBalanceV2(400_000_000, 'ENERGY', w.address));
    await s.control.produceBlocks(1);
    await s.control.advanceTime(10 * 86_400_000);
    await s.control.produceBlocks(1);
    await signSend(w, await tw.transactionBuilder.unfreezeBalanceV2(600_000_000, 'ENERGY', w.address));
    await signSend(w, await tw.transactionBuilder.unfreezeBalanceV2(250_000_000, 'BANDWIDTH', w.address));
    await s.control.produceBlocks(1);
    await s.control.advanceTime(4 * 86_400_000);
    await s.control.produceBlocks(1);
    const before = await post(s, 'wallet/getaccount', { address: w.hex });
    expect(before.unfrozenV2).toHaveLength(3);
    expect((await post(s, 'wallet/getaccountresource', { address: w.hex })).TotalEnergyWeight).toBe(weight - 1_000);

    // java-tron's HTTP builder, as a client without tronweb's helper calls it.
    const built = await post(s, 'wallet/cancelallunfreezev2', { owner_address: w.hex });
    expect(built.raw_data.contract[0].type).toBe('CancelAllUnfreezeV2Contract');
    const r = await signSend(w, await tw.transactionBuilder.cancelUnfreezeBalanceV2(w.address));
    expect(r.result).toBe(true);
    await s.control.produceBlocks(1);
    const i = await info(s, r.txid);
    expect(i.withdraw_expire_amount).toBe(400_000_000);
    expect(i.cancel_unfreezeV2_amount).toEqual([
      { key: 'BANDWIDTH', value: 250_000_000 },
      { key: 'ENERGY', value: 600_000_000 },
      { key: 'TRON_POWER' },
    ]);
    const after = await post(s, 'wallet/getaccount', { address: w.hex });
    expect(after.unfrozenV2).toBeUndefined();
    expect(after.frozenV2).toEqual([{ amount: 1_000_000_000 }, { type: 'ENERGY', amount: 2_600_000_000 }, { type: 'TRON_POWER' }]);
    expect(after.balance).toBe(before.balance + 400_000_000 - (i.fee ?? 0));
    expect((await post(s, 'wallet/getaccountresource', { address: w.hex })).TotalEnergyWeight).toBe(weight - 400);

    // Nothing left to cancel: java-tron's refusal.
    const again = await signSend(w, await tw.transactionBuilder.cancelUnfreezeBalanceV2(w.address));
    expect(hexText((again as { message: string }).message)).toBe('Contract validate error : No unfreezeV2 list to cancel');
  });
});
