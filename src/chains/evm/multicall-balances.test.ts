import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  decodeAbiParameters,
  encodeAbiParameters,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  multicall3Abi,
  toFunctionSelector,
  type Hex,
} from 'viem';
import {
  AGGREGATE3_SELECTOR,
  BALANCE_OF_SELECTOR,
  GET_ETH_BALANCE_SELECTOR,
  decodeBalanceResultsSettled,
  encodeBalanceCalls,
} from './multicall-balances.js';

const MULTICALL3 = '0xcA11bde05977b3631167028862bE2a173976CA11';
const RESULTS = [
  {
    type: 'tuple[]',
    components: [
      { name: 'success', type: 'bool' },
      { name: 'returnData', type: 'bytes' },
    ],
  },
] as const;
const hexOf = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}` as Hex;
const anAddress = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => getAddress(hexOf(b)));
const aQuery = fc.record({ owner: anAddress, token: fc.option(anAddress, { nil: null }) });
const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}` as Hex;

/** What viem encodes for the same aggregate3 call. */
function viemCalldata(queries: { owner: string; token: string | null }[], allowFailure = false): Hex {
  return encodeFunctionData({
    abi: multicall3Abi,
    functionName: 'aggregate3',
    args: [
      queries.map((q) =>
        q.token
          ? {
              target: q.token as Hex,
              allowFailure,
              callData: encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [q.owner as Hex] }),
            }
          : {
              target: MULTICALL3 as Hex,
              allowFailure,
              callData: encodeFunctionData({ abi: multicall3Abi, functionName: 'getEthBalance', args: [q.owner as Hex] }),
            },
      ),
    ],
  });
}

describe('multicall balance encoding', () => {
  it('uses the selectors viem computes', () => {
    expect(AGGREGATE3_SELECTOR).toBe(
      toFunctionSelector('function aggregate3((address target, bool allowFailure, bytes callData)[] calls)'),
    );
    expect(BALANCE_OF_SELECTOR).toBe(toFunctionSelector('function balanceOf(address)'));
    expect(GET_ETH_BALANCE_SELECTOR).toBe(toFunctionSelector('function getEthBalance(address)'));
  });

  it('encodes exactly what viem encodes, for any batch', () => {
    fc.assert(
      fc.property(fc.array(aQuery, { minLength: 1, maxLength: 12 }), (queries) => {
        expect(encodeBalanceCalls(MULTICALL3, queries)).toBe(viemCalldata(queries));
        expect(encodeBalanceCalls(MULTICALL3, queries, true)).toBe(viemCalldata(queries, true));
      }),
    );
    // Owners in any case (as stored or as typed) encode the same.
    const owner = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
    expect(encodeBalanceCalls(MULTICALL3, [{ owner: owner.toLowerCase(), token: null }])).toBe(viemCalldata([{ owner, token: null }]));
    expect(() => encodeBalanceCalls(MULTICALL3, [{ owner: '0x1234', token: null }])).toThrow(/not an address/);
  });

  it('decodes what viem encodes as results, for any balances', () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }), { minLength: 1, maxLength: 12 }), (values) => {
        const data = encodeAbiParameters(RESULTS, [values.map((v) => ({ success: true, returnData: word(v) }))]);
        expect(decodeBalanceResultsSettled(data, values.length)).toEqual(values);
      }),
    );
  });

  it('refuses anything but one uint256 per call', () => {
    const results = (rows: { success: boolean; returnData: Hex }[]) => encodeAbiParameters(RESULTS, [rows]);
    // A "token" without code: success, no data.
    // No uint256 is never a balance: that call answers null.
    expect(decodeBalanceResultsSettled(results([{ success: true, returnData: '0x' }]), 1)).toEqual([null]);
    expect(decodeBalanceResultsSettled(results([{ success: false, returnData: word(1n) }]), 1)).toEqual([null]);
    expect(decodeBalanceResultsSettled(results([{ success: true, returnData: `${word(1n)}00` }]), 1)).toEqual([null]);
    expect(() => decodeBalanceResultsSettled(results([{ success: true, returnData: word(1n) }]), 2)).toThrow(/1 results for 2/);
    // Truncated or garbage answers are errors, never numbers.
    const good = results([{ success: true, returnData: word(5n) }]);
    expect(decodeBalanceResultsSettled(good, 1)).toEqual([5n]);
    expect(() => decodeBalanceResultsSettled(good.slice(0, -64) as Hex, 1)).toThrow(/malformed/);
    expect(() => decodeBalanceResultsSettled('0x' as Hex, 1)).toThrow(/malformed/);
    expect(() => decodeBalanceResultsSettled(`0x${'f'.repeat(64)}` as Hex, 1)).toThrow(/malformed/);
    expect(() => decodeBalanceResultsSettled('0xzz' as Hex, 1)).toThrow(/malformed/);
    // Settled: each call answers alone (null: failed or no uint256); a malformed whole is still an error.
    const mixed = results([
      { success: true, returnData: word(5n) },
      { success: false, returnData: '0x08c379a0' },
      { success: true, returnData: '0x' },
      { success: true, returnData: word(7n) },
    ]);
    expect(decodeBalanceResultsSettled(mixed, 4)).toEqual([5n, null, null, 7n]);
    expect(() => decodeBalanceResultsSettled(mixed.slice(0, -64) as Hex, 4)).toThrow(/malformed/);
    // Cross-check against viem's decoder on the same bytes.
    const [decoded] = decodeAbiParameters(RESULTS, good);
    expect(BigInt(decoded[0]!.returnData)).toBe(5n);
  });
});
