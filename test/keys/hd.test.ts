import { HDKey } from '@scure/bip32';
import { describe, expect, it, vi } from 'vitest';
import { mnemonicToSeedSync } from '@scure/bip39';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { bytesToHex, hexToBytes } from 'viem';
import { randomBytes } from 'node:crypto';
import { evmAddressOfPublicKey } from '../../src/chains/evm/address.ts';
import { AddressDeriver } from '../support/signer.ts';
import {
  accountFromMnemonic,
  derivationBackend,
  deriveFromMnemonic,
  derivePrivateKey,
  accountXpubFromSeed,
  generateMnemonic,
  privateKeyFromSeed,
  publicKeysFromSeed,
  isValidMnemonic,
  seedFromMnemonic,
  wipeNode,
} from '../../src/keys/hd.ts';

const EVM_ACCOUNT_PATH = "m/44'/60'/0'/0";
/** The well-known development mnemonic (anvil's and hardhat's): published vectors below. */
const DEV_MNEMONIC = 'test test test test test test test test test test test junk';

describe('derivation backend', () => {
  it('uses libsecp256k1 on this machine (the fast path the benchmark relies on)', () => {
    expect(derivationBackend).toBe('libsecp256k1');
  });
});

describe('AddressDeriver (from the stored xpub, no seed)', () => {
  it('matches the published addresses of the development mnemonic', () => {
    const deriver = new AddressDeriver(accountFromMnemonic(DEV_MNEMONIC, EVM_ACCOUNT_PATH).xpub);
    expect(deriver.address(0)).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    expect(deriver.address(1)).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
    expect(deriver.address(2)).toBe('0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC');
  });

  it("equals viem's mnemonicToAccount for indexes 0..20 of a fresh mnemonic", () => {
    const mnemonic = generateMnemonic();
    const account = accountFromMnemonic(mnemonic, EVM_ACCOUNT_PATH);
    expect(account.accountPath).toBe(EVM_ACCOUNT_PATH);
    expect(account.xpub).toMatch(/^xpub/);
    const deriver = new AddressDeriver(account.xpub);
    const addresses = new Set<string>();
    for (let i = 0; i <= 20; i++) {
      const expected = mnemonicToAccount(mnemonic, { addressIndex: i }).address;
      expect(deriver.address(i), `index ${i}`).toBe(expected);
      addresses.add(expected);
    }
    expect(addresses.size).toBe(21);
  });

  it('agrees with plain BIP32 public derivation (the fallback path) at high indexes', () => {
    const { xpub } = accountFromMnemonic(generateMnemonic(), EVM_ACCOUNT_PATH);
    const deriver = new AddressDeriver(xpub);
    const node = HDKey.fromExtendedKey(xpub);
    for (const i of [0, 1, 999, 65_535, 1_000_000, 0x7fffffff]) {
      expect(deriver.address(i), `index ${i}`).toBe(evmAddressOfPublicKey(node.deriveChild(i).publicKey!));
    }
  });

  it('refuses hardened, negative and fractional indexes', () => {
    const deriver = new AddressDeriver(accountFromMnemonic(DEV_MNEMONIC, EVM_ACCOUNT_PATH).xpub);
    for (const i of [-1, 0x80000000, 1.5, Number.NaN]) expect(() => deriver.address(i), String(i)).toThrow(/out of range/);
  });

  it('refuses an extended key that is not one', () => {
    expect(() => new AddressDeriver('xpub-not-really')).toThrow();
  });
});

describe('derivePrivateKey', () => {
  it("matches the development mnemonic's published key (anvil account 0)", () => {
    expect(derivePrivateKey(DEV_MNEMONIC, EVM_ACCOUNT_PATH, 0)).toBe('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
  });

  it("matches viem's key and the deriver's address for the same index", () => {
    const mnemonic = generateMnemonic();
    const deriver = new AddressDeriver(accountFromMnemonic(mnemonic, EVM_ACCOUNT_PATH).xpub);
    for (const i of [0, 1, 7, 20]) {
      const key = derivePrivateKey(mnemonic, EVM_ACCOUNT_PATH, i);
      expect(key).toMatch(/^0x[0-9a-f]{64}$/);
      const viemKey = mnemonicToAccount(mnemonic, { addressIndex: i }).getHdKey().privateKey!;
      expect(key).toBe(bytesToHex(viemKey));
      expect(privateKeyToAccount(key).address).toBe(deriver.address(i));
    }
  });
});

describe('evmAddressOfPublicKey', () => {
  it('gives the same checksummed address for the compressed and uncompressed key', () => {
    for (let n = 0; n < 5; n++) {
      const node = HDKey.fromMasterSeed(randomBytes(32));
      const account = privateKeyToAccount(bytesToHex(node.privateKey!));
      expect(node.publicKey).toHaveLength(33);
      expect(evmAddressOfPublicKey(node.publicKey!)).toBe(account.address);
      expect(evmAddressOfPublicKey(hexToBytes(account.publicKey))).toBe(account.address);
    }
  });
});

describe('mnemonics', () => {
  it('generates valid 24-word mnemonics, different every time', () => {
    const a = generateMnemonic();
    expect(a.split(' ')).toHaveLength(24);
    expect(isValidMnemonic(a)).toBe(true);
    expect(generateMnemonic()).not.toBe(a);
  });

  it('rejects a mnemonic with a bad checksum or unknown words', () => {
    expect(isValidMnemonic(DEV_MNEMONIC)).toBe(true);
    expect(isValidMnemonic(DEV_MNEMONIC.replace(/junk$/, 'test'))).toBe(false);
    expect(isValidMnemonic('not a mnemonic at all')).toBe(false);
  });
});

describe('wiping what derivation leaves behind', () => {
  it('seedFromMnemonic equals BIP39 (scure) for a string and for bytes', () => {
    const mnemonic = generateMnemonic();
    expect(Buffer.from(seedFromMnemonic(mnemonic))).toEqual(Buffer.from(mnemonicToSeedSync(mnemonic)));
    expect(Buffer.from(seedFromMnemonic(Buffer.from(mnemonic)))).toEqual(Buffer.from(mnemonicToSeedSync(mnemonic)));
  });

  it('deriveFromMnemonic zeroes the seed and every intermediate node; only the node asked for keeps its key', () => {
    const made: HDKey[] = [];
    const seeds: Buffer[] = [];
    const deriveChild = HDKey.prototype.deriveChild;
    const fromMasterSeed = HDKey.fromMasterSeed;
    const spyChild = vi.spyOn(HDKey.prototype, 'deriveChild').mockImplementation(function (this: HDKey, index: number) {
      const child = deriveChild.call(this, index);
      made.push(child);
      return child;
    });
    const spyMaster = vi.spyOn(HDKey, 'fromMasterSeed').mockImplementation((seed, versions) => {
      seeds.push(seed as Buffer);
      const node = fromMasterSeed(seed, versions);
      made.unshift(node);
      return node;
    });
    try {
      const node = deriveFromMnemonic(generateMnemonic(), "m/44'/60'/0'/0");
      expect(made).toHaveLength(5); // master, 44', 60', 0', 0
      expect(made.at(-1)).toBe(node);
      expect(node.privateKey).toBeTruthy();
      for (const n of made.slice(0, -1)) {
        expect(n.privateKey).toBeNull();
        expect(n.chainCode!.every((x) => x === 0)).toBe(true);
      }
      expect(seeds[0]!.every((x) => x === 0)).toBe(true);
      wipeNode(node);
      expect(node.privateKey).toBeNull();
    } finally {
      spyChild.mockRestore();
      spyMaster.mockRestore();
    }
  });

  it('the seed helpers (public keys, a private key, the account xpub) leave every node they made wiped', () => {
    const made: HDKey[] = [];
    const deriveChild = HDKey.prototype.deriveChild;
    const fromMasterSeed = HDKey.fromMasterSeed;
    const spyChild = vi.spyOn(HDKey.prototype, 'deriveChild').mockImplementation(function (this: HDKey, index: number) {
      const child = deriveChild.call(this, index);
      made.push(child);
      return child;
    });
    const spyMaster = vi.spyOn(HDKey, 'fromMasterSeed').mockImplementation((seed, versions) => {
      const node = fromMasterSeed(seed, versions);
      made.push(node);
      return node;
    });
    try {
      const seed = seedFromMnemonic(DEV_MNEMONIC);
      const keys = publicKeysFromSeed(seed, EVM_ACCOUNT_PATH, [0, 1]);
      expect(keys.map((k) => evmAddressOfPublicKey(k))).toEqual([
        '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
        '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      ]);
      const key = privateKeyFromSeed(seed, `${EVM_ACCOUNT_PATH}/0`);
      expect(bytesToHex(key)).toBe('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
      expect(accountXpubFromSeed(seed, EVM_ACCOUNT_PATH)).toBe(accountFromMnemonic(DEV_MNEMONIC, EVM_ACCOUNT_PATH).xpub);
      expect(made.length).toBeGreaterThan(10);
      for (const n of made) {
        expect(n.privateKey).toBeNull();
        expect(n.chainCode!.every((x) => x === 0)).toBe(true);
      }
      expect(() => publicKeysFromSeed(seed, EVM_ACCOUNT_PATH, [0x80000000])).toThrow(/out of range/);
    } finally {
      spyChild.mockRestore();
      spyMaster.mockRestore();
    }
  });
});
