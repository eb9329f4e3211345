import { describe, expect, it } from 'vitest';
import { resolveChain } from '../../configuration.js';
import { rentOf } from './rent.js';

describe('rentOf (Receipt.rentPaid, rentReclaimed)', () => {
  it('counts a token account created (post balance only) as paid and one closed (pre balance only) as reclaimed', () => {
    const meta = {
      // payer, child, child's token account (closed), master's token account (created), mint
      preBalances: [5_000_000_000, 0, 2_039_280, 0, 1_461_600],
      postBalances: [4_999_990_000, 0, 0, 2_039_281, 1_461_600],
      preTokenBalances: [{ accountIndex: 2 }],
      postTokenBalances: [{ accountIndex: 3 }],
    };
    expect(rentOf(meta)).toEqual({ rentPaid: 2_039_281n, rentReclaimed: 2_039_280n });
  });
  it('counts only what the creator added when the address held lamports before its account was created', () => {
    const meta = {
      preBalances: [5_000_000_000, 1_000],
      postBalances: [4_997_955_720, 2_039_280],
      preTokenBalances: [],
      postTokenBalances: [{ accountIndex: 1 }],
    };
    expect(rentOf(meta)).toEqual({ rentPaid: 2_038_280n });
  });
  it('reports nothing for a transfer between existing accounts, or without metadata', () => {
    const meta = {
      preBalances: [10, 2_039_280, 2_039_280],
      postBalances: [5, 2_039_280, 2_039_280],
      preTokenBalances: [{ accountIndex: 1 }, { accountIndex: 2 }],
      postTokenBalances: [{ accountIndex: 1 }, { accountIndex: 2 }],
    };
    expect(rentOf(meta)).toEqual({});
    expect(rentOf(null)).toEqual({});
  });
});

describe('sweepCloseAccounts (chains file)', () => {
  const entry = { blockchain: 'x-chain', network: 'testnet' as const, rpcUrl: 'http://127.0.0.1:1', chainId: 9, name: 'X', symbol: 'X' };
  it('is a Solana chain setting: refused elsewhere, absent by default', () => {
    expect(() => resolveChain({ ...entry, sweepCloseAccounts: true }, 'test')).toThrow(/sweepCloseAccounts: only Solana chains/);
    expect(resolveChain({ ...entry, family: 'solana', sweepCloseAccounts: true }, 'test').sweepCloseAccounts).toBe(true);
    expect(resolveChain({ ...entry, family: 'solana' }, 'test').sweepCloseAccounts).toBeUndefined();
  });
});
