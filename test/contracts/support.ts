/** ABI entries (JSON, as a client sends them) and small helpers shared by the contract tests. */
import { sql } from 'kysely';
import type { Harness } from '../support/harness.js';

const fn = (name: string, inputs: [string, string][], outputs: string[], stateMutability: string) => ({
  type: 'function',
  name,
  inputs: inputs.map(([n, type]) => ({ name: n, type, internalType: type })),
  outputs: outputs.map((type) => ({ name: '', type, internalType: type })),
  stateMutability,
});

export const ABI = {
  balanceOf: fn('balanceOf', [['account', 'address']], ['uint256'], 'view'),
  decimals: fn('decimals', [], ['uint8'], 'view'),
  symbol: fn('symbol', [], ['string'], 'view'),
  transfer: fn(
    'transfer',
    [
      ['to', 'address'],
      ['value', 'uint256'],
    ],
    ['bool'],
    'nonpayable',
  ),
  transferFrom: fn(
    'transferFrom',
    [
      ['from', 'address'],
      ['to', 'address'],
      ['value', 'uint256'],
    ],
    ['bool'],
    'nonpayable',
  ),
  increaseAllowance: fn(
    'increaseAllowance',
    [
      ['spender', 'address'],
      ['increment', 'uint256'],
    ],
    ['bool'],
    'nonpayable',
  ),
  approve: fn(
    'approve',
    [
      ['spender', 'address'],
      ['value', 'uint256'],
    ],
    ['bool'],
    'nonpayable',
  ),
};

/** Multicall3's tryAggregate: an array of structs as input and output. */
export const TRY_AGGREGATE = {
  type: 'function',
  name: 'tryAggregate',
  stateMutability: 'payable',
  inputs: [
    { name: 'requireSuccess', type: 'bool' },
    {
      name: 'calls',
      type: 'tuple[]',
      components: [
        { name: 'target', type: 'address' },
        { name: 'callData', type: 'bytes' },
      ],
    },
  ],
  outputs: [
    {
      name: 'returnData',
      type: 'tuple[]',
      components: [
        { name: 'success', type: 'bool' },
        { name: 'returnData', type: 'bytes' },
      ],
    },
  ],
};

export function call(address: string, method: keyof typeof ABI, parameters: unknown[] = [], abi: unknown[] = [ABI[method]]) {
  return { address, method, parameters, abi };
}

/** Rows that would betray a partial write: transactions of the contract kinds and outbound rows. */
export async function writtenRows(h: Harness): Promise<{ transactions: number; outbound: number }> {
  const t = await sql<{ n: string }>`SELECT count(*) AS n FROM transactions WHERE type IN ('CUSTOM_SMART_CONTRACT', 'SIGNED')`.execute(
    h.database.db,
  );
  const o = await sql<{ n: string }>`SELECT count(*) AS n FROM outbound_txs`.execute(h.database.db);
  return { transactions: Number(t.rows[0]!.n), outbound: Number(o.rows[0]!.n) };
}
