import { describe, expect, it } from 'vitest';
import { resolveChain } from '../../configuration.js';
import { resourceNetwork, stakeFor } from './resources.js';
import { callOf, encodeRaw, TronTxFormatError } from './tx.js';

const OWNER = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
const TO = 'TVjsyZ7fYF3qLF6BQgPmTEZy1xrNNyVAAA';

describe('lending energy (resources.ts)', () => {
  it('stakes the share of the daily energy that covers the need, one TRX over, at least 1 TRX', () => {
    // 180 G energy a day over 18 G TRX of weight: 10 energy per staked TRX.
    expect(stakeFor(15_000n, 180_000_000_000n, 18_000_000_000n)).toBe(1_501_000_000n);
    expect(stakeFor(15_001n, 180_000_000_000n, 18_000_000_000n)).toBe(1_502_000_000n);
    expect(stakeFor(1n, 180_000_000_000n, 18_000_000_000n)).toBe(2_000_000n);
    expect(() => stakeFor(1n, 0n, 1n)).toThrow();
  });

  it('a resource operation is only ever a value-0 intent without data: network data cannot turn a transfer or a call into one', () => {
    const lend = resourceNetwork({ op: 'delegate', resource: 'ENERGY', balance: 5_000_000n });
    const call = callOf({ from: OWNER, to: TO, value: 0n, data: null }, 0n, lend);
    expect(call).toMatchObject({ kind: 'delegate', resource: 'ENERGY', balance: 5_000_000n });
    expect(() => callOf({ from: OWNER, to: TO, value: 1n, data: null }, 0n, lend)).toThrow(TronTxFormatError);
    expect(() => callOf({ from: OWNER, to: TO, value: 0n, data: '0xa9059cbb' }, 1n, lend)).toThrow(TronTxFormatError);
    expect(() => callOf({ from: OWNER, to: TO, value: 0n, data: null }, 0n, { ...lend, resourceSun: '0' })).toThrow(TronTxFormatError);
    expect(() => callOf({ from: OWNER, to: TO, value: 0n, data: null }, 0n, { ...lend, resourceOp: 'freeze' })).toThrow(TronTxFormatError);
    // Without network data a value-0 transfer stays a transfer (the sender refuses it elsewhere).
    expect(callOf({ from: OWNER, to: TO, value: 0n, data: null }, 0n).kind).toBe('transfer');
    // Delegate and undelegate encode as different contracts.
    const header = { refBlockBytes: '0001', refBlockHash: '0011223344556677', expiration: 1n, timestamp: 0n };
    const back = callOf({ from: OWNER, to: TO, value: 0n, data: null }, 0n, { ...lend, resourceOp: 'undelegate' });
    expect(Buffer.from(encodeRaw(call, header)).toString('latin1')).toContain('protocol.DelegateResourceContract');
    expect(Buffer.from(encodeRaw(back, header)).toString('latin1')).toContain('protocol.UnDelegateResourceContract');
  });

  it('sweepFunding is a Tron chain setting: refused on an EVM chain', () => {
    const entry = {
      blockchain: 'custom-evm',
      network: 'testnet' as const,
      rpcUrl: 'http://127.0.0.1:1',
      chainId: 5,
      name: 'X',
      symbol: 'X',
    };
    expect(() => resolveChain({ ...entry, sweepFunding: 'burn' }, 'test')).toThrow(/sweepFunding: only Tron chains/);
    expect(resolveChain({ ...entry, family: 'tron', sweepFunding: 'delegate' }, 'test').sweepFunding).toBe('delegate');
    expect(resolveChain({ ...entry, family: 'tron' }, 'test').sweepFunding).toBeUndefined();
  });
});
