/**
 * HD keys (BIP32/39/44). A wallet's account node (m/44'/60'/0'/0 on EVM chains) is derived
 * once at creation; its extended *public* key is stored, so child addresses are derived
 * without decrypting the seed. Private keys are derived only to sign or export.
 */
import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import { HDKey } from '@scure/bip32';
import { generateMnemonic as bip39Generate, mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import { secp256k1 } from '@noble/curves/secp256k1';
import { keccak_256 } from '@noble/hashes/sha3';
import { bytesToHex } from '@noble/hashes/utils';
import { getAddress } from 'viem';

export function generateMnemonic(): string {
  return bip39Generate(wordlist, 256);
}

export function isValidMnemonic(mnemonic: string): boolean {
  return validateMnemonic(mnemonic, wordlist);
}

export interface AccountNode {
  /** Extended public key of the account node; safe to store in clear. */
  xpub: string;
  accountPath: string;
}

export function accountFromMnemonic(mnemonic: string, accountPath: string): AccountNode {
  const node = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic)).derive(accountPath);
  return { xpub: node.publicExtendedKey, accountPath };
}

/** EVM address of an uncompressed or compressed secp256k1 public key. */
export function evmAddressOfPublicKey(publicKey: Uint8Array): string {
  const uncompressed = publicKey.length === 65 ? publicKey : secp256k1.ProjectivePoint.fromHex(publicKey).toRawBytes(false);
  const hash = keccak_256(uncompressed.subarray(1));
  return getAddress(`0x${bytesToHex(hash.subarray(12))}`);
}

/** libsecp256k1's public tweak-add (~10x noble's) when the prebuilt addon loads. */
type TweakAdd = (publicKey: Uint8Array, tweak: Uint8Array, compressed: boolean) => Uint8Array;
const nativeTweakAdd: TweakAdd | null = (() => {
  try {
    const addon = createRequire(import.meta.url)('secp256k1/bindings') as { publicKeyTweakAdd: TweakAdd };
    return addon.publicKeyTweakAdd.bind(addon);
  } catch {
    return null; // no prebuilt binary for this platform: the pure-JS path below is used
  }
})();

export const derivationBackend = nativeTweakAdd ? 'libsecp256k1' : 'noble';

/**
 * Derives child addresses from a cached account node (non-hardened BIP32 public
 * derivation: child = parent + HMAC-SHA512(chainCode, parent || index)[0..32] * G).
 * Parsing the xpub once and doing one point operation per address is what makes
 * issuance fast; the seed is never touched.
 */
export class AddressDeriver {
  readonly #account: HDKey;
  readonly #publicKey: Uint8Array;
  readonly #chainCode: Buffer;

  constructor(xpub: string) {
    this.#account = HDKey.fromExtendedKey(xpub);
    if (!this.#account.publicKey || !this.#account.chainCode) throw new Error('invalid extended public key');
    this.#publicKey = this.#account.publicKey;
    this.#chainCode = Buffer.from(this.#account.chainCode);
  }

  address(index: number): string {
    if (!Number.isInteger(index) || index < 0 || index >= 0x80000000) throw new Error('non-hardened index out of range');
    if (!nativeTweakAdd) {
      const child = this.#account.deriveChild(index);
      if (!child.publicKey) throw new Error('derivation produced no public key');
      return evmAddressOfPublicKey(child.publicKey);
    }
    const data = Buffer.alloc(37);
    data.set(this.#publicKey, 0);
    data.writeUInt32BE(index, 33);
    const tweak = createHmac('sha512', this.#chainCode).update(data).digest().subarray(0, 32);
    // An out-of-range tweak (probability ~2^-127) makes the addon throw; BIP32 says to skip
    // such an index, and refusing it here is the safe equivalent.
    return evmAddressOfPublicKey(nativeTweakAdd(this.#publicKey, new Uint8Array(tweak), false));
  }
}

/** Private key (hex, 0x-prefixed) of `accountPath/index`, from the decrypted mnemonic. */
export function derivePrivateKey(mnemonic: string, accountPath: string, index: number): `0x${string}` {
  const child = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic)).derive(`${accountPath}/${index}`);
  if (!child.privateKey) throw new Error('derivation produced no private key');
  return `0x${bytesToHex(child.privateKey)}`;
}
