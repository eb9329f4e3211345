// TIP-191 digests and Tron contract encoding against tronweb's own code (no node involved).
import { describe, expect, it } from 'vitest';
import { Trx, utils } from 'tronweb';
import { encodeFunctionData, erc20Abi, hexToBytes } from 'viem';
import { secp256k1 } from '@noble/curves/secp256k1';
import { messageDigest } from '../messages.js';
import { tronCodec, tronEvmHex } from './codec.js';
import { encodeTronCall, describeTronTokenCall } from './contracts.js';
import { prepareTronMessage } from './message.js';

const KEY = '0f'.repeat(32);
const ADDRESS = tronCodec.fromPublicKey(secp256k1.getPublicKey(hexToBytes(`0x${KEY}`), false));

describe('TIP-191 (signMessageV2)', () => {
  it("text and bytes hash as tronweb's hashMessage, and a signature of the digest verifies with verifyMessageV2", () => {
    for (const [given, asTronweb] of [
      ['hello tron', 'hello tron'],
      ['0x48656c6c6f', hexToBytes('0x48656c6c6f')],
      ['héllo ☃', 'héllo ☃'],
    ] as const) {
      const p = prepareTronMessage(given);
      expect(p.standard).toBe('TIP-191');
      expect(p.digest).toBe(utils.message.hashMessage(asTronweb as string | Uint8Array));
      expect(messageDigest(p)).toBe(p.digest);
      const sig = secp256k1.sign(hexToBytes(p.digest as `0x${string}`), hexToBytes(`0x${KEY}`), { lowS: true });
      const hex = `0x${sig.toCompactHex()}${(27 + sig.recovery).toString(16)}`;
      expect(Trx.verifyMessageV2(asTronweb as string | Uint8Array, hex)).toBe(ADDRESS);
    }
  });

  it('refuses odd or empty hex (400)', () => {
    expect(() => prepareTronMessage('0xabc')).toThrow(/even, non-zero/);
    expect(() => prepareTronMessage('0x')).toThrow(/even, non-zero/);
  });
});

describe('Tron contract calls', () => {
  it('encodes T… arguments as their 20 bytes, the contract kept in T… form; token calls read back in T…', () => {
    const usdt = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
    const e = encodeTronCall(
      { address: usdt, method: 'transfer', parameters: [ADDRESS, '7'], abi: erc20Abi as unknown as unknown[] },
      'calls.0',
    );
    expect(e.to).toBe(usdt);
    expect(e.data).toBe(encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [tronEvmHex(ADDRESS)!, 7n] }));
    expect(describeTronTokenCall(e.data)).toEqual({ kind: 'transfer', to: ADDRESS, amount: 7n });
  });

  it('refuses a T… contract with a bad checksum (400 on calls.0.address), and TRX sent with a call', () => {
    const call = {
      address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u',
      method: 'transfer',
      parameters: [ADDRESS, '7'],
      abi: erc20Abi as unknown as unknown[],
    };
    expect(() => encodeTronCall(call, 'calls.0')).toThrow(/calls\.0\.address/);
    const payable = [{ type: 'function', name: 'deposit', stateMutability: 'payable', inputs: [], outputs: [] }];
    expect(() =>
      encodeTronCall(
        { address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', method: 'deposit', parameters: [], abi: payable, value: 1n },
        'calls.0',
      ),
    ).toThrow(/not supported on Tron/);
  });
});
