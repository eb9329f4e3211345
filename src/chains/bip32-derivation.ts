/**
 * The key derivation of the secp256k1 BIP32 families (EVM, Tron): one account node per
 * wallet (hardened down to the coin's account, m/44'/<coin>'/0'/0), children not hardened,
 * so addresses come from the stored account xpub without the seed (keys/hd.ts). Only the
 * coin type and the address format differ between the families.
 */
import { PublicKeyDeriver, accountXpubFromSeed, deriveFromSeed, privateKeyFromSeed, publicKeysFromSeed, wipeNode } from '../keys/hd.js';
import type { AddressCodec, ChainFamilyName, KeyDerivation, SigningAccount } from './types.js';

const MAX_CHILD = 0x7fffffff;

function checkIndex(index: number): void {
  if (!Number.isInteger(index) || index < 0 || index > MAX_CHILD) throw new Error('child index out of range');
}

export function bip32Derivation(family: ChainFamilyName, accountPath: string, codec: AddressCodec): KeyDerivation {
  if (!/^m(\/\d+'?)+$/.test(accountPath)) throw new Error(`invalid account path ${accountPath}`);
  return {
    family,
    curve: 'secp256k1',
    scheme: 'bip32',
    accountPath,
    childKeysFrom: 'account-xpub',
    childPath(index) {
      checkIndex(index);
      return `${accountPath}/${index}`;
    },
    accountXpub: (seed) => accountXpubFromSeed(seed, accountPath),
    openAccount(xpub) {
      const deriver = new PublicKeyDeriver(xpub);
      return { address: (i) => codec.fromPublicKey(deriver.publicKey(i)), wipe: () => deriver.wipe() };
    },
    publicKeysFromSeed: (seed, indexes) => publicKeysFromSeed(seed, accountPath, indexes),
    privateKeyFromSeed(seed, index) {
      checkIndex(index);
      return privateKeyFromSeed(seed, `${accountPath}/${index}`);
    },
    openSigningAccount(seed): SigningAccount {
      const account = deriveFromSeed(seed, accountPath);
      return {
        child(index) {
          checkIndex(index);
          const node = account.deriveChild(index);
          try {
            if (!node.privateKey || !node.publicKey) throw new Error('derivation produced no private key');
            return { privateKey: Uint8Array.from(node.privateKey), publicKey: Uint8Array.from(node.publicKey) };
          } finally {
            wipeNode(node);
          }
        },
        secrets: () => [account.privateKey, account.chainCode].filter((b): b is Uint8Array => b !== null),
        wipe: () => wipeNode(account),
      };
    },
  };
}
