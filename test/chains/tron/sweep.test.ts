/**
 * Sweeps on Tron with resources, end to end through HTTP and the worker, on the java-tron
 * stand-in: USDT deposits to fresh (never activated) child addresses swept to the master
 * with energy lent from the master's stake (delegateresource, then undelegateresource once
 * the transfer settled) or with TRX burned (sweepFunding 'burn'); the child activated once;
 * the sweep's cost, energy and bandwidth on the deposit and in deposit.swept.success.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { account, post, sendToken, tokenBalance } from '../../../src/devnet/tron/testkit.js';
import { expireTransferOnceLent } from './expiry.js';
import { verifyWebhook } from '../../../packages/sdk/src/webhooks/index.js';
import { startReceiver, type Receiver } from '../../support/receiver.js';
import { eventually } from '../../support/fixtures.js';
import {
  deposit,
  feeOf,
  hex,
  newChild,
  startSweepWorld,
  stakeForEnergy,
  swept,
  sweepRows,
  units,
  type SweepWorld,
  type TronWallet,
} from './sweep-world.js';

let w: SweepWorld;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  w = await startSweepWorld({ webhookUrl: receiver.url });
  await stakeForEnergy(w, w.lending, 10_000_000_000); // 10,000 TRX staked for energy
}, 90_000);

afterAll(async () => {
  await w?.stop();
  await receiver?.close();
});

async function sweptEvent(wallet: TronWallet, id: string) {
  const read = async () =>
    receiver.requests
      .filter((r) => r.body.includes(id))
      .map((r) => verifyWebhook<Record<string, any>>({ body: r.body, headers: r.headers, apiKey: wallet.apiKey, replay: false }))
      .filter((e) => e.event === 'deposit.swept.success' && e.data.id === id);
  return (await eventually(read, (list) => list.length >= 1, 20_000))[0]!;
}

/** The sum of what the stand-in charged for each of the sweep's transactions. */
async function chargedFor(rows: { hash: string | null }[]) {
  let fee = 0n;
  for (const r of rows) fee += (await feeOf(w, r.hash!)).fee;
  return fee;
}

describe('a USDT sweep with energy lent from the master stake', () => {
  it('activates the fresh child once, lends energy, sweeps, takes the energy back; fee, energy and bandwidth recorded', async () => {
    const wallet = w.lending;
    const child = await newChild(w, wallet);
    const masterUsdt = await tokenBalance(w.s, w.usdt, wallet.address);
    const masterBefore = await account(w.s, hex(wallet.address));
    const id = await deposit(w, wallet, child.address, 7_654_321n);
    // A child that only received a TRC-20 is no account on Tron.
    expect(await account(w.s, hex(child.address))).toEqual(expect.not.objectContaining({ address: expect.anything() }));

    const done = await swept(w, wallet, id);
    expect(done.assetSwept, JSON.stringify(done.assetSweptResponse)).toBe(true);
    const rows = await sweepRows(w, id);
    expect(rows.map((r) => [r.purpose, r.stage])).toEqual([
      ['sweep-topup', 'mined'], // activation
      ['sweep-lend', 'mined'],
      ['sweep', 'mined'],
      ['sweep-give-back', 'mined'],
    ]);
    const [activation, lend, transfer, giveBack] = rows;
    expect(activation!.from_address).toBe(wallet.address);
    expect(transfer!.from_address).toBe(child.address);

    // Exactly the deposit reached the master; the child holds none.
    expect(await tokenBalance(w.s, w.usdt, wallet.address)).toBe(masterUsdt + 7_654_321n);
    expect(await tokenBalance(w.s, w.usdt, child.address)).toBe(0n);

    // The transfer burned no TRX for energy: the lent energy paid it.
    const t = await feeOf(w, transfer!.hash!);
    expect(t.result).toBe('SUCCESS');
    expect(t.energy).toBeGreaterThan(5_000n);
    expect(t.energyFee).toBe(0n);

    // Lent, then taken back: nothing is delegated any more, the stake is whole again.
    const lendTx = await post(w.s, 'wallet/gettransactionbyid', { value: lend!.hash });
    expect(lendTx.raw_data.contract[0].type).toBe('DelegateResourceContract');
    const backTx = await post(w.s, 'wallet/gettransactionbyid', { value: giveBack!.hash });
    expect(backTx.raw_data.contract[0].type).toBe('UnDelegateResourceContract');
    expect(backTx.raw_data.contract[0].parameter.value.balance).toBe(lendTx.raw_data.contract[0].parameter.value.balance);
    expect(await post(w.s, 'wallet/getdelegatedresourcev2', { fromAddress: hex(wallet.address), toAddress: hex(child.address) })).toEqual(
      {},
    );
    const masterAfter = await account(w.s, hex(wallet.address));
    expect(masterAfter.account_resource?.delegated_frozenV2_balance_for_energy ?? 0).toBe(0);
    expect(masterAfter.frozenV2).toEqual(masterBefore.frozenV2);
    const childResources = await post(w.s, 'wallet/getaccountresource', { address: hex(child.address) });
    expect(childResources.EnergyLimit ?? 0).toBe(0);

    // The cost: every transaction's fee, in TRX; the energy and bandwidth the sweep used.
    const charged = await chargedFor(rows);
    expect(units(done.assetSweptGasFee)).toBe(charged);
    expect(BigInt(masterAfter.balance)).toBe(BigInt(masterBefore.balance) - charged - 1n); // 1 sun activated the child
    expect(done.assetSweptResponse).toMatchObject({
      status: 'success',
      energyUsed: t.energy.toString(),
      lendHash: lend!.hash,
      giveBackHash: giveBack!.hash,
      topupHash: activation!.hash,
    });
    expect(BigInt(done.assetSweptResponse.bandwidthUsed)).toBeGreaterThan(4n * 260n);
    expect(done.assetSweptHash).toBe(transfer!.hash);

    const event = await sweptEvent(wallet, id);
    expect(event.data).toMatchObject({
      assetSwept: true,
      assetSweptGasFee: done.assetSweptGasFee,
      assetSweptResponse: { energyUsed: t.energy.toString(), bandwidthUsed: done.assetSweptResponse.bandwidthUsed },
    });

    // A second deposit to the same (now active) child: no activation again. Its free
    // bandwidth (600 bytes a day) has 256 bytes left, less than the transfer's 345: the master
    // sends exactly the TRX those bytes burn, then lends the energy again.
    const second = await deposit(w, wallet, child.address, 1_000_000n);
    const again = await swept(w, wallet, second);
    expect(again.assetSwept).toBe(true);
    const secondRows = await sweepRows(w, second);
    expect(secondRows.map((r) => r.purpose)).toEqual(['sweep-topup', 'sweep-lend', 'sweep', 'sweep-give-back']);
    expect((await feeOf(w, secondRows[0]!.hash!)).fee).toBeLessThan(1_000_000n); // no creation fee
    const burned = await feeOf(w, secondRows[2]!.hash!);
    expect(burned.energyFee).toBe(0n);
    // The child had 1 sun (its activation): the top-up is the rest of the bytes' price, and all of it burned.
    expect(BigInt(secondRows[0]!.value) + 1n).toBe(burned.fee);
    expect(await account(w.s, hex(child.address))).toEqual(expect.not.objectContaining({ balance: expect.anything() }));

    // A day later the free bandwidth is back: only the loan.
    await w.s.control.advanceTime(86_400_000);
    await w.s.control.produceBlocks(1);
    const third = await deposit(w, wallet, child.address, 2_000_000n);
    expect((await swept(w, wallet, third)).assetSwept).toBe(true);
    expect((await sweepRows(w, third)).map((r) => r.purpose)).toEqual(['sweep-lend', 'sweep', 'sweep-give-back']);
    expect(await tokenBalance(w.s, w.usdt, wallet.address)).toBe(masterUsdt + 10_654_321n);
    expect(await tokenBalance(w.s, w.usdt, child.address)).toBe(0n);
  }, 120_000);
});

describe('a USDT sweep burning TRX (sweepFunding burn)', () => {
  it('sends the child the TRX its transfer burns (activating it), then sweeps; the fee is what both cost', async () => {
    const wallet = w.burning;
    const child = await newChild(w, wallet);
    const masterUsdt = await tokenBalance(w.s, w.usdt, wallet.address);
    const id = await deposit(w, wallet, child.address, 2_500_000n);
    const done = await swept(w, wallet, id);
    expect(done.assetSwept, JSON.stringify(done.assetSweptResponse)).toBe(true);
    const rows = await sweepRows(w, id);
    expect(rows.map((r) => [r.purpose, r.stage])).toEqual([
      ['sweep-topup', 'mined'],
      ['sweep', 'mined'],
    ]);
    expect(await tokenBalance(w.s, w.usdt, wallet.address)).toBe(masterUsdt + 2_500_000n);
    const t = await feeOf(w, rows[1]!.hash!);
    expect(t.energyFee).toBeGreaterThan(0n); // burned
    expect(units(done.assetSweptGasFee)).toBe(await chargedFor(rows));
    expect(done.assetSweptResponse).toMatchObject({ energyUsed: t.energy.toString() });
    expect(done.assetSweptResponse.lendHash).toBeUndefined();
  }, 120_000);
});

describe('a USDT sweep whose transfer expired unmined and was rebuilt', () => {
  it('ends as the rebuilt transfer did: swept (deposit.swept.success), the energy taken back', async () => {
    const wallet = w.lending;
    const child = await newChild(w, wallet);
    const masterUsdt = await tokenBalance(w.s, w.usdt, wallet.address);
    const indexer = w.h.services.deposits.indexer(w.h.services.catalogue.findChain(wallet.slug, 'testnet')!);
    while ((await indexer.step()) === 'progress');
    let id = '';
    let expired: { hash: string | null } | undefined;
    w.s.control.pause();
    try {
      const sent = await sendToken(w.s, w.payer, w.usdt, child.address, 3_000_000n);
      expect(sent.result).toBe(true);
      await w.s.control.solidify(); // the deposit's block solidified: confirmed once indexed
      const [d] = await eventually(
        async () => {
          await indexer.step();
          const { rows } = await sql<{ id: string; status: string }>`
            SELECT id, status FROM transactions WHERE type = 'DEPOSIT' AND hash = ${sent.txid as string}`.execute(w.h.database.db);
          return rows;
        },
        (r) => r[0]?.status === 'SUCCESS',
        90_000,
      );
      id = d!.id;
      expired = await expireTransferOnceLent(w.s, () => sweepRows(w, id), { lend: 'sweep-lend', transfer: 'sweep' });
    } finally {
      w.s.control.resume();
    }

    const done = await swept(w, wallet, id);
    const rows = await sweepRows(w, id);
    expect(rows.map((r) => [r.purpose, r.stage])).toEqual([
      ['sweep-topup', 'mined'], // activation
      ['sweep-lend', 'mined'],
      ['sweep', 'replaced'], // expired unmined
      ['sweep', 'mined'], // rebuilt
      ['sweep-give-back', 'mined'],
    ]);
    const [activation, lend, , transfer, giveBack] = rows;
    expect(rows[2]!.hash).toBe(expired!.hash);
    expect(done.assetSwept, JSON.stringify(done.assetSweptResponse)).toBe(true);
    expect(done).toMatchObject({ assetSweptAmount: '3', assetSweptHash: transfer!.hash });
    expect(done.assetSweptResponse).toMatchObject({
      status: 'success',
      topupHash: activation!.hash,
      lendHash: lend!.hash,
      giveBackHash: giveBack!.hash,
    });
    expect(units(done.assetSweptGasFee)).toBe(await chargedFor([activation!, lend!, transfer!, giveBack!]));
    expect(await tokenBalance(w.s, w.usdt, wallet.address)).toBe(masterUsdt + 3_000_000n);
    expect(await tokenBalance(w.s, w.usdt, child.address)).toBe(0n);
    expect(await post(w.s, 'wallet/getdelegatedresourcev2', { fromAddress: hex(wallet.address), toAddress: hex(child.address) })).toEqual(
      {},
    );
    const { rows: sweeps } = await sql<{ status: string; stage: string }>`
      SELECT status, stage FROM sweeps WHERE address_id = ${child.id}`.execute(w.h.database.db);
    expect(sweeps).toEqual([{ status: 'success', stage: 'done' }]);
    const event = await sweptEvent(wallet, id);
    expect(event.data).toMatchObject({ assetSwept: true, assetSweptHash: transfer!.hash });
    // Stored with the outcome, in the transaction that decided it: none was written (a webhook could still be on its way).
    const { rows: failed } = await sql`SELECT 1 FROM events WHERE transaction_id = ${id} AND name = 'deposit.swept.failed'`.execute(
      w.h.database.db,
    );
    expect(failed).toEqual([]);
  }, 180_000);
});
