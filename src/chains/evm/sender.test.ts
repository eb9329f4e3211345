import { describe, expect, it } from 'vitest';
import type { FeeEstimate, Receipt } from '../types.js';
import { EvmSender, bumpFees, type EvmNode } from './sender.js';

const fees = (maxFeePerGas: bigint, maxPriorityFeePerGas: bigint): FeeEstimate => ({ maxFeePerGas, maxPriorityFeePerGas });
const receipt: Receipt = { status: 'success', blockNumber: 7n, blockHash: '0xb', gasUsed: 21_000n, effectiveGasPrice: 2n };

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
    expect(s.voidCall('0xabc')).toEqual({ from: '0xabc', to: '0xabc', value: 0n, data: null, network: { gasLimit: '21000' } });
    expect(s.costOf(5n, { gasLimit: '21000', maxFeePerGas: '3', maxPriorityFeePerGas: '1' })).toBe(63_005n);
    expect(s.ordering).toBe('nonce');
  });

  it('prepares what the caller did not fix, keeps what it did, and refuses a limit below a transfer or a tip above the cap', async () => {
    const { n, calls } = node();
    const s = new EvmSender(n, { feeCacheMs: 0 });
    const intent = { from: '0x1', to: '0x2', value: 1n, data: null };
    expect(await s.prepare(intent, {})).toEqual({ gasLimit: '60000', maxFeePerGas: '100', maxPriorityFeePerGas: '2' });
    const fixed = s.fixedNetwork({ limit: 30_000n, fees: fees(7n, 1n) });
    expect(await s.prepare(intent, fixed)).toEqual({ gasLimit: '30000', maxFeePerGas: '7', maxPriorityFeePerGas: '1' });
    expect(calls.fees).toBe(1);
    expect(() => s.fixedNetwork({ limit: 20_999n })).toThrow(/at least 21000/);
    expect(() => s.fixedNetwork({ fees: fees(1n, 2n) })).toThrow(/between 0 and maxFeePerGas/);
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
