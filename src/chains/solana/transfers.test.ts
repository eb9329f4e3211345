import { describe, expect, it } from 'vitest';
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import { encodeSplTransfer } from './intent.js';
import { combineSplTransfers, decodeSplTransfers, encodeSplTransfers } from './transfers.js';

const address = () => base58.encode(ed25519.getPublicKey(ed25519.utils.randomPrivateKey()));

describe('multi-transfer intents', () => {
  it('round-trips a list, reads a single transfer as a list of one, refuses malformed data', () => {
    const list = [
      { to: address(), amount: 1n },
      { to: address(), amount: (1n << 64n) - 1n },
      { to: address(), amount: 0n },
    ];
    const data = encodeSplTransfers(list);
    expect(data.startsWith('0xf203')).toBe(true);
    expect(decodeSplTransfers(data)).toEqual(list);
    const one = { to: address(), amount: 5n };
    expect(decodeSplTransfers(encodeSplTransfer(one.to, one.amount))).toEqual([one]);
    expect(decodeSplTransfers(data.slice(0, -2))).toBeNull();
    expect(decodeSplTransfers(`0xf201${data.slice(6, 6 + 80)}`)).toBeNull();
    expect(decodeSplTransfers('0xa9059cbb')).toBeNull();
    expect(decodeSplTransfers(null)).toBeNull();
    expect(() => encodeSplTransfers(list.slice(0, 1))).toThrow();
  });

  it('combines SPL transfers of one owner, fee payer and mint only', () => {
    const [from, mint, payer] = [address(), address(), address()];
    const t = (to: string, amount: bigint, over: object = {}) => ({
      from,
      to: mint,
      value: 0n,
      data: encodeSplTransfer(to, amount),
      feePayer: payer,
      ...over,
    });
    const [a, b] = [address(), address()];
    const one = combineSplTransfers([t(a, 1n), t(b, 2n)]);
    expect(one).toMatchObject({ from, to: mint, value: 0n, feePayer: payer });
    expect(decodeSplTransfers(one.data)).toEqual([
      { to: a, amount: 1n },
      { to: b, amount: 2n },
    ]);
    expect(() => combineSplTransfers([t(a, 1n), t(b, 2n, { to: address() })])).toThrow();
    expect(() => combineSplTransfers([t(a, 1n), t(b, 2n, { feePayer: address() })])).toThrow();
    expect(() => combineSplTransfers([t(a, 1n), { from, to: b, value: 5n, data: null }])).toThrow();
  });
});
