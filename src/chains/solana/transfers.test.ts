import { describe, expect, it } from 'vitest';
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import type { TxIntent } from '../types.js';
import { combineSplTransfers, splPaymentsOf } from './transfers.js';

const address = () => base58.encode(ed25519.getPublicKey(ed25519.utils.randomPrivateKey()));

describe('multi-transfer intents', () => {
  it('reads the payments of a token intent (one, or a batch in order); none for SOL; refuses more than a transaction holds', () => {
    const [from, mint] = [address(), address()];
    const list = [
      { to: address(), amount: 1n },
      { to: address(), amount: (1n << 64n) - 1n },
      { to: address(), amount: 0n },
    ];
    const batch: TxIntent = { kind: 'token', from, token: mint, ...list[0]!, more: list.slice(1) };
    expect(splPaymentsOf(batch)).toEqual(list);
    expect(splPaymentsOf({ kind: 'token', from, token: mint, to: list[0]!.to, amount: 5n })).toEqual([{ to: list[0]!.to, amount: 5n }]);
    expect(splPaymentsOf({ kind: 'native', from, to: list[0]!.to, amount: 5n })).toBeNull();
    const many = Array.from({ length: 64 }, () => ({ to: address(), amount: 1n }));
    expect(() => splPaymentsOf({ ...batch, more: many })).toThrow(/at most 64/);
  });

  it('combines SPL transfers of one owner, fee payer and mint only', () => {
    const [from, mint, payer] = [address(), address(), address()];
    const t = (to: string, amount: bigint, over: object = {}): TxIntent => ({
      kind: 'token',
      from,
      token: mint,
      to,
      amount,
      feePayer: payer,
      ...over,
    });
    const [a, b] = [address(), address()];
    const one = combineSplTransfers([t(a, 1n), t(b, 2n)]);
    expect(one).toMatchObject({ kind: 'token', from, token: mint, feePayer: payer });
    expect(splPaymentsOf(one)).toEqual([
      { to: a, amount: 1n },
      { to: b, amount: 2n },
    ]);
    expect(() => combineSplTransfers([t(a, 1n), t(b, 2n, { token: address() })])).toThrow();
    expect(() => combineSplTransfers([t(a, 1n), t(b, 2n, { feePayer: address() })])).toThrow();
    expect(() => combineSplTransfers([t(a, 1n), { kind: 'native', from, to: b, amount: 5n }])).toThrow();
  });
});
