import { describe, expect, it } from 'vitest';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils';
import { ed25519 } from '@noble/curves/ed25519';
import { secp256k1 } from '@noble/curves/secp256k1';
import { mnemonicToAccount } from 'viem/accounts';
import { TronWeb } from 'tronweb';
import { generateMnemonic, seedFromMnemonic } from '../keys/hd.js';
import type { ChainConfig } from '../config/chains.js';
import {
  CHAIN_FAMILIES,
  FAMILY_ACCOUNT_PATHS,
  STANDARD_ACCOUNT_PATHS,
  derivationFor,
  familyOf,
  isChainFamilyName,
} from './family-lookup.js';
import { derivationOfChain, familyOfChain } from './registry.js';

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
/** The well-known development mnemonic (anvil's and hardhat's). */
const DEV_MNEMONIC = 'test test test test test test test test test test test junk';

describe('the family table', () => {
  it('names the three families, each with its curve, scheme and standard paths', () => {
    expect(CHAIN_FAMILIES).toEqual(['evm', 'tron', 'solana']);
    const rows = CHAIN_FAMILIES.map((name) => {
      const { codec, derivation } = familyOf(name);
      expect(codec.family).toBe(name);
      expect(derivation.family).toBe(name);
      return [name, derivation.curve, derivation.scheme, derivation.childKeysFrom, derivation.childPath(7)];
    });
    expect(rows).toEqual([
      ['evm', 'secp256k1', 'bip32', 'account-xpub', "m/44'/60'/0'/0/7"],
      ['tron', 'secp256k1', 'bip32', 'account-xpub', "m/44'/195'/0'/0/7"],
      ['solana', 'ed25519', 'slip10', 'seed', "m/44'/501'/7'/0'"],
    ]);
    expect(isChainFamilyName('tron')).toBe(true);
    expect(isChainFamilyName('bitcoin')).toBe(false);
    expect(isChainFamilyName('toString')).toBe(false);
  });

  it('refuses child indexes outside 0..2^31-1', () => {
    for (const name of CHAIN_FAMILIES) {
      for (const bad of [-1, 0.5, 0x80000000, Number.NaN]) expect(() => familyOf(name).derivation.childPath(bad)).toThrow(/out of range/);
    }
  });

  it('gives a catalogue path its own derivation on bip32 families, refuses one on Solana', () => {
    expect(derivationFor('evm')).toBe(familyOf('evm').derivation);
    expect(derivationFor('evm', "m/44'/60'/0'/0")).toBe(familyOf('evm').derivation);
    expect(derivationFor('evm', "m/44'/61'/0'/0").childPath(1)).toBe("m/44'/61'/0'/0/1");
    expect(() => derivationFor('solana', "m/44'/501'/0'")).toThrow(/not supported/);
    expect(() => derivationFor('tron', 'nonsense')).toThrow(/invalid account path/);
  });

  it("a configured chain's family is its blockchain.family ('evm' when absent), at the configuration's default paths", () => {
    expect(STANDARD_ACCOUNT_PATHS).toEqual(FAMILY_ACCOUNT_PATHS);
    const chain = (family: ChainConfig['blockchain']['family'], derivationPath: string) =>
      ({ blockchain: { family, derivationPath } }) as ChainConfig;
    expect(familyOfChain(chain(undefined, "m/44'/60'/0'/0")).name).toBe('evm');
    for (const name of CHAIN_FAMILIES) {
      expect(familyOfChain(chain(name, FAMILY_ACCOUNT_PATHS[name]))).toBe(familyOf(name));
      expect(derivationOfChain(chain(name, FAMILY_ACCOUNT_PATHS[name]))).toBe(familyOf(name).derivation);
    }
    expect(derivationOfChain(chain('tron', "m/44'/195'/1'/0")).childPath(2)).toBe("m/44'/195'/1'/0/2");
  });
});

describe('EVM keys', () => {
  const { codec, derivation } = familyOf('evm');

  it('derives the published development addresses from the xpub and from the seed alike', () => {
    const seed = seedFromMnemonic(DEV_MNEMONIC);
    const deriver = derivation.openAccount!(derivation.accountXpub!(seed));
    const expected = [
      '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    ];
    expect([0, 1, 2].map((i) => deriver.address(i))).toEqual(expected);
    expect(derivation.publicKeysFromSeed(seed, [0, 1, 2]).map((key) => codec.fromPublicKey(key))).toEqual(expected);
    const key = derivation.privateKeyFromSeed(seed, 0);
    expect(bytesToHex(key)).toBe('ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
    deriver.wipe();
  });

  it("equals viem's mnemonicToAccount for a fresh mnemonic", () => {
    const mnemonic = generateMnemonic();
    const seed = seedFromMnemonic(mnemonic);
    const deriver = derivation.openAccount!(derivation.accountXpub!(seed));
    for (const i of [0, 1, 17]) expect(deriver.address(i)).toBe(mnemonicToAccount(mnemonic, { addressIndex: i }).address);
  });
});

describe('Tron keys', () => {
  const { codec, derivation } = familyOf('tron');

  it("derives what tronweb derives at m/44'/195'/0'/0/i, from the xpub and from the seed", () => {
    // tronweb's TronWeb.fromMnemonic (ethers' HD wallet underneath) is the reference.
    expect(TronWeb.fromMnemonic(ABANDON, "m/44'/195'/0'/0/0").address).toBe('TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH');
    for (const mnemonic of [ABANDON, generateMnemonic()]) {
      const seed = seedFromMnemonic(mnemonic);
      const deriver = derivation.openAccount!(derivation.accountXpub!(seed));
      const fromSeed = derivation.publicKeysFromSeed(seed, [0, 1, 5]).map((key) => codec.fromPublicKey(key));
      [0, 1, 5].forEach((i, n) => {
        const reference = TronWeb.fromMnemonic(mnemonic, derivation.childPath(i));
        expect(deriver.address(i), `index ${i}`).toBe(reference.address);
        expect(fromSeed[n]).toBe(reference.address);
        const key = derivation.privateKeyFromSeed(seed, i);
        expect(`0x${bytesToHex(key)}`).toBe(reference.privateKey);
        expect(codec.fromPublicKey(secp256k1.getPublicKey(key))).toBe(reference.address);
        key.fill(0);
      });
      seed.fill(0);
    }
  });
});

describe('Solana keys', () => {
  const { codec, derivation } = familyOf('solana');

  it("gives Phantom's address for the test phrase, and keys that match their public keys", () => {
    const seed = seedFromMnemonic(ABANDON);
    const keys = derivation.publicKeysFromSeed(seed, [0, 1, 2]);
    // The address Phantom and solana-keygen derive at m/44'/501'/0'/0' (keys/slip10.test.ts cites it).
    expect(codec.fromPublicKey(keys[0]!)).toBe('HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk');
    expect(new Set(keys.map((k) => bytesToHex(k))).size).toBe(3);
    for (const i of [0, 1, 2]) {
      const privateKey = derivation.privateKeyFromSeed(seed, i);
      expect(bytesToHex(ed25519.getPublicKey(privateKey))).toBe(bytesToHex(keys[i]!));
      privateKey.fill(0);
    }
    expect(derivation.openAccount).toBeUndefined();
    expect(derivation.accountXpub).toBeUndefined();
  });

  it('leaves the seed to its caller and refuses out-of-range indexes before deriving anything', () => {
    const seed = hexToBytes('000102030405060708090a0b0c0d0e0f');
    derivation.publicKeysFromSeed(seed, [0]);
    expect(bytesToHex(seed)).toBe('000102030405060708090a0b0c0d0e0f');
    expect(() => derivation.publicKeysFromSeed(seed, [0, 0x80000000])).toThrow(/out of range/);
  });
});

describe("a family's signing account (the signer's per-wallet node)", () => {
  it('gives each child the key and public key the seed derivation gives, and wipe zeroes the node', () => {
    const seed = seedFromMnemonic(generateMnemonic());
    for (const name of CHAIN_FAMILIES) {
      const { derivation } = familyOf(name);
      const account = derivation.openSigningAccount(seed);
      const held = account.secrets();
      expect(held).toHaveLength(2);
      const publicKeys = derivation.publicKeysFromSeed(seed, [0, 3, 7]);
      [0, 3, 7].forEach((index, i) => {
        const child = account.child(index);
        const fromSeed = derivation.privateKeyFromSeed(seed, index);
        expect(bytesToHex(child.privateKey), `${name} ${index}`).toBe(bytesToHex(fromSeed));
        expect(bytesToHex(child.publicKey), `${name} ${index}`).toBe(bytesToHex(publicKeys[i]!));
        fromSeed.fill(0);
        child.privateKey.fill(0);
      });
      expect(() => account.child(0x80000000)).toThrow(/out of range/);
      expect(held.every((b) => b.some((x) => x !== 0))).toBe(true);
      account.wipe();
      expect(held.every((b) => b.every((x) => x === 0))).toBe(true);
    }
    seed.fill(0);
  });
});
