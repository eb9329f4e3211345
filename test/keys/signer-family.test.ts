/**
 * The signer derives through the wallet's chain family (keysOf): a Tron wallet's child key is
 * the one tronweb derives at m/44'/195'/0'/0/i, the address guard speaks the family's format,
 * and an ed25519 family (Solana) lends ed25519 keys, two at once for a fee payer and an
 * owner, while what only secp256k1 signs is refused before its mnemonic is opened.
 */
import { describe, expect, it } from 'vitest';
import { ed25519 } from '@noble/curves/ed25519';
import { secp256k1 } from '@noble/curves/secp256k1';
import { hashMessage } from 'viem';
import { solanaDerivation } from '../../src/chains/solana/derivation.js';
import { sha256 } from '@noble/hashes/sha256';
import { mnemonicToAccount } from 'viem/accounts';
import { TronWeb } from 'tronweb';
import { familyOf } from '../../src/chains/family-lookup.js';
import { AppError } from '../../src/lib/errors.js';
import { generateMnemonic, seedFromMnemonic } from '../../src/keys/hd.js';
import type { SignerWalletKeys } from '../../src/keys/signer.js';
import { localSigner } from '../support/signer.js';

const keysOf = (family: 'tron' | 'solana') => async (): Promise<SignerWalletKeys> => familyOf(family);
const digest = sha256(new TextEncoder().encode('a transaction of the family'));

function opening(mnemonic: string) {
  const calls: string[] = [];
  return { calls, open: async (walletId: string) => (calls.push(walletId), mnemonic) };
}

describe('LocalSigner on a Tron wallet', () => {
  it("lends the key tronweb derives at m/44'/195'/0'/0/i when `from` is that T… address", async () => {
    const mnemonic = generateMnemonic();
    const signer = localSigner(opening(mnemonic).open, { keysOf: keysOf('tron') });
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
    const signer = localSigner(opening(mnemonic).open, { keysOf: keysOf('tron') });
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
    const signer = localSigner(open, { keysOf: keysOf('tron') });
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
  it('lends the fee payer and the owner at once: ed25519 signatures by the derived keys, one opening of the mnemonic', async () => {
    const mnemonic = generateMnemonic();
    const { calls, open } = opening(mnemonic);
    const signer = localSigner(open, { keysOf: keysOf('solana') });
    const seed = seedFromMnemonic(mnemonic);
    const [master, child] = solanaDerivation.publicKeysFromSeed(seed, [0, 3]);
    const addresses = [master!, child!].map((k) => familyOf('solana').codec.fromPublicKey(k));
    const message = new TextEncoder().encode('a Solana message');
    const [a, b] = await signer.withKeys(
      'w',
      [
        { index: 0, from: addresses[0] },
        { index: 3, from: addresses[1] },
      ],
      ([payer, owner]) => [payer!.signMessage!(message), owner!.signMessage!(message)],
    );
    expect(ed25519.verify(a!, message, master!)).toBe(true);
    expect(ed25519.verify(b!, message, child!)).toBe(true);
    expect(calls).toEqual(['w']);
    // A digest is not what an ed25519 key signs; a kept key cannot sign later; the address guard holds.
    await expect(signer.withKey('w', 0, undefined, (key) => key.signDigest(digest))).rejects.toThrow(/signs messages/);
    let kept: { signMessage?: (m: Uint8Array) => Uint8Array } | undefined;
    await signer.withKey('w', 0, undefined, (key) => (kept = key));
    expect(() => kept!.signMessage!(message)).toThrow(/after its turn/);
    await expect(signer.withKeys('w', [{ index: 3, from: addresses[0] }], () => 'signed')).rejects.toThrow(/is not the sender/);
    signer.clear();
  });

  it('refuses EVM transactions, typed data and EIP-191 messages with NOT_SUPPORTED before opening the mnemonic', async () => {
    const { calls, open } = opening(generateMnemonic());
    const signer = localSigner(open, { keysOf: keysOf('solana') });
    const tx = {
      to: '0x0000000000000000000000000000000000000001',
      value: 1n,
      nonce: 0,
      gas: 21_000n,
      maxFeePerGas: 1n,
      maxPriorityFeePerGas: 1n,
    };
    const refusals = [
      await signer.signTransaction('w', 0, 1, tx).catch((err: unknown) => err),
      await signer
        .signMessage('w', 0, { standard: 'EIP-191', kind: 'text', message: 'hi', digest: hashMessage('hi') })
        .catch((err: unknown) => err),
    ];
    for (const refusal of refusals) {
      expect(refusal).toBeInstanceOf(AppError);
      expect((refusal as AppError).code).toBe('NOT_SUPPORTED');
    }
    expect(calls).toEqual([]);
    expect(signer.cachedSecrets('w')).toBeUndefined();
  });
});
