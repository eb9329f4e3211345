/**
 * The keys' vocabulary: curves, a key lent for one signature, an account node opened to sign
 * with its children, and what the signer is handed of a wallet's chain family (its
 * derivation and how its addresses are named). keys/ knows curves and the vault; each
 * family's derivation and address format are the family's (src/chains/<family>/), handed
 * to the signer by the composition root (services.ts, WalletService.keysOf). chains/types.ts
 * re-exports these for the seam.
 */

export type Curve = 'secp256k1' | 'ed25519';

/**
 * One key, lent by the signer for one signature (keys/signer.ts withKey); the family decides
 * what is signed. The signer lends the family's curve: secp256k1 keys sign digests, ed25519
 * keys sign messages (the other method throws).
 */
export interface SigningKey {
  /** secp256k1 over a 32-byte digest, low-s, with its recovery bit. */
  signDigest(digest: Uint8Array): { r: bigint; s: bigint; recovery: number };
  /** ed25519 (RFC 8032) over the message bytes: 64 bytes. Absent on keys that are not ed25519. */
  signMessage?(message: Uint8Array): Uint8Array;
}

/**
 * An account's private node, opened from the seed to sign with its children (the signer
 * keeps one per wallet for a few minutes: keys/signer.ts). bip32: the account node;
 * slip10: the hardened prefix every child shares.
 */
export interface SigningAccount {
  /**
   * Child `index`'s 32-byte private key (in a buffer of its own: the caller zeroes it) and
   * its public key (secp256k1: 33 bytes; ed25519: 32). Intermediate nodes are zeroed.
   */
  child(index: number): { privateKey: Uint8Array; publicKey: Uint8Array };
  /** The node's private key and chain code, by reference (tests check that wipe zeroes them). */
  secrets(): Uint8Array[];
  /** Zeroes the node's private key and chain code. */
  wipe(): void;
}

/**
 * A wallet's keys as the signer is handed them: its chain family's derivation (at the chain's
 * account path; chains/types.ts KeyDerivation) and address codec (AddressCodec), of which the
 * signer uses only this much.
 */
export interface SignerWalletKeys {
  derivation: {
    readonly family: string;
    readonly curve: Curve;
    openSigningAccount(seed: Uint8Array): SigningAccount;
  };
  codec: {
    /** The canonical address of a public key. */
    fromPublicKey(publicKey: Uint8Array): string;
    /** Whether two spellings name the same account. */
    equals(a: string, b: string): boolean;
  };
}

/**
 * A personal message as recorded (chains/types.ts MessagePayload): its standard, the text or
 * the bytes as 0x hex, and the digest its family's prepareMessage computed.
 */
export interface SignableMessage {
  standard: string;
  kind: 'text' | 'bytes';
  message: string;
  digest: string;
}

/**
 * How the signer signs a recorded message (handed in: chains/messages.ts, messageSigning):
 * the digest computed again from the message under its standard, and whether the standard
 * signs the message bytes themselves with ed25519 (the digest is then those bytes, 0x hex)
 * rather than a 32-byte digest with secp256k1. Throws on a standard it does not know.
 */
export type MessageSigning = (message: SignableMessage) => { digest: string; signsBytes: boolean };

/** Validated EIP-712 typed data (a family's prepareTypedData) and the digest that is signed. */
export interface TypedDataPayload {
  domain: { name: string; version: string; chainId: number; verifyingContract: string; salt?: string };
  types: Record<string, { name: string; type: string }[]>;
  primaryType: string;
  message: Record<string, unknown>;
  /** The EIP-712 digest that is signed: keccak256(0x1901 || domainSeparator || hashStruct(message)). */
  digest: string;
}
