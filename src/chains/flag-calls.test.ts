import { describe, expect, it } from 'vitest';
import { decodeFunctionResult, encodeAbiParameters, encodeFunctionData, parseAbi, toFunctionSelector } from 'viem';
import { decodeFlagResults, encodeFlagCalls, FLAG_SELECTORS, FLAG_SIGNATURES, readFlags } from './flag-calls.js';

const aggregate3 = parseAbi([
  'struct Call3 { address target; bool allowFailure; bytes callData; }',
  'struct Result { bool success; bytes returnData; }',
  'function aggregate3(Call3[] calls) payable returns (Result[] returnData)',
]);

describe('flag calls (aggregate3 of one-address boolean reads)', () => {
  it('names the selectors of the functions it says', () => {
    for (const [k, sel] of Object.entries(FLAG_SELECTORS))
      expect(toFunctionSelector(FLAG_SIGNATURES[k as keyof typeof FLAG_SELECTORS])).toBe(sel);
  });

  it("encodes as viem's ABI coder does, each call allowed to fail", () => {
    const calls = [
      { target: '0x' + '11'.repeat(20), selector: FLAG_SELECTORS.tether, arg: '0x' + 'ab'.repeat(20) },
      { target: '0x' + '22'.repeat(20), selector: FLAG_SELECTORS.sanctions, arg: '0x' + 'CD'.repeat(20) },
    ];
    const expected = encodeFunctionData({
      abi: aggregate3,
      functionName: 'aggregate3',
      args: [
        calls.map((c) => ({
          target: c.target as `0x${string}`,
          allowFailure: true,
          callData: `${c.selector}${c.arg.slice(2).toLowerCase().padStart(64, '0')}` as `0x${string}`,
        })),
      ],
    });
    expect(encodeFlagCalls(calls)).toBe(expected);
  });

  it('decodes answers, a revert or an empty return as null', () => {
    const word = (b: boolean) => encodeAbiParameters([{ type: 'bool' }], [b]);
    const data = encodeAbiParameters(
      [
        {
          type: 'tuple[]',
          components: [
            { type: 'bool', name: 'success' },
            { type: 'bytes', name: 'returnData' },
          ],
        },
      ],
      [
        [
          { success: true, returnData: word(true) },
          { success: true, returnData: word(false) },
          { success: false, returnData: '0x' },
          { success: true, returnData: '0x' },
        ],
      ],
    );
    // Sanity: viem reads the same structure back.
    expect(decodeFunctionResult({ abi: aggregate3, functionName: 'aggregate3', data }).length).toBe(4);
    expect(decodeFlagResults(data, 4)).toEqual([true, false, null, null]);
    expect(() => decodeFlagResults(data, 3)).toThrow(/4 results for 3/);
    expect(() => decodeFlagResults('0x1234', 1)).toThrow(/malformed/);
  });

  it('folds answers back per read; a read with an unanswered call is an Error naming it', async () => {
    const reads = [
      { kind: 'issuer' as const, token: '0x' + '11'.repeat(20), blacklist: 'circle' as const },
      { kind: 'sanctions' as const, oracle: '0x' + '22'.repeat(20) },
    ];
    const addresses = ['0x' + 'aa'.repeat(20), '0x' + 'bb'.repeat(20)];
    const out = await readFlags(
      reads,
      addresses,
      (a) => a,
      async (calls) => calls.map((c) => (c.target.endsWith('22') ? null : c.arg.endsWith('bb'))),
    );
    expect(out[0]).toEqual([false, true]);
    expect(out[1]).toBeInstanceOf(Error);
    expect((out[1] as Error).message).toMatch(/isSanctioned/);
  });
});
