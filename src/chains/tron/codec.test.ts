import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1';
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils';
import { createBase58check } from '@scure/base';
import { utils as tronUtils } from 'tronweb';
import { tronAddressBytes, tronCodec, tronEvmHex, tronHex } from './codec.js';

/** USDT's TRC-20 contract on Tron mainnet, as Tronscan shows it, and its hex (tronweb's toHex). */
const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const USDT_HEX = '41a614f803b6fd780986a42c78ec9c7f77e6ded13c';
const base58check = createBase58check(sha256);

describe('tronCodec', () => {
  it('derives the published address of a private key', () => {
    // trezor-firmware core/tests/test_apps.tron.address.py ("source of test data - binance
    // javascript SDK"): this key's address; tronweb's utils.address.fromPrivateKey agrees.
    const privateKey = '8d596057e510b14cbb9bf24f88803a6d6dbd138dd303a62b175b9e6cc0f3f941';
    for (const compressed of [true, false]) {
      expect(tronCodec.fromPublicKey(secp256k1.getPublicKey(hexToBytes(privateKey), compressed))).toBe(
        'TY72iA3SBtrds3QLYsS7LwYfkzXwAXCRWT',
      );
    }
    expect(tronUtils.address.fromPrivateKey(privateKey)).toBe('TY72iA3SBtrds3QLYsS7LwYfkzXwAXCRWT');
  });

  it("agrees with tronweb's own utilities for random keys (address, hex, round trips)", () => {
    for (let i = 0; i < 20; i++) {
      const privateKey = randomBytes(32);
      const ours = tronCodec.fromPublicKey(secp256k1.getPublicKey(privateKey, false));
      expect(ours).toBe(tronUtils.address.fromPrivateKey(privateKey.toString('hex')));
      const hex = tronHex(ours)!;
      expect(hex).toBe(tronUtils.address.toHex(ours).toLowerCase());
      expect(tronCodec.normalize(hex)).toBe(ours);
      expect(tronUtils.address.fromHex(hex)).toBe(ours);
      privateKey.fill(0);
    }
  });

  it('accepts base58check and the hex spellings, and answers base58check', () => {
    expect(tronCodec.normalize(USDT)).toBe(USDT);
    expect(tronCodec.normalize(USDT_HEX)).toBe(USDT);
    expect(tronCodec.normalize(USDT_HEX.toUpperCase())).toBe(USDT);
    expect(tronCodec.normalize(`0x${USDT_HEX}`)).toBe(USDT);
    expect(tronCodec.normalize(`0x${USDT_HEX.slice(2)}`)).toBe(USDT); // the TVM's 20-byte form
    expect(tronHex(USDT)).toBe(USDT_HEX);
    expect(tronEvmHex(USDT)).toBe(`0x${USDT_HEX.slice(2)}`);
    expect(tronCodec.equals(USDT, `0x${USDT_HEX}`)).toBe(true);
    expect(tronCodec.equals(USDT, 'TY72iA3SBtrds3QLYsS7LwYfkzXwAXCRWT')).toBe(false);
  });

  it('refuses a wrong checksum, a wrong prefix, a wrong length and odd hex with null, never a throw', () => {
    const body = hexToBytes(USDT_HEX.slice(2));
    const withPrefix = (prefix: number, bytes: Uint8Array) => base58check.encode(Uint8Array.from([prefix, ...bytes]));
    const flipped = USDT.slice(0, 10) + (USDT[10] === 'a' ? 'b' : 'a') + USDT.slice(11);
    const bad: unknown[] = [
      flipped, // one character off: the checksum fails
      USDT.slice(0, -1) + (USDT.endsWith('t') ? 'u' : 't'),
      withPrefix(0x00, body), // Bitcoin's prefix
      withPrefix(0xa0, body), // the old testnet prefix
      withPrefix(0x41, body.subarray(1)), // 19 bytes after the prefix
      base58check.encode(Uint8Array.from([0x41, ...body, 0x00])), // one byte too many
      base58check.encode(body), // no prefix at all
      `42${USDT_HEX.slice(2)}`,
      `41${USDT_HEX.slice(2, -1)}`, // odd hex
      `41${USDT_HEX.slice(2)}0`,
      `0x${USDT_HEX.slice(2, -2)}`,
      `0x${USDT_HEX.slice(2)}zz`,
      `41${'g'.repeat(40)}`,
      USDT.replace('T', 't'),
      `${USDT} `,
      ` ${USDT}`,
      'T0000000000000000000000000000000000', // 0 is not a base58 character
      '',
      'T',
      null,
      undefined,
      7,
      { address: USDT },
    ];
    for (const input of bad) expect(tronCodec.normalize(input), String(input)).toBeNull();
    // Prefixes 0x40 and 0x42 also spell 34-character `T…` strings: only the decoded prefix tells.
    for (const prefix of [0x42, 0x40]) {
      const lookalike = withPrefix(prefix, new Uint8Array(20).fill(0xff));
      expect(lookalike).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
      expect(tronCodec.normalize(lookalike), lookalike).toBeNull();
    }
    expect(tronAddressBytes(flipped)).toBeNull();
    expect(tronHex('nope')).toBeNull();
    expect(tronEvmHex(42)).toBeNull();
  });

  it('refuses a malformed public key (our own data) with a throw', () => {
    expect(() => tronCodec.fromPublicKey(new Uint8Array(64))).toThrow();
    expect(() => tronCodec.fromPublicKey(new Uint8Array(65))).toThrow(); // no 0x04 marker
    expect(() => tronCodec.fromPublicKey(Uint8Array.from([0x02, ...new Uint8Array(32).fill(0xff)]))).toThrow(); // off the curve
  });

  it('keeps every 21-byte 0x41 payload round-tripping through base58check', () => {
    for (let i = 0; i < 50; i++) {
      const bytes = Uint8Array.from([0x41, ...randomBytes(20)]);
      const address = tronCodec.normalize(bytesToHex(bytes))!;
      expect(address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
      expect(bytesToHex(tronAddressBytes(address)!)).toBe(bytesToHex(bytes));
    }
  });
});
