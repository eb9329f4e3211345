/**
 * Contract writes that move the wallet's funds take part in the withdrawal reservation:
 * concurrent contract transfers and withdrawals never together exceed the balance; an
 * approve holds what it lets the spender take for as long as the allowance stands; a
 * transferFrom pulling from a wallet address is held on that address; native value too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createWalletClient, erc20Abi, http, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { devnetChain } from '../../src/devnet/chain.js';
import {
  approve,
  chainOf,
  child,
  erc20,
  expectRefused,
  freshWallet,
  randomAddress,
  sendAs,
  setEth,
  settled,
  startRulesHarness,
  transfer,
  transferFrom,
  usdcOf,
  withdraw,
  write,
  written,
  ETH,
  type Harness,
} from './rules-world.js';
import { TRY_AGGREGATE } from './support.js';
import { checkHeld, snapshot } from '../../src/modules/withdrawals/funds.js';
import * as store from '../../src/modules/withdrawals/store.js';
import type { Item } from '../../src/modules/withdrawals/validate.js';
import type { EnabledAsset } from '../../src/modules/assets/service.js';

let h: Harness;

beforeAll(async () => {
  h = await startRulesHarness();
});
afterAll(async () => {
  await h?.stop();
});

const balance = (owner: string) => chainOf(h, ETH).balanceOf('USDC', owner);

/** The spender takes `amount` of the owner's USDC with transferFrom, signed by its own key; waits for the receipt. */
async function pull(spender: PrivateKeyAccount, owner: Address, amount: bigint): Promise<void> {
  const chain = chainOf(h, ETH);
  const pulls = createWalletClient({
    chain: devnetChain(chain.config.chainId, chain.config.rpcUrl),
    transport: http(chain.config.rpcUrl),
    account: spender,
  });
  const hash = await pulls.writeContract({
    address: usdcOf(h),
    abi: erc20Abi,
    functionName: 'transferFrom',
    args: [owner, spender.address, amount],
  });
  await chain.pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
}

describe('contract writes and withdrawals share one balance reservation', () => {
  it('5 full-balance contract transfers and 1 full-balance withdrawal at once: exactly one accepted, the rest 422, balances exact', async () => {
    const w = await freshWallet(h, '100');
    const before = await written(h, w);
    const recipients = Array.from({ length: 6 }, () => randomAddress());
    const responses = await Promise.all([
      ...recipients.slice(0, 5).map((to) => write(h, w, [transfer(h, to, 100)])),
      withdraw(h, w, recipients[5]!, '100'),
    ]);
    const accepted = responses.filter((r) => r.status === 200);
    expect(accepted, JSON.stringify(responses.map((r) => r.body))).toHaveLength(1);
    for (const r of responses.filter((r) => r.status !== 200)) expectRefused(r, 422, 'INSUFFICIENT_BALANCE');
    expect(await written(h, w)).toEqual({
      transactions: before.transactions + 1,
      outbound: before.outbound + 1,
      moves: before.moves + (accepted[0]!.body.data.type === 'CUSTOM_SMART_CONTRACT' ? 1 : 0),
    });

    await settled(h, w, accepted[0]!.body.data.id);
    expect(await balance(w.address)).toBe(0n);
    const received = await Promise.all(recipients.map(balance));
    expect(received.reduce((a, b) => a + b, 0n)).toBe(100_000_000n);
    expect(received.filter((b) => b > 0n)).toEqual([100_000_000n]);
  });

  it('a contract write reserves its gas: the transaction row holds gas limit x fee cap while pending', async () => {
    const w = await freshWallet(h, '10');
    const res = await write(h, w, [transfer(h, randomAddress(), 1)]);
    expect(res.status).toBe(200);
    const { rows } = await sql<{
      reserved_fee: string | null;
    }>`SELECT reserved_fee FROM transactions WHERE id = ${res.body.data.id}`.execute(h.database.db);
    expect(BigInt(rows[0]!.reserved_fee ?? 0)).toBeGreaterThan(0n);
    await settled(h, w, res.body.data.id);
  });

  it('native value and a native withdrawal at once: only one of them gets the coin', async () => {
    const w = await freshWallet(h, '0');
    const chain = chainOf(h, ETH);
    const native = h.services.catalogue.findChain(ETH, 'testnet')!.assets.find((a) => a.is_native)!;
    expect((await h.api('PATCH', `/v1/wallets/${w.id}/assets/${native.id}`, { key: w.apiKey, body: { isActive: true } })).status).toBe(200);
    const multicall = chain.config.multicall3 as Address;
    // 10 ETH at the master; each request wants 6 (plus gas).
    const [viaContract, viaWithdrawal] = await Promise.all([
      write(h, w, [{ address: multicall, method: 'tryAggregate', parameters: [false, []], abi: [TRY_AGGREGATE], value: '6' }]),
      h.api('POST', `/v1/wallets/${w.id}/withdraw`, { key: w.apiKey, body: { assetId: native.id, address: randomAddress(), amount: '6' } }),
    ]);
    const statuses = [viaContract.status, viaWithdrawal.status].sort();
    expect(statuses, JSON.stringify([viaContract.body, viaWithdrawal.body])).toEqual([200, 422]);
    const refused = viaContract.status === 422 ? viaContract : viaWithdrawal;
    expectRefused(refused, 422, 'INSUFFICIENT_BALANCE');
    const ok = viaContract.status === 200 ? viaContract : viaWithdrawal;
    await settled(h, w, ok.body.data.id);
    expect(await chain.pub.getBalance({ address: w.address })).toBeGreaterThan(3n * 10n ** 18n);
  });
});

describe('what an approve reserves', () => {
  it('the allowance is held while it stands: withdrawals see less; the spender pulling or a revocation frees it', async () => {
    const w = await freshWallet(h, '100');
    const chain = chainOf(h, ETH);
    // The spender is someone outside with a key of its own, who pulls when it likes.
    const key = generatePrivateKey();
    const spender = privateKeyToAccount(key);
    await setEth(chain, spender.address, 10n ** 18n);
    const granted = await write(h, w, [approve(h, spender.address, 60)]);
    expect(granted.status, JSON.stringify(granted.body)).toBe(200);

    // Held while pending, and once mined as the allowance on chain.
    expectRefused(await withdraw(h, w, randomAddress(), '41'), 422, 'INSUFFICIENT_BALANCE');
    await settled(h, w, granted.body.data.id);
    expectRefused(await withdraw(h, w, randomAddress(), '41'), 422, 'INSUFFICIENT_BALANCE');
    expectRefused(await write(h, w, [transfer(h, randomAddress(), 41)]), 422, 'INSUFFICIENT_BALANCE');
    const forty = await withdraw(h, w, randomAddress(), '40');
    expect(forty.status, JSON.stringify(forty.body)).toBe(200);
    await settled(h, w, forty.body.data.id);

    // The spender takes 25: the allowance and the balance fall together; 0 left for withdrawals.
    await pull(spender, w.address, 25_000_000n);
    expect(await balance(w.address)).toBe(35_000_000n);
    expectRefused(await withdraw(h, w, randomAddress(), '1'), 422, 'INSUFFICIENT_BALANCE');

    // Revoked: the 35 left are free again.
    const revoked = await write(h, w, [approve(h, spender.address, 0)]);
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    await settled(h, w, revoked.body.data.id);
    const rest = await withdraw(h, w, randomAddress(), '35');
    expect(rest.status, JSON.stringify(rest.body)).toBe(200);
    await settled(h, w, rest.body.data.id);
    expect(await balance(w.address)).toBe(0n);
  });

  it("an approve settled after the check's time is counted once: the check reads its allowance again", async () => {
    // The situation the shared database time makes (DbClock: one time for 250 ms): the check's
    // time T is from before the approve settled, its allowance read on chain after it was
    // mined. Built from the real functions in that order: the snapshot's time taken while the
    // approve was pending, the rest read once it settled.
    const w = await freshWallet(h, '100');
    const chain = h.services.catalogue.findChain(ETH, 'testnet')!;
    const usdc = chain.assets.find((a) => a.symbol === 'USDC')!;
    const item: Item = {
      asset: { asset: h.services.catalogue.asset(usdc.id)! } as EnabledAsset,
      to: randomAddress(),
      amount: 40_000_000n,
      reference: null,
      note: null,
      metadata: null,
      field: 'amount',
    };
    const spender = privateKeyToAccount(generatePrivateKey());
    await setEth(chainOf(h, ETH), spender.address, 10n ** 18n);
    await h.stopWorker();
    let granted;
    try {
      granted = await write(h, w, [approve(h, spender.address, 60)]);
      expect(granted.status, JSON.stringify(granted.body)).toBe(200);
      const before = await snapshot(h.database.db, chain, w.address, [item]);
      await h.startWorker();
      await settled(h, w, granted.body.data.id);
      const after = await snapshot(h.database.db, chain, w.address, [item]);
      expect(after.allowances.map((a) => a.amount)).toEqual([60_000_000n]);
      const snap = { ...after, at: before.at };
      const held = await store.heldBack(h.database.db, chain.id, w.address, snap.at);
      // The row of the settled approve is among the holds, and the allowance is in the snapshot: 60 + 60 of 100.
      expect(held.filter((x) => x.standing && !x.pending).map((x) => x.amount)).toEqual([60_000_000n]);
      await checkHeld(chain, w.address, [item], [0n], snap, held, []);
      // 41 does not fit beside the 60 the spender may pull.
      await expect(checkHeld(chain, w.address, [{ ...item, amount: 41_000_000n }], [0n], snap, held, [])).rejects.toMatchObject({
        code: 'INSUFFICIENT_BALANCE',
      });
      // The spender pulls 25 before the allowance is read again (75 left, 35 allowed): while
      // T predates the approve, its pair stays held at what it granted, never at a lower read
      // (which a node behind the receipt's could give too): 15 fits, 16 does not.
      await pull(spender, w.address, 25_000_000n);
      await checkHeld(chain, w.address, [{ ...item, amount: 15_000_000n }], [0n], snap, held, []);
      await expect(checkHeld(chain, w.address, [{ ...item, amount: 16_000_000n }], [0n], snap, held, [])).rejects.toMatchObject({
        code: 'INSUFFICIENT_BALANCE',
      });
    } finally {
      await h.startWorker();
    }
  });

  it('an approve beyond what is available (an "unlimited" approval) is refused with 422 INSUFFICIENT_BALANCE', async () => {
    const w = await freshWallet(h, '10');
    const before = await written(h, w);
    const unlimited = { ...approve(h, randomAddress(), 0), parameters: [randomAddress(), ((1n << 256n) - 1n).toString()] };
    expectRefused(await write(h, w, [unlimited]), 422, 'INSUFFICIENT_BALANCE');
    expectRefused(await write(h, w, [approve(h, randomAddress(), 11)]), 422, 'INSUFFICIENT_BALANCE');
    expect(await written(h, w)).toEqual(before);
  });
});

describe('transferFrom pulling from a wallet address', () => {
  it('is held on the address pulled from, beside its pending withdrawals; write/sign checks the same holds', async () => {
    const w = await freshWallet(h, '100');
    const c = await child(h, w);
    // An allowance granted on chain, outside the service: nothing holds it but the pull.
    await sendAs(chainOf(h, ETH), w.address, usdcOf(h), erc20('approve', [c.address, 100_000_000n]));
    await h.stopWorker(); // keep the withdrawal below pending
    try {
      const pending = await withdraw(h, w, randomAddress(), '60');
      expect(pending.status, JSON.stringify(pending.body)).toBe(200);
      const before = await written(h, w);
      expectRefused(await write(h, w, [transferFrom(h, w.address, randomAddress(), 41)], { addressId: c.id }), 422, 'INSUFFICIENT_BALANCE');
      expectRefused(
        await write(h, w, [transferFrom(h, w.address, randomAddress(), 41)], { addressId: c.id, sign: true }),
        422,
        'INSUFFICIENT_BALANCE',
      );
      expect(await written(h, w)).toEqual(before);
      const pull = await write(h, w, [transferFrom(h, w.address, randomAddress(), 40)], { addressId: c.id });
      expect(pull.status, JSON.stringify(pull.body)).toBe(200);
      // The master now has nothing left to give.
      expectRefused(await withdraw(h, w, randomAddress(), '1'), 422, 'INSUFFICIENT_BALANCE');
      await h.startWorker();
      await settled(h, w, pending.body.data.id);
      await settled(h, w, pull.body.data.id);
    } finally {
      await h.startWorker();
    }
    expect(await balance(w.address)).toBe(0n);
  });
});
