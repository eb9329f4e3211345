/**
 * Staking through HTTP on the java-tron stand-in (issue 27, 3): the master stakes TRX for
 * ENERGY and BANDWIDTH, unstakes (the 14-day unlock shown with its date), restakes (every
 * pending unstake back), and withdraws once the stand-in's clock has moved past the unlock;
 * each one a Transaction and its webhook, the node's balances and stakes exact to the sun.
 * Refusals (nothing to withdraw or restake, more than staked, a chain that does not stake)
 * write nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { account, info } from '../../../src/devnet/tron/testkit.js';
import { heldBack } from '../../../src/modules/withdrawals/store.js';
import { childOf, events, hex41, settled, startTronWorld, walletApi, writtenRows, type TronWorld } from './world.js';

let w: TronWorld;
const TRX = 1_000_000n;
const DAY = 86_400_000;

beforeAll(async () => {
  w = await startTronWorld('tron-staking', { chainId: 990_327, masterSun: 500_000_000 });
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

/** The master's account on the node: TRX held, staked per resource, pending unstakes. */
async function master() {
  const a = await account(w.s, hex41(w.wallet.address));
  const frozen = (type: string) =>
    BigInt((a.frozenV2 as { type?: string; amount?: number }[]).find((f) => (f.type ?? 'BANDWIDTH') === type)?.amount ?? 0);
  return {
    balance: BigInt(a.balance ?? 0),
    energy: frozen('ENERGY'),
    bandwidth: frozen('BANDWIDTH'),
    unfrozen: ((a.unfrozenV2 ?? []) as { unfreeze_amount: number; unfreeze_expire_time: number }[]).map((u) => ({
      amount: BigInt(u.unfreeze_amount),
      at: u.unfreeze_expire_time,
    })),
  };
}

/** What the node charged a transaction (bandwidth burned, if the free allowance did not cover it). */
const chargedFor = async (hash: string) => BigInt((await info(w.s, hash)).fee ?? 0);

async function operate(path: string, body: unknown) {
  const res = await walletApi(w, 'POST', `/staking/${path}`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data.status).toBe('PENDING');
  const done = await settled(w, res.body.data.id);
  expect(done.status, JSON.stringify(done)).toBe('SUCCESS');
  return done;
}

async function staking() {
  const res = await walletApi(w, 'GET', '/staking');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as Record<string, any>;
}

describe('staking TRX on the master', () => {
  it('stakes for ENERGY and BANDWIDTH: the node holds the stake, the balance pays exactly the stake and the fee', async () => {
    const before = await master();
    const stake = await operate('stake', { amount: '100', resource: 'ENERGY', reference: 'stake-1', metadata: { desk: 'ops' } });
    expect(stake).toMatchObject({
      type: 'STAKING',
      amount: '100',
      currency: 'TRX',
      reference: 'stake-1',
      senderAddress: w.wallet.address,
      metadata: { desk: 'ops', staking: { action: 'stake', resource: 'ENERGY' } },
    });
    const [event] = await events(w, stake.id, 'staking.success');
    expect(event!.data.status).toBe('SUCCESS');
    const fee1 = await chargedFor(stake.hash);
    const bw = await operate('stake', { amount: '20.5', resource: 'BANDWIDTH' });
    const fee2 = await chargedFor(bw.hash);

    const after = await master();
    expect(after.energy).toBe(before.energy + 100n * TRX);
    expect(after.bandwidth).toBe(before.bandwidth + 20_500_000n);
    expect(after.balance).toBe(before.balance - 120_500_000n - fee1 - fee2);

    const view = await staking();
    expect(view.address).toBe(w.wallet.address);
    expect(view.unlockPeriodDays).toBe(14);
    expect(view.totalStaked).toBe('120.5');
    const energy = view.positions.find((p: { resource: string }) => p.resource === 'ENERGY');
    expect(energy).toMatchObject({ staked: '100', delegated: '0', lendable: '100' });
    // The energy a day the stake gives: what sweeps lend children.
    expect(BigInt(energy.resourceLimit)).toBeGreaterThan(0n);
    expect(view.positions.find((p: { resource: string }) => p.resource === 'BANDWIDTH')).toMatchObject({ staked: '20.5' });
    expect(view.balance).toBe((Number(after.balance) / 1e6).toString());
  });

  it('unstakes with the unlock date shown; nothing to withdraw before it (422, nothing written); restake puts every pending unstake back', async () => {
    const before = await master();
    const unstake = await operate('unstake', { amount: '30', resource: 'ENERGY' });
    const unlocksAt = unstake.metadata.staking.unlocksAt as string;
    const node = await master();
    expect(node.energy).toBe(before.energy - 30n * TRX);
    expect(node.unfrozen).toEqual([{ amount: 30n * TRX, at: Date.parse(unlocksAt) }]);
    expect(Date.parse(unlocksAt) - Date.parse(unstake.createdAt)).toBeGreaterThan(14 * DAY - 60_000);
    await events(w, unstake.id, 'unstaking.success');

    const view = await staking();
    expect(view.unlocking).toEqual([{ resource: 'ENERGY', amount: '30', unlocksAt, unlocked: false }]);
    expect(view.withdrawable).toBe('0');
    expect(view.nextUnlockAt).toBe(unlocksAt);

    const rows = await writtenRows(w);
    const early = await walletApi(w, 'POST', '/staking/withdraw', {});
    expect(early.status, JSON.stringify(early.body)).toBe(422);
    expect(early.body.error).toBe('NOTHING_TO_WITHDRAW');
    expect(early.body.message).toContain(unlocksAt);
    const tooMuch = await walletApi(w, 'POST', '/staking/unstake', { amount: '70.000001', resource: 'ENERGY' });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.error).toBe('INSUFFICIENT_STAKE');
    expect(await writtenRows(w)).toEqual(rows);

    await operate('unstake', { amount: '10', resource: 'ENERGY' });
    const before2 = await master();
    const restake = await operate('restake', {});
    expect(restake).toMatchObject({ type: 'RESTAKING', amount: '40' });
    expect(restake.metadata.staking).toMatchObject({ withdrawn: '0', restaked: { ENERGY: '40000000', BANDWIDTH: '0' } });
    await events(w, restake.id, 'restaking.success');
    const after = await master();
    expect(after.energy).toBe(before.energy);
    expect(after.unfrozen).toEqual([]);
    expect(after.balance).toBe(before2.balance - (await chargedFor(restake.hash)));

    const nothing = await walletApi(w, 'POST', '/staking/restake', {});
    expect(nothing.status).toBe(422);
    expect(nothing.body.error).toBe('NOTHING_TO_RESTAKE');
  });

  it('withdraws what unlocked once the chain time passed the unlock date, exactly the unstaked amount', async () => {
    const unstake = await operate('unstake', { amount: '25', resource: 'ENERGY' });
    // The stand-in's clock moves 14 days: the next block is past the unlock time.
    await w.s.control.advanceTime(14 * DAY + 3_000);
    await w.s.control.produceBlocks(2);
    const view = await staking();
    expect(view.unlocking).toEqual([{ resource: 'ENERGY', amount: '25', unlocksAt: unstake.metadata.staking.unlocksAt, unlocked: true }]);
    expect(view.withdrawable).toBe('25');

    const before = await master();
    const withdrawal = await operate('withdraw', { reference: 'unlocked-1' });
    expect(withdrawal).toMatchObject({ type: 'UNSTAKING_WITHDRAW', amount: '25', reference: 'unlocked-1' });
    expect(withdrawal.metadata.staking.withdrawn).toBe('25000000');
    await events(w, withdrawal.id, 'unstaking.withdraw.success');
    const after = await master();
    expect(after.balance).toBe(before.balance + 25n * TRX - (await chargedFor(withdrawal.hash)));
    expect(after.unfrozen).toEqual([]);
    expect((await info(w.s, withdrawal.hash)).withdraw_expire_amount).toBe(25_000_000);

    const history = await walletApi(w, 'GET', '/transactions?type=UNSTAKING_WITHDRAW');
    expect(history.body.data.map((t: { id: string }) => t.id)).toEqual([withdrawal.id]);
  });

  it('refuses bad amounts with 400s and a stake beyond the balance with 422, writing nothing', async () => {
    const rows = await writtenRows(w);
    for (const body of [
      { amount: '0.5', resource: 'ENERGY' },
      { amount: '1.0000001', resource: 'ENERGY' },
      { amount: '5', resource: 'CPU' },
    ]) {
      const res = await walletApi(w, 'POST', '/staking/stake', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const rich = await walletApi(w, 'POST', '/staking/stake', { amount: '100000', resource: 'ENERGY' });
    expect(rich.status, JSON.stringify(rich.body)).toBe(422);
    expect(rich.body.error).toBe('INSUFFICIENT_BALANCE');
    expect(await writtenRows(w)).toEqual(rows);
  });
});

describe("the master's payouts", () => {
  it("count an unstake's and a restake's fee as held until spent, not what they move (a withdrawal of unlocked TRX is held the same way)", async () => {
    const db = w.h.database.db;
    await operate('stake', { amount: '5', resource: 'ENERGY' });
    const since = (await sql<{ now: Date }>`SELECT clock_timestamp() AS now`.execute(db)).rows[0]!.now;
    const unstake = await operate('unstake', { amount: '2', resource: 'ENERGY' });
    const restake = await operate('restake', {});
    const { rows } = await sql<{ id: string; chain_id: string; reserved_fee: string }>`
      SELECT id, chain_id, reserved_fee FROM transactions WHERE id IN (${unstake.id}, ${restake.id})`.execute(db);
    const held = await heldBack(db, rows[0]!.chain_id, w.wallet.address, since);
    // Spent on chain since `since`: each holds its fee (a balance read before it still had it), and no TRX.
    for (const [tx, row] of [unstake, restake].map((t) => [t, rows.find((r) => r.id === t.id)!] as const)) {
      expect(held).toContainEqual(expect.objectContaining({ hash: tx.hash, assetId: null, amount: 0n, fees: BigInt(row.reserved_fee) }));
    }
  });
});

describe('a client reference already used on the wallet', () => {
  it("an operation repeating it, or taking a withdrawal's: 409 REFERENCE_IN_USE, nothing written, nothing staked", async () => {
    const first = await operate('stake', { amount: '5', resource: 'ENERGY', reference: 'stake-ref-1' });
    const to = await childOf(w);
    const paid = await walletApi(w, 'POST', '/withdraw', { assetId: w.trxId, address: to.address, amount: '1', reference: 'paid-ref-1' });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    await settled(w, paid.body.data.id);

    const rows = await writtenRows(w);
    const node = await master();
    const cases: [string, Record<string, unknown>, string][] = [
      ['stake', { amount: '5', resource: 'ENERGY', reference: 'stake-ref-1' }, first.id],
      ['unstake', { amount: '1', resource: 'ENERGY', reference: 'stake-ref-1' }, first.id],
      ['stake', { amount: '2', resource: 'BANDWIDTH', reference: 'paid-ref-1' }, paid.body.data.id],
    ];
    for (const [path, body, holder] of cases) {
      const res = await walletApi(w, 'POST', `/staking/${path}`, body);
      expect([res.status, res.body.error], JSON.stringify(res.body)).toEqual([409, 'REFERENCE_IN_USE']);
      expect(res.body.message).toBe(`The reference '${body.reference}' is already used on this wallet by another transaction (${holder})`);
    }
    await w.s.control.produceBlocks(2);
    expect(await writtenRows(w)).toEqual(rows);
    expect(await master()).toEqual(node);
  });

  it('two stakes sent at once with one reference: one is created, the other is 409 REFERENCE_IN_USE', async () => {
    const rows = await writtenRows(w);
    const body = { amount: '1', resource: 'ENERGY', reference: 'stake-race' };
    const [a, b] = await Promise.all([0, 1].map(() => walletApi(w, 'POST', '/staking/stake', body)));
    const answers = [a!, b!].map((r) => [r.status, r.body.error ?? null]).sort();
    expect(answers, JSON.stringify([a!.body.message, b!.body.message])).toEqual([
      [200, null],
      [409, 'REFERENCE_IN_USE'],
    ]);
    expect(await writtenRows(w)).toEqual({ transactions: rows.transactions + 1, outbound: rows.outbound + 1 });
    const created = (a!.status === 200 ? a! : b!).body.data;
    expect((await settled(w, created.id)).status).toBe('SUCCESS');
  });
});

describe('a chain whose family does not stake', () => {
  it('answers 422 NOT_SUPPORTED from the capability registry, reading and writing', async () => {
    const evm = Object.values(w.h.wallets)[0]!;
    const read = await w.h.api('GET', `/v1/wallets/${evm.id}/staking`, { key: evm.apiKey });
    expect(read.status).toBe(422);
    expect(read.body.error).toBe('NOT_SUPPORTED');
    const rows = await writtenRows(w);
    const stake = await w.h.api('POST', `/v1/wallets/${evm.id}/staking/stake`, {
      key: evm.apiKey,
      body: { amount: '1', resource: 'ENERGY' },
    });
    expect(stake.status).toBe(422);
    expect(stake.body.error).toBe('NOT_SUPPORTED');
    expect(await writtenRows(w)).toEqual(rows);
  });
});

describe('swaps on a family without a router', () => {
  it('answer 422 NOT_SUPPORTED from the one capability check (capability(adapter, "swaps"))', async () => {
    const rows = await writtenRows(w);
    for (const path of ['/swaps/quote', '/swaps/execute']) {
      const res = await walletApi(w, 'POST', path, { fromAssetId: w.usdtId, toAssetId: w.trxId, amount: '1' });
      expect([res.status, res.body.error], path).toEqual([422, 'NOT_SUPPORTED']);
    }
    expect(await writtenRows(w)).toEqual(rows);
  });
});
