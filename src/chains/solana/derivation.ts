/**
 * Solana keys: ed25519 by SLIP-0010 at m/44'/501'/i'/0' (Phantom's and solana-keygen's
 * layout: the account level moves, every level hardened). There is no xpub to store: a
 * child's public key needs the seed, so addresses are derived at issuance time, one vault
 * opening per batch, and stored (chains/types.ts, KeyDerivation).
 */
import { ed25519PublicKey, HARDENED_OFFSET, slip10Child, slip10FromSeed, wipeSlip10 } from '../../keys/slip10.js';
import type { KeyDerivation } from '../types.js';

/** The hardened prefix every Solana child shares; derived once per batch. */
export const SOLANA_ACCOUNT_PATH = "m/44'/501'";

function checkIndex(index: number): void {
  if (!Number.isInteger(index) || index < 0 || index >= HARDENED_OFFSET) throw new Error('child index out of range');
}

export const solanaDerivation: KeyDerivation = {
  family: 'solana',
  curve: 'ed25519',
  scheme: 'slip10',
  accountPath: SOLANA_ACCOUNT_PATH,
  childKeysFrom: 'seed',
  childPath(index) {
    checkIndex(index);
    return `${SOLANA_ACCOUNT_PATH}/${index}'/0'`;
  },
  publicKeysFromSeed(seed, indexes) {
    for (const index of indexes) checkIndex(index);
    const prefix = slip10FromSeed(seed, SOLANA_ACCOUNT_PATH);
    try {
      return indexes.map((index) => {
        const account = slip10Child(prefix, index);
        const child = slip10Child(account, 0);
        wipeSlip10(account);
        try {
          return ed25519PublicKey(child.privateKey);
        } finally {
          wipeSlip10(child);
        }
      });
    } finally {
      wipeSlip10(prefix);
    }
  },
  privateKeyFromSeed(seed, index) {
    const node = slip10FromSeed(seed, solanaDerivation.childPath(index));
    node.chainCode.fill(0);
    return node.privateKey;
  },
  openSigningAccount(seed) {
    const prefix = slip10FromSeed(seed, SOLANA_ACCOUNT_PATH);
    return {
      child(index) {
        checkIndex(index);
        const account = slip10Child(prefix, index);
        const child = slip10Child(account, 0);
        wipeSlip10(account);
        child.chainCode.fill(0);
        return { privateKey: child.privateKey, publicKey: ed25519PublicKey(child.privateKey) };
      },
      secrets: () => [prefix.privateKey, prefix.chainCode],
      wipe: () => wipeSlip10(prefix),
    };
  },
};
