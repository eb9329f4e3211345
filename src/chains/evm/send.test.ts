import { describe, expect, it } from 'vitest';
import { encodeFunctionData, erc20Abi, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { encodeTokenTransfer } from './send.js';

describe('encodeTokenTransfer', () => {
  it('encodes exactly what viem encodes', () => {
    const amounts = [0n, 1n, 10_000n, 2n ** 64n + 7n, 2n ** 255n, 2n ** 256n - 1n];
    for (const amount of amounts) {
      const to = privateKeyToAccount(generatePrivateKey()).address;
      for (const form of [to, to.toLowerCase()]) {
        expect(encodeTokenTransfer(form, amount)).toBe(
          encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [form as Address, amount] }),
        );
      }
    }
  });

  it('refuses what is not an address or a uint256', () => {
    expect(() => encodeTokenTransfer('0x1234', 1n)).toThrow();
    expect(() => encodeTokenTransfer(`0x${'1'.repeat(40)}`, -1n)).toThrow();
    expect(() => encodeTokenTransfer(`0x${'1'.repeat(40)}`, 2n ** 256n)).toThrow();
  });
});
