import { describe, expect, it } from 'vitest';
import type { Receipt, TxIntent } from '../types.js';
import { EvmSender, bumpFees, type EvmNode } from './sender.js';
import { evmReceipt, type FeeEstimate } from './fees.js';

const fees = (maxFeePerGas: bigint, maxPriorityFeePerGas: bigint): FeeEstimate => ({ maxFeePerGas, maxPriorityFeePerGas });
const receipt: Receipt = evmReceipt('success', { number: 7n, hash: '0xb' }, 21_000n, 2n);

/** A node that answers from tables and counts its calls (pure logic: no chain needed here). */
function node(over: Partial<EvmNode> = {}) {
  const calls = { fees: 0, receipts: [] as string[] };
  const n: EvmNode = {
    getNonce: async () => 4,
    estimateFees: async () => (calls.fees++, fees(100n, 2n)),
    estimateGas: async () => 50_000n,
    getReceipt: async (hash) => (calls.receipts.push(hash), hash === '0x2' ? receipt : null),
    ...over,
  };
  return { n, calls };
}

describe('EVM sender', () => {
  it('bumps each fee by at least 10% (rounded up) and to at least the current quote', () => {
    expect(bumpFees(fees(100n, 10n), fees(50n, 5n))).toEqual(fees(110n, 11n));
    expect(bumpFees(fees(101n, 1n), fees(50n, 5n))).toEqual(fees(112n, 5n));
    expect(bumpFees(fees(100n, 10n), fees(300n, 20n))).toEqual(fees(300n, 20n));
    // The cap never falls below the tip.
    expect(bumpFees(fees(10n, 10n), fees(1n, 50n))).toEqual(fees(50n, 50n));
  });

  it('adds a 20% margin to the estimate, rounded up', async () => {
    const { n } = node({ estimateGas: async () => 21_001n });
    expect(await new EvmSender(n).estimateLimit({ from: '0x1', to: '0x2', value: 0n })).toEqual({ estimate: 21_001n, limit: 25_202n });
  });

  it("prices a sweep of the whole native balance at a plain transfer's exact 21,000 gas, unestimated and kept", async () => {
    let estimated = 0;
    const { n } = node({ estimateGas: async () => (estimated++, 50_000n) });
    const s = new EvmSender(n);
    const all: TxIntent = { kind: 'native', from: '0x1', to: '0x2', amount: 0n };
    const q = await s.quote(all, {}, { wholeNative: true });
    expect(q).toMatchObject({ fee: 21_000n * 100n, network: { gasLimit: '21000' }, fixed: { gasLimit: '21000' } });
    expect(estimated).toBe(0);
    // A limit the caller fixed stands; without the option the node's estimate and the margin price it.
    expect((await s.quote(all, { gasLimit: '30000' }, { wholeNative: true })).fee).toBe(30_000n * 100n);
    expect((await s.quote(all)).fee).toBe(60_000n * 100n);
    expect(estimated).toBe(1);
  });

  it('shares one fee quote for a second; fresh reads the node; a failure is not remembered', async () => {
    const { n, calls } = node();
    const s = new EvmSender(n, { feeCacheMs: 60_000 });
    await Promise.all([s.quoteFees(), s.quoteFees(), s.quoteFees()]);
    expect(calls.fees).toBe(1);
    await s.quoteFees({ fresh: true });
    expect(calls.fees).toBe(2);
    let fail = true;
    const flaky = new EvmSender(
      { ...n, estimateFees: async () => (fail ? Promise.reject(new Error('down')) : fees(1n, 1n)) },
      { feeCacheMs: 60_000 },
    );
    await expect(flaky.quoteFees()).rejects.toThrow('down');
    fail = false;
    expect(await flaky.quoteFees()).toEqual(fees(1n, 1n));
  });

  it('finds the first landed version in the order given, and stops there', async () => {
    const { n, calls } = node();
    const s = new EvmSender(n);
    expect(await s.findLanded(['0x1', '0x2', '0x3'])).toEqual({ index: 1, receipt });
    expect(calls.receipts).toEqual(['0x1', '0x2']);
    expect(await s.findLanded(['0x9'])).toBeNull();
  });

  it('voids a nonce with a 0-value self-transfer of 21,000 gas; the cost is value + limit x cap', () => {
    const s = new EvmSender(node().n);
    expect(s.voidCall('0xabc')).toEqual({ kind: 'native', from: '0xabc', to: '0xabc', amount: 0n, network: { gasLimit: '21000' } });
    expect(s.costOf(5n, { gasLimit: '21000', maxFeePerGas: '3', maxPriorityFeePerGas: '1' })).toBe(63_005n);
    expect(s.ordering).toBe('nonce');
  });

  it('prepares what the caller did not fix, keeps what it did, and refuses a limit below a transfer or a tip above the cap', async () => {
    const { n, calls } = node();
    const s = new EvmSender(n, { feeCacheMs: 0 });
    const intent: TxIntent = { kind: 'native', from: '0x1', to: '0x2', amount: 1n };
    expect(await s.prepare(intent, {})).toEqual({ gasLimit: '60000', maxFeePerGas: '100', maxPriorityFeePerGas: '2' });
    const fixed = s.fixedNetwork({ limit: 30_000n, fees: fees(7n, 1n) });
    expect(await s.prepare(intent, fixed)).toEqual({ gasLimit: '30000', maxFeePerGas: '7', maxPriorityFeePerGas: '1' });
    expect(calls.fees).toBe(1);
    expect(() => s.fixedNetwork({ limit: 20_999n })).toThrow(/at least 21000/);
    expect(() => s.fixedNetwork({ fees: fees(1n, 2n) })).toThrow(/between 0 and maxFeePerGas/);
  });

  it('prepares within a fee ceiling (what the payout reserved): a fresher quote above it is bid down, the tip at most the cap', async () => {
    const { n } = node({ estimateFees: async () => fees(100n, 30n) });
    const s = new EvmSender(n, { feeCacheMs: 0 });
    const intent: TxIntent = { kind: 'native', from: '0x1', to: '0x2', amount: 1n };
    // 60,000 gas x 100 fits a ceiling of 6,000,000: as quoted.
    expect(await s.prepare(intent, {}, { feeCeiling: 6_000_000n })).toEqual({
      gasLimit: '60000',
      maxFeePerGas: '100',
      maxPriorityFeePerGas: '30',
    });
    // 3,000,000 reserved: 50 per gas at most; 1,200,000: 20, and the tip follows the cap down.
    expect(await s.prepare(intent, {}, { feeCeiling: 3_000_000n })).toEqual({
      gasLimit: '60000',
      maxFeePerGas: '50',
      maxPriorityFeePerGas: '30',
    });
    expect(await s.prepare(intent, {}, { feeCeiling: 1_200_000n })).toEqual({
      gasLimit: '60000',
      maxFeePerGas: '20',
      maxPriorityFeePerGas: '20',
    });
    // A client's cap under the network's fee, approved later, is signed as given (not refused at signing).
    expect(await s.prepare(intent, s.fixedNetwork({ feeCap: 10n }))).toEqual({
      gasLimit: '60000',
      maxFeePerGas: '10',
      maxPriorityFeePerGas: '10',
    });
  });

  it('a replacement keeps the limit and bumps the fees against a fresh quote', async () => {
    const { n, calls } = node();
    const s = new EvmSender(n, { feeCacheMs: 60_000 });
    await s.quoteFees();
    const next = await s.replacementNetwork({ gasLimit: '50000', maxFeePerGas: '100', maxPriorityFeePerGas: '10' });
    expect(next).toEqual({ gasLimit: '50000', maxFeePerGas: '110', maxPriorityFeePerGas: '11' });
    expect(calls.fees).toBe(2);
    await expect(s.replacementNetwork({ gasLimit: '50000' })).rejects.toThrow(/prepared/);
  });
});

describe('funding a child fee (EVM: the child pays)', () => {
  const network = { gasLimit: '65000', maxFeePerGas: '10', maxPriorityFeePerGas: '1' };
  const s = new EvmSender(node().n);
  it('tops the child up with exactly what it lacks of value + limit x cap', () => {
    expect(s.childFeeFunding({ nativeBalance: 0n, value: 0n, network })).toEqual({ kind: 'transfer', amount: 650_000n });
    expect(s.childFeeFunding({ nativeBalance: 150_000n, value: 7n, network })).toEqual({ kind: 'transfer', amount: 500_007n });
  });
  it('sends nothing when the child holds enough', () => {
    expect(s.childFeeFunding({ nativeBalance: 650_000n, value: 0n, network })).toEqual({ kind: 'none' });
  });
});

describe('the fee quote (Sender.quote): what a transaction can cost its sender', () => {
  const intent: TxIntent = { kind: 'native', from: '0x1', to: '0x2', amount: 7n };

  it('estimates the limit with the 20% margin (rounded up) and prices it at the cap: fee = limit x maxFeePerGas', async () => {
    const { n } = node({ estimateGas: async () => 21_001n });
    const q = await new EvmSender(n).quote(intent);
    expect(q.network).toEqual({ gasLimit: '25202', maxFeePerGas: '100', maxPriorityFeePerGas: '2' });
    expect(q.fee).toBe(25_202n * 100n);
    expect(q.limit).toEqual({ estimate: 21_001n, limit: 25_202n });
    // Nothing fixed: the pipeline quotes again when it prepares the transaction.
    expect(q.fixed).toEqual({});
  });

  it("keeps the caller's fields: a given limit is not estimated, given fees are not quoted", async () => {
    const { n, calls } = node({ estimateGas: async () => Promise.reject(new Error('not asked')) });
    const s = new EvmSender(n, { feeCacheMs: 0 });
    const given = s.fixedNetwork({ limit: 30_000n, fees: fees(7n, 1n) });
    const q = await s.quote(intent, given);
    expect(q).toEqual({ network: given, fixed: given, fee: 210_000n });
    const limitOnly = await s.quote(intent, s.fixedNetwork({ limit: 30_000n }));
    expect(limitOnly).toEqual({
      network: { gasLimit: '30000', maxFeePerGas: '100', maxPriorityFeePerGas: '2' },
      fixed: { gasLimit: '30000' },
      fee: 3_000_000n,
    });
    expect(calls.fees).toBe(2);
  });

  it("a fee cap alone (the API's gasPrice) takes the quote's tip, at most the cap; under the current fee it is refused", async () => {
    const s = new EvmSender(node().n);
    const q = await s.quote(intent, s.fixedNetwork({ feeCap: 99n }));
    expect(q.network).toEqual({ gasLimit: '60000', maxFeePerGas: '99', maxPriorityFeePerGas: '2' });
    expect(q.fixed).toEqual({ maxFeePerGas: '99', maxPriorityFeePerGas: '2' });
    expect(q.fee).toBe(60_000n * 99n);
    const low = await new EvmSender(node({ estimateFees: async () => fees(100n, 100n) }).n).quote(intent, s.fixedNetwork({ feeCap: 5n }));
    expect(low.fixed).toEqual({ maxFeePerGas: '5', maxPriorityFeePerGas: '5' });
    // The quote's cap without its tip (98 wei) is what a transaction must offer now.
    await expect(s.quote(intent, s.fixedNetwork({ feeCap: 97n }))).rejects.toThrow(
      /gasPrice 97 wei is below the network's current fee of 98 wei/,
    );
  });

  it('a simulated estimate gets the margin without asking the node; quoteAll reads the fees once; fresh reads them anew', async () => {
    const { n, calls } = node({ estimateGas: async () => Promise.reject(new Error('not asked')) });
    const s = new EvmSender(n, { feeCacheMs: 60_000 });
    const q = await s.quote(intent, {}, { estimate: 50_000n });
    expect(q.network.gasLimit).toBe('60000');
    expect(q.limit).toEqual({ estimate: 50_000n, limit: 60_000n });
    expect(calls.fees).toBe(1);
    await s.quote(intent, {}, { estimate: 50_000n });
    expect(calls.fees).toBe(1);
    await s.quote(intent, {}, { estimate: 50_000n, fresh: true });
    expect(calls.fees).toBe(2);
    const all = await s.quoteAll(
      [
        { intent, estimate: 100_000n },
        { intent, estimate: 21_000n },
      ],
      { fresh: true },
    );
    expect(all.map((a) => a.fee)).toEqual([120_000n * 100n, 25_200n * 100n]);
    expect(calls.fees).toBe(3);
  });

  it("a retry's fees are the bump over the latest earlier attempt that carries fees (at least the quote's), and fixed", async () => {
    const s = new EvmSender(node().n);
    const q = await s.quote(
      intent,
      {},
      {
        above: [{ gasLimit: '90000', maxFeePerGas: '100', maxPriorityFeePerGas: '10' }, { gasLimit: '90000' }],
      },
    );
    expect(q.network).toEqual({ gasLimit: '60000', maxFeePerGas: '110', maxPriorityFeePerGas: '11' });
    expect(q.fixed).toEqual({ maxFeePerGas: '110', maxPriorityFeePerGas: '11' });
    expect(q.fee).toBe(60_000n * 110n);
    // None had fees: the quote's, fixed all the same.
    expect((await s.quote(intent, {}, { above: [{ gasLimit: '90000' }] })).fixed).toEqual({
      maxFeePerGas: '100',
      maxPriorityFeePerGas: '2',
    });
  });

  it('requote fixes more fields over a quote at its fees, without a node call', async () => {
    const { n, calls } = node();
    const s = new EvmSender(n);
    const q = await s.quote(intent, s.fixedNetwork({ feeCap: 100n }));
    const r = s.requote(q, s.fixedNetwork({ limit: 70_000n }));
    expect(r).toEqual({
      network: { gasLimit: '70000', maxFeePerGas: '100', maxPriorityFeePerGas: '2' },
      fixed: { gasLimit: '70000', maxFeePerGas: '100', maxPriorityFeePerGas: '2' },
      fee: 7_000_000n,
    });
    expect(calls.fees).toBe(1);
  });

  it('a call that would revert is refused as the estimate refuses it', async () => {
    const s = new EvmSender(node({ estimateGas: async () => Promise.reject(new Error('execution reverted')) }).n);
    await expect(s.quote(intent)).rejects.toThrow('execution reverted');
  });
});
