/**
 * Recoveries and swaps held like withdrawals, whoever pays their fee (docs/withdrawals.md,
 * "Reservations"): a withdrawal waiting for approval holds its amount and fee as a pending
 * one does (docs/policies.md), and a recovery or a swap accepted meanwhile must not spend
 * what it holds. Each is refused with 422 INSUFFICIENT_BALANCE and writes nothing:
 *  - a recovery from a child whose fee the master tops up, of the child's native coin a
 *    pending withdrawal of the child holds (the child's own spends, under its lock);
 *  - a recovery or a swap from a child whose top-up the master sends, when the master's ETH
 *    is held by its own pending withdrawal (the top-up is a spend of the master's, checked
 *    under the master's lock against its pending spends, not its raw balance);
 *  - a withdrawal of a child's ETH that would take the gas of the child's swap in flight
 *    (the swap's Transaction holds all its legs' gas, a child's as a master's), or of its
 *    recovery whose fee the master tops up (the recovery holds the whole transfer's fee).
 * And a child's swap is topped up past what its pending spends hold of its ETH (accepted, not
 * refused for a top-up reckoned on its raw balance).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ETH, fundedWallet, getTx, policy, startPolicyWorld, withdraw, type PolicyWorld, type TestWallet } from '../policies/world.js';
import { eventually } from '../support/fixtures.js';

let w: PolicyWorld;
beforeAll(async () => {
  w = await startPolicyWorld();
}, 120_000);
afterAll(async () => {
  await w?.stop();
});

const fresh = () => privateKeyToAccount(generatePrivateKey()).address;
const chain = () => w.h.services.catalogue.findChain(ETH, 'testnet')!;
const ethId = () => chain().assets.find((a) => a.is_native)!.id;
const assetId = (symbol: string) => chain().assets.find((a) => a.symbol === symbol)!.id;
const WEI = 10n ** 18n;
const toWei = (decimal: string) => {
  const [whole, fraction = ''] = decimal.split('.');
  return BigInt(whole!) * WEI + BigInt(fraction.padEnd(18, '0'));
};
const fmt = (wei: bigint) => {
  const s = wei.toString().padStart(19, '0');
  return `${s.slice(0, -18)}.${s.slice(-18)}`.replace(/\.?0+$/, '');
};

/** Every PENDING / PENDING_APPROVAL spend of `sender` in ETH (amount of ETH rows + reserved fees) and top-ups it sends. */
async function ethHeld(sender: string): Promise<bigint> {
  const { rows } = await sql<{ held: string }>`
    SELECT coalesce((SELECT sum(CASE WHEN asset_id = ${ethId()} THEN amount ELSE 0 END) + sum(coalesce(reserved_fee, 0))
                       FROM transactions WHERE sender_address = ${sender} AND status IN ('PENDING', 'PENDING_APPROVAL')), 0)
         + coalesce((SELECT sum(value) FROM outbound_txs WHERE from_address = ${sender} AND purpose LIKE '%topup'), 0) AS held`.execute(
    w.h.database.db,
  );
  return BigInt(rows[0]!.held);
}

/** The refused request's traces: its Transaction (SALVAGE or SWAP) and the master's top-up. */
async function written(wallet: TestWallet): Promise<{ transactions: number; topups: number }> {
  const { rows } = await sql<{ transactions: number; topups: number }>`
    SELECT (SELECT count(*)::int FROM transactions WHERE wallet_id = ${wallet.id} AND type IN ('SALVAGE', 'SWAP')) AS transactions,
           (SELECT count(*)::int FROM outbound_txs WHERE from_address = ${wallet.address} AND purpose LIKE '%topup') AS topups`.execute(
    w.h.database.db,
  );
  return rows[0]!;
}

async function child(wallet: TestWallet) {
  const res = await w.h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body: { disableAutoSweep: true } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { id: string; address: string };
}

/** ETH withdrawals of this wallet wait for approval (the approvers never vote here). */
async function holdEthWithdrawals(wallet: TestWallet) {
  const enabled = await w.h.api('POST', `/v1/wallets/${wallet.id}/assets`, { key: wallet.apiKey, body: { assetId: ethId() } });
  expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);
  await policy(w, {
    name: 'ETH payouts need an approval',
    priority: 1,
    walletId: wallet.id,
    conditions: { types: ['WITHDRAW'], assets: ['ETH'] },
    action: 'REQUIRE_APPROVAL',
    approval: { approvers: { apiKeys: w.approvers.map((k) => k.id) }, quorum: 1, ttlSeconds: 86_400 },
  });
}

/** A master whose ETH is all held by one withdrawal waiting for approval (a tenth of a transfer fee left free). */
async function masterAllHeld(wallet: TestWallet) {
  await w.eth.rpc('anvil_setBalance', [wallet.address, '0xDE0B6B3A7640000']); // 1 ETH
  const balance = WEI;
  const to = fresh();
  const fee = await w.h.api('POST', `/v1/wallets/${wallet.id}/withdraw/network-fee`, {
    key: wallet.apiKey,
    body: { assetId: ethId(), address: to, amount: '0.1' },
  });
  expect(fee.status, JSON.stringify(fee.body)).toBe(200);
  const feeWei = toWei(fee.body.data.networkFee);
  const res = await withdraw(w, wallet, { assetId: ethId(), address: to, amount: fmt(balance - feeWei - feeWei / 10n) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data.status).toBe('PENDING_APPROVAL');
  // The master's free ETH is now less than a second small payout needs.
  const more = await w.h.api('POST', `/v1/wallets/${wallet.id}/withdraw`, {
    key: wallet.apiKey,
    body: { assetId: assetId('USDC'), address: fresh(), amount: '1' },
  });
  return { balance, withdrawal: res.body.data, more };
}

describe('a recovery from a child whose fee the master tops up', () => {
  it('is refused when a pending withdrawal of the child holds the native coin it would take', { timeout: 90_000 }, async () => {
    const wallet = await fundedWallet(w, 'salvage-child-held', '0');
    await holdEthWithdrawals(wallet);
    const c = await child(wallet);
    await w.eth.sendNative(c.address, '0.5');

    // The child withdraws 0.4 ETH: held for approval, it holds 0.4 ETH and its fee at the child.
    const pending = await withdraw(w, wallet, { assetId: ethId(), address: fresh(), amount: '0.4' }, { addressId: c.id });
    expect(pending.status, JSON.stringify(pending.body)).toBe(200);
    expect(pending.body.data.status).toBe('PENDING_APPROVAL');
    // A second withdrawal of the same coin is refused, as it must be.
    const twice = await withdraw(w, wallet, { assetId: ethId(), address: fresh(), amount: '0.4' }, { addressId: c.id });
    expect(twice.status, JSON.stringify(twice.body)).toBe(422);
    expect(twice.body.error).toBe('INSUFFICIENT_BALANCE');

    // A recovery of the child's whole 0.5 ETH (the master tops up its fee) takes the same coin.
    const salvage = await w.h.api('POST', `/v1/wallets/${wallet.id}/salvage`, {
      key: wallet.apiKey,
      body: { senderAddress: c.address, recipientAddress: fresh(), amount: '0.5', blockchainId: chain().row.blockchain_id },
    });
    const held = await ethHeld(c.address);
    const onChain = await w.eth.pub.getBalance({ address: c.address as `0x${string}` });
    expect(
      { status: salvage.status, code: salvage.body.error },
      `the recovery was accepted: the child's pending spends hold ${fmt(held)} ETH of the ${fmt(onChain)} it has`,
    ).toEqual({ status: 422, code: 'INSUFFICIENT_BALANCE' });
    // The child's own funds refuse it, not the master's.
    expect(salvage.body.message).not.toMatch(/master/);
    expect(await written(wallet)).toEqual({ transactions: 0, topups: 0 });
  });
});

describe("the master's top-up of a child, judged against the master's pending spends", () => {
  it("refuses a recovery whose top-up the master's free ETH cannot pay", { timeout: 90_000 }, async () => {
    const wallet = await fundedWallet(w, 'salvage-master-held', '10');
    await holdEthWithdrawals(wallet);
    const c = await child(wallet);
    const { balance, more } = await masterAllHeld(wallet);
    expect(more.status, 'a 1 USDC withdrawal (gas only) no longer fits beside the held ETH').toBe(422);

    // Native coin at the child: 0.01 ETH, the child lacks its fee, so the master tops it up.
    await w.eth.sendNative(c.address, '0.01');
    const salvage = await w.h.api('POST', `/v1/wallets/${wallet.id}/salvage`, {
      key: wallet.apiKey,
      body: { senderAddress: c.address, recipientAddress: fresh(), amount: '0.01', blockchainId: chain().row.blockchain_id },
    });
    const held = await ethHeld(wallet.address);
    expect(
      { status: salvage.status, code: salvage.body.error },
      `the recovery was accepted (${JSON.stringify(salvage.body.data?.status)}): the master's pending spends now hold ${fmt(held)} ETH of its ${fmt(balance)}`,
    ).toEqual({ status: 422, code: 'INSUFFICIENT_BALANCE' });
    expect(salvage.body.message).toMatch(/^The master address first sends the sending address its network fee: Insufficient ETH/);
    expect(await written(wallet)).toEqual({ transactions: 0, topups: 0 });
  });

  it("refuses a swap whose top-up the master's free ETH cannot pay", { timeout: 90_000 }, async () => {
    const wallet = await fundedWallet(w, 'swap-master-held', '10');
    await holdEthWithdrawals(wallet);
    const c = await child(wallet);
    await w.eth.sendToken('USDC', c.address, '50');
    const { balance, more } = await masterAllHeld(wallet);
    expect(more.status, 'a 1 USDC withdrawal (gas only) no longer fits beside the held ETH').toBe(422);

    const swap = await w.h.api('POST', `/v1/wallets/${wallet.id}/addresses/${c.id}/swaps/execute`, {
      key: wallet.apiKey,
      body: { fromAssetId: assetId('USDC'), toAssetId: assetId('USDT'), amount: '10' },
    });
    const held = await ethHeld(wallet.address);
    expect(
      { status: swap.status, code: swap.body.error },
      `the swap was accepted (${JSON.stringify(swap.body.data?.status ?? swap.body)}): the master's pending spends now hold ${fmt(held)} ETH of its ${fmt(balance)}`,
    ).toEqual({ status: 422, code: 'INSUFFICIENT_BALANCE' });
    expect(swap.body.message).toMatch(/^The master address first sends the sending address its network fee: Insufficient ETH/);
    expect(await written(wallet)).toEqual({ transactions: 0, topups: 0 });
  });
});

describe("a sweep's top-up, judged against the master's pending spends", () => {
  /** The child's confirmed USDC deposit (the indexer stepped here: this world runs none). */
  async function deposit(c: { address: string }, amount: string): Promise<string> {
    const sent = await w.eth.sendToken('USDC', c.address, amount);
    await w.eth.mine(3);
    const indexer = w.h.services.deposits.indexer(chain());
    for (let i = 0; i < 100; i++) {
      await indexer.step();
      const { rows } = await sql<{ id: string; status: string }>`
        SELECT id, status FROM transactions WHERE type = 'DEPOSIT' AND hash = ${sent.transactionHash}`.execute(w.h.database.db);
      if (rows[0]?.status === 'SUCCESS') return rows[0].id;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the deposit was not confirmed');
  }
  const sweepsOf = async (addressId: string) =>
    (
      await sql<{ status: string; error: string | null; topup_outbound_id: string | null }>`
        SELECT status, error, topup_outbound_id FROM sweeps WHERE address_id = ${addressId}`.execute(w.h.database.db)
    ).rows;

  it("refuses a manual sweep whose top-up the master's free ETH cannot pay, writing nothing", { timeout: 90_000 }, async () => {
    const wallet = await fundedWallet(w, 'sweep-master-held', '10');
    await holdEthWithdrawals(wallet);
    const c = await child(wallet);
    const depositId = await deposit(c, '25');
    const { balance, more } = await masterAllHeld(wallet);
    expect(more.status, 'a 1 USDC withdrawal (gas only) no longer fits beside the held ETH').toBe(422);

    const res = await w.h.api('POST', `/v1/wallets/${wallet.id}/transactions/${depositId}/sweep`, { key: wallet.apiKey });
    const held = await ethHeld(wallet.address);
    expect(
      { status: res.status, code: res.body.error },
      `the sweep was started: the master's pending spends now hold ${fmt(held)} ETH of its ${fmt(balance)}`,
    ).toEqual({ status: 422, code: 'INSUFFICIENT_BALANCE' });
    expect(res.body.message).toMatch(/^The master address first sends the sending address its network fee: Insufficient ETH/);
    expect(await written(wallet)).toEqual({ transactions: 0, topups: 0 });
    expect(await sweepsOf(c.id)).toEqual([]);
    expect(await w.eth.balanceOf('USDC', c.address)).toBe(25_000_000n);
  });

  it(
    "ends an automatic sweep failed, with the reason, instead of sending a top-up the master's held ETH would pay",
    { timeout: 90_000 },
    async () => {
      const wallet = await fundedWallet(w, 'autosweep-master-held', '10');
      await holdEthWithdrawals(wallet);
      const res = await w.h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body: {} });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const c = res.body.data as { id: string; address: string };
      await masterAllHeld(wallet);

      const depositId = await deposit(c, '25');
      let sweeps: Awaited<ReturnType<typeof sweepsOf>> = [];
      for (let i = 0; i < 200 && sweeps.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        sweeps = await sweepsOf(c.id);
      }
      expect(sweeps).toHaveLength(1);
      expect(sweeps[0]).toMatchObject({ status: 'failed', topup_outbound_id: null });
      expect(sweeps[0]!.error).toMatch(/^The master address first sends the sending address its network fee: Insufficient ETH/);
      expect(await written(wallet)).toEqual({ transactions: 0, topups: 0 });
      const tx = await w.h.api('GET', `/v1/wallets/${wallet.id}/transactions/${depositId}`, { key: wallet.apiKey });
      expect(tx.body.data.assetSwept).toBe(false);
      expect(await w.eth.balanceOf('USDC', c.address)).toBe(25_000_000n);
    },
  );
});

describe("a child's own gas for its swap, held while the swap is in flight", () => {
  it('refuses a withdrawal of the child that would leave its swap without the gas it was accepted with', { timeout: 90_000 }, async () => {
    const wallet = await fundedWallet(w, 'swap-child-gas', '10');
    const enabled = await w.h.api('POST', `/v1/wallets/${wallet.id}/assets`, { key: wallet.apiKey, body: { assetId: ethId() } });
    expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);
    const c = await child(wallet);
    await w.eth.sendToken('USDC', c.address, '50');
    await w.eth.sendNative(c.address, '0.05'); // ample gas: the child pays its own, no top-up
    // The swap's legs stay queued (no worker): the child's ETH is still all there.
    await w.h.stopWorker();
    try {
      const swap = await w.h.api('POST', `/v1/wallets/${wallet.id}/addresses/${c.id}/swaps/execute`, {
        key: wallet.apiKey,
        body: { fromAssetId: assetId('USDC'), toAssetId: assetId('USDT'), amount: '10' },
      });
      expect(swap.status, JSON.stringify(swap.body)).toBe(200);
      expect(await written(wallet)).toEqual({ transactions: 1, topups: 0 });

      // Everything but a native transfer's fee (and a tenth of it) of the child's ETH, paid out.
      const balance = await w.eth.pub.getBalance({ address: c.address as `0x${string}` });
      const held = await ethHeld(c.address);
      const to = fresh();
      const fee = await w.h.api('POST', `/v1/wallets/${wallet.id}/addresses/${c.id}/withdraw/network-fee`, {
        key: wallet.apiKey,
        body: { assetId: ethId(), address: to, amount: '0.01' },
      });
      expect(fee.status, JSON.stringify(fee.body)).toBe(200);
      const feeWei = toWei(fee.body.data.networkFee);
      const res = await withdraw(
        w,
        wallet,
        { assetId: ethId(), address: to, amount: fmt(balance - feeWei - feeWei / 10n) },
        { addressId: c.id },
      );
      expect(
        { status: res.status, code: res.body.error },
        `the withdrawal was accepted: the child's pending swap held ${fmt(held)} ETH of its ${fmt(balance)}, not the gas of its legs`,
      ).toEqual({ status: 422, code: 'INSUFFICIENT_BALANCE' });
    } finally {
      await w.h.startWorker();
    }
  });
});

describe("a child's own part of its recovery's fee, held while the recovery is in flight", () => {
  it('refuses a withdrawal of the child that would leave its topped-up recovery short of gas', { timeout: 90_000 }, async () => {
    const wallet = await fundedWallet(w, 'salvage-child-gas', '10');
    const enabled = await w.h.api('POST', `/v1/wallets/${wallet.id}/assets`, { key: wallet.apiKey, body: { assetId: ethId() } });
    expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);
    // USDT no longer enabled on the wallet: what a child holds of it is recovered, not withdrawn.
    const off = await w.h.api('DELETE', `/v1/wallets/${wallet.id}/assets/${assetId('USDT')}`, { key: wallet.apiKey });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    const c = await child(wallet);
    await w.eth.sendToken('USDT', c.address, '5');
    const body = {
      senderAddress: c.address,
      recipientAddress: fresh(),
      tokenAddress: chain().assets.find((a) => a.symbol === 'USDT')!.address,
      amount: '5',
      blockchainId: chain().row.blockchain_id,
    };
    const quoted = await w.h.api('POST', `/v1/wallets/${wallet.id}/salvage/network-fee`, { key: wallet.apiKey, body });
    expect(quoted.status, JSON.stringify(quoted.body)).toBe(200);
    const salvageFee = toWei(quoted.body.data.fee);
    // The child holds nine tenths of its transfer's fee: the master tops up the rest.
    await w.eth.rpc('anvil_setBalance', [c.address, `0x${(salvageFee - salvageFee / 10n).toString(16)}`]);
    await w.h.stopWorker();
    try {
      const salvage = await w.h.api('POST', `/v1/wallets/${wallet.id}/salvage`, { key: wallet.apiKey, body });
      expect(salvage.status, JSON.stringify(salvage.body)).toBe(200);
      expect(salvage.body.data.metadata.salvage.funding).toBe('transfer');

      const balance = await w.eth.pub.getBalance({ address: c.address as `0x${string}` });
      const held = await ethHeld(c.address);
      const to = fresh();
      const fee = await w.h.api('POST', `/v1/wallets/${wallet.id}/addresses/${c.id}/withdraw/network-fee`, {
        key: wallet.apiKey,
        body: { assetId: ethId(), address: to, amount: '0.000001' },
      });
      expect(fee.status, JSON.stringify(fee.body)).toBe(200);
      const feeWei = toWei(fee.body.data.networkFee);
      expect(balance - feeWei - feeWei / 10n, 'the child holds more than a native transfer costs').toBeGreaterThan(0n);
      const res = await withdraw(
        w,
        wallet,
        { assetId: ethId(), address: to, amount: fmt(balance - feeWei - feeWei / 10n) },
        { addressId: c.id },
      );
      expect(
        { status: res.status, code: res.body.error },
        `the withdrawal was accepted: the child's pending recovery held ${fmt(held)} ETH of its ${fmt(balance)}, not its own part of the transfer's fee`,
      ).toEqual({ status: 422, code: 'INSUFFICIENT_BALANCE' });
    } finally {
      await w.h.startWorker();
    }
  });
});

describe("a child's swap topped up past what the child's pending spends hold", () => {
  it('is accepted, the master topping up the gas a pending withdrawal of the child leaves it short of', { timeout: 90_000 }, async () => {
    const wallet = await fundedWallet(w, 'swap-child-held', '10');
    await holdEthWithdrawals(wallet);
    const c = await child(wallet);
    await w.eth.sendToken('USDC', c.address, '50');
    await w.eth.sendNative(c.address, '0.01');
    // The child pays out nearly all its ETH (waiting for approval, it holds it): ample gas on
    // chain for the swap, next to none free.
    const to = fresh();
    const fee = await w.h.api('POST', `/v1/wallets/${wallet.id}/addresses/${c.id}/withdraw/network-fee`, {
      key: wallet.apiKey,
      body: { assetId: ethId(), address: to, amount: '0.001' },
    });
    expect(fee.status, JSON.stringify(fee.body)).toBe(200);
    const feeWei = toWei(fee.body.data.networkFee);
    const pending = await withdraw(
      w,
      wallet,
      { assetId: ethId(), address: to, amount: fmt(toWei('0.01') - feeWei - feeWei / 10n) },
      { addressId: c.id },
    );
    expect(pending.status, JSON.stringify(pending.body)).toBe(200);
    expect(pending.body.data.status).toBe('PENDING_APPROVAL');

    const swap = await w.h.api('POST', `/v1/wallets/${wallet.id}/addresses/${c.id}/swaps/execute`, {
      key: wallet.apiKey,
      body: { fromAssetId: assetId('USDC'), toAssetId: assetId('USDT'), amount: '10' },
    });
    expect(
      { status: swap.status, code: swap.body.error },
      `the swap was refused (${swap.body.message}): its top-up was reckoned on the child's ETH, not on what its pending withdrawal leaves free`,
    ).toEqual({ status: 200, code: undefined });
    expect(await written(wallet)).toEqual({ transactions: 1, topups: 1 });
    // The swap's legs are mined as they are sent (automine); its confirmations need blocks
    // after them, which nothing else in this world mines: one per look.
    const done = await eventually(
      async () => {
        await w.eth.mine();
        return getTx(w, wallet, swap.body.data.id);
      },
      (t) => t.status === 'SUCCESS',
      30_000,
    );
    expect(done.status).toBe('SUCCESS');
    // The withdrawal still has what it holds.
    const balance = await w.eth.pub.getBalance({ address: c.address as `0x${string}` });
    expect(balance).toBeGreaterThanOrEqual(await ethHeld(c.address));
  });
});
