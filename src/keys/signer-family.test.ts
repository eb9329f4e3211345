/**
 * The signer derives through the wallet's chain family (keysOf): a Tron wallet's child key is
 * the one tronweb derives at m/44'/195'/0'/0/i, the address guard speaks the family's format,
 * and an ed25519 family is refused before its mnemonic is opened.
 */
import { describe, expect, it } from 'vitest';
import { secp256k1 } from '@noble/curves/secp256k1';
import { sha256 } from '@noble/hashes/sha256';
import { mnemonicToAccount } from 'viem/accounts';
import { TronWeb } from 'tronweb';
import { familyOf } from '../chains/families.js';
import { AppError } from '../lib/errors.js';
import { generateMnemonic } from './hd.js';
import { LocalSigner, type SignerWalletKeys } from './signer.js';

const keysOf = (family: 'tron' | 'solana') => async (): Promise<SignerWalletKeys> => familyOf(family);
const digest = sha256(new TextEncoder().encode('a transaction of the family'));

function opening(mnemonic: string) {
  const calls: string[] = [];
  return { calls, open: async (walletId: string) => (calls.push(walletId), mnemonic) };
}

describe('LocalSigner on a Tron wallet', () => {
  it("lends the key tronweb derives at m/44'/195'/0'/0/i when `from` is that T… address", async () => {
    const mnemonic = generateMnemonic();
    const signer = new LocalSigner(opening(mnemonic).open, { keysOf: keysOf('tron') });
    for (const index of [0, 4]) {
      const reference = TronWeb.fromMnemonic(mnemonic, `m/44'/195'/0'/0/${index}`);
      const sig = await signer.withKey('w', index, reference.address, (key) => key.signDigest(digest));
      const recovered = new secp256k1.Signature(sig.r, sig.s).addRecoveryBit(sig.recovery).recoverPublicKey(digest).toRawBytes(false);
      expect(familyOf('tron').codec.fromPublicKey(recovered)).toBe(reference.address);
      // The guard reads the family's other spellings too (41… hex).
      const hex41 = TronWeb.address.toHex(reference.address);
      await expect(signer.withKey('w', index, hex41, () => 'ok')).resolves.toBe('ok');
    }
    signer.clear();
  });

  it('refuses when the derived address is not `from` (another index), in any spelling the codec reads', async () => {
    const mnemonic = generateMnemonic();
    const signer = new LocalSigner(opening(mnemonic).open, { keysOf: keysOf('tron') });
    const other = TronWeb.fromMnemonic(mnemonic, "m/44'/195'/0'/0/1").address;
    await expect(signer.withKey('w', 2, other, () => 'signed')).rejects.toThrow(/is not the sender/);
    await expect(signer.withKey('w', 2, TronWeb.address.toHex(other), () => 'signed')).rejects.toThrow(/is not the sender/);
    // The EVM address of index 2 of EVM's path: another key altogether.
    await expect(signer.withKey('w', 2, mnemonicToAccount(mnemonic, { addressIndex: 2 }).address, () => 'signed')).rejects.toThrow(
      /is not the sender/,
    );
    signer.clear();
  });

  it("keeps the account node per wallet and zeroes it with its children's keys when cleared", async () => {
    const { calls, open } = opening(generateMnemonic());
    const signer = new LocalSigner(open, { keysOf: keysOf('tron') });
    await Promise.all([0, 1, 2].map((i) => signer.withKey('w', i, undefined, (key) => key.signDigest(digest))));
    expect(calls).toEqual(['w']);
    const held = signer.cachedSecrets('w')!;
    expect(held.length).toBe(5); // account key, chain code, three children
    expect(held.every((b) => b.some((x) => x !== 0))).toBe(true);
    signer.clear();
    expect(held.every((b) => b.every((x) => x === 0))).toBe(true);
  });
});

describe('LocalSigner on an ed25519 family (Solana)', () => {
  it('refuses with NOT_SUPPORTED (issue 16) before opening the mnemonic', async () => {
    const { calls, open } = opening(generateMnemonic());
    const signer = new LocalSigner(open, { keysOf: keysOf('solana') });
    const refusal = await signer.withKey('w', 0, undefined, () => 'signed').catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(AppError);
    expect((refusal as AppError).code).toBe('NOT_SUPPORTED');
    expect(calls).toEqual([]);
    expect(signer.cachedSecrets('w')).toBeUndefined();
  });
});
