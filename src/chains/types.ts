/**
 * What modules know of a blockchain. Everything is in domain terms (addresses as strings,
 * amounts as bigint base units) so Tron and Solana adapters slot in beside the EVM one.
 */
import type { ChainConfig } from '../config/index.js';
import type { SigningAccount } from '../keys/types.js';
import type { Sender } from './sending.js';
import type { BlockPointer, FeeReport, Receipt } from './receipts.js';
import type { Capabilities } from './capabilities.js';

// The sending side (Sender, quotes, intents, receipts) and the swap side live beside this
// file, re-exported here: modules import the whole seam from chains/types.ts.
export type { BlockPointer, FeeReport, Receipt, ReceiptDetails, SignedFeeFields } from './receipts.js';
export type {
  Ordering,
  CallLimit,
  NetworkData,
  SigningKey,
  SignedTransaction,
  ChildFeeFunding,
  QuoteOptions,
  FeeQuote,
  Sender,
  SenderCore,
  NonceSender,
  ExpirySender,
} from './sending.js';
export type { SwapQuote, SwapCall, SwapProvider } from './swapping.js';
export type { StakeResource, StakingOperation, StakePosition, Unlocking, StakingState, StakingOutcome, Staking } from './staking.js';
export type {
  Batching,
  Capabilities,
  CapabilityName,
  ContractCallInput,
  Contracts,
  EncodedContractCall,
  FeeSponsorship,
  ForeignChains,
  ForeignLookup,
  MessagePayload,
  PaymentRequest,
  PaymentRequests,
  PersonalMessages,
  PriceFeedRound,
  PriceFeeds,
  SignedGrant,
  TokenCall,
  TypedDataInput,
  TypedDataSigning,
} from './capabilities.js';
export type { ListRead, ScreeningReads } from './screening.js';
export type { CallIntent, IntentBody, NativeIntent, Payment, TokenIntent, TxIntent } from './intents.js';

// ---- addresses and keys (one codec and one key derivation per family) ---------------------

/**
 * A chain family's name (chains/families.ts lists the families; a chain's configuration
 * names its family: blockchain.family).
 */
export type ChainFamilyName = string;

/**
 * A family's addresses: the one parser of what clients send and the one formatter of what
 * we derive. `normalize` never throws (bad input is a null the caller turns into a 4xx).
 */
export interface AddressCodec {
  readonly family: ChainFamilyName;
  /**
   * The canonical form of an address (EVM: EIP-55; Tron: base58check `T…`; Solana: base58),
   * or null when it is not a valid address of the family. Accepts the other spellings
   * clients send: on EVM all-lower or all-upper case hex; on Tron hex with the 0x41 prefix
   * (`41…`, `0x41…`) or the 20-byte EVM-style hex (`0x…`) the TVM and its logs use.
   */
  normalize(input: unknown): string | null;
  /**
   * The canonical address of a public key (secp256k1: 33 or 65 bytes; ed25519: 32 bytes).
   * Throws on a malformed key: keys are our own data, never client input.
   */
  fromPublicKey(publicKey: Uint8Array): string;
  /** Whether two spellings name the same account (false when either is invalid). */
  equals(a: string, b: string): boolean;
}

/** Turns child indexes into addresses without the seed (bip32 families, from the account xpub). */
export interface ChildAddressDeriver {
  /** The canonical address of child `index` (0 <= index < 2^31). */
  address(index: number): string;
  /** Zeroes the chain code (with one child private key it gives the account's): when dropped. */
  wipe(): void;
}

// The key vocabulary (an account node opened to sign, typed data as signed) is keys/'s.
export type { SigningAccount, TypedDataPayload } from '../keys/types.js';

/**
 * How a family derives keys from a wallet's BIP-39 seed.
 *
 * - `bip32` (EVM, Tron; secp256k1): the account node is hardened, children are not. The
 *   wallet stores the account's extended public key (sealed), and `openAccount` derives any
 *   child's public key and address from it: issuing an address never opens the seed.
 * - `slip10` (Solana; ed25519): every level is hardened (ed25519 has no public child
 *   derivation), so a child's public key needs the seed. The service derives Solana
 *   addresses at issuance time, in the batch that reserves their indexes: it opens the
 *   wallet's mnemonic through the vault once per batch, derives the batch's public keys with
 *   `publicKeysFromSeed` (the m/44'/501' node once, then two levels per address), zeroes the
 *   seed and every node before the batch commits, and stores the addresses. No seed or
 *   private node stays open between batches; signing derives the child's key again.
 */
export interface KeyDerivation {
  readonly family: ChainFamilyName;
  readonly curve: 'secp256k1' | 'ed25519';
  readonly scheme: 'bip32' | 'slip10';
  /**
   * The wallet's account path: the node whose xpub a bip32 wallet stores (m/44'/60'/0'/0,
   * m/44'/195'/0'/0); on slip10 the common hardened prefix of every child (m/44'/501').
   */
  readonly accountPath: string;
  /** The full path of child `index`: `accountPath/i` on bip32; m/44'/501'/i'/0' on Solana. */
  childPath(index: number): string;
  /** Where children's public keys come from: the stored account xpub, or the seed (above). */
  readonly childKeysFrom: 'account-xpub' | 'seed';
  /** The account node's extended public key (bip32 only; stored sealed on the wallet). */
  accountXpub?(seed: Uint8Array): string;
  /** Opens a stored account xpub to derive children without the seed (bip32 only). */
  openAccount?(xpub: string): ChildAddressDeriver;
  /**
   * Public keys of children from the seed, in `indexes` order (every family; the only way on
   * slip10). Every private node on the way is zeroed; the seed stays the caller's to zero.
   */
  publicKeysFromSeed(seed: Uint8Array, indexes: readonly number[]): Uint8Array[];
  /**
   * The 32-byte private key of child `index` (secp256k1 scalar; ed25519 RFC 8032 seed), to
   * sign or export. The caller zeroes it; intermediate nodes are zeroed here.
   */
  privateKeyFromSeed(seed: Uint8Array, index: number): Uint8Array;
  /** The account's private node (see SigningAccount); the seed stays the caller's to zero. */
  openSigningAccount(seed: Uint8Array): SigningAccount;
}

export interface BalanceQuery {
  owner: string;
  /** Token contract address, or null for the chain's native coin. */
  token: string | null;
}

export interface BlockRef {
  number: bigint;
  hash: string;
  parentHash: string;
  /** Unix seconds. */
  timestamp: number;
}

/** A value transfer seen on chain: a token Transfer log, or a top-level native transfer. */
export interface TransferEvent {
  /** Token contract, or null for the native coin. */
  token: string | null;
  from: string;
  /**
   * Other addresses that paid into the same transaction as `from` did, when the chain does
   * not say whose funds reached `to` (Solana: every owner whose account of the mint lost
   * some, every account that lost lamports beyond the fee). AML screening screens them
   * with `from`: any of them may be where the deposit came from. Absent: `from` alone.
   */
  payers?: string[];
  to: string;
  amount: bigint;
  txHash: string;
  /** The log's index in its block; -1 for a native (top-level) transfer. */
  logIndex: number;
  block: BlockPointer;
}

export interface ScanResult {
  /** Every block of the range, in order. */
  blocks: BlockRef[];
  /** Transfers to watched addresses, in chain order. */
  transfers: TransferEvent[];
}

export interface ChainAdapter {
  readonly config: ChainConfig;
  /** Canonical form of an address (EIP-55 on EVM), or null when it is not valid here. */
  normalizeAddress(address: string): string | null;
  /** One round trip where the chain allows it (Multicall3). Same order as the queries. */
  getBalances(queries: BalanceQuery[]): Promise<bigint[]>;
  getBlockNumber(): Promise<bigint>;
  /**
   * The newest block that is final, given the head just read (`getBlockNumber`): deposits in
   * it and below are confirmed. Families with probabilistic finality count depth (EVM:
   * `head - confirmations + 1`, the head's block counting 1); a family whose node says
   * which blocks are irreversible answers that (Tron: the solidified block, whatever the
   * configured confirmations). Never above `head`.
   */
  finalizedHead(head: bigint): Promise<bigint>;

  // Reading the chain (deposits).
  getBlock(number: bigint): Promise<BlockRef | null>;
  /**
   * Transfers of `tokens` (and of the native coin) to addresses for which `isWatched` is
   * true, in blocks `from..to` inclusive. A constant number of calls per range, whatever
   * the number of watched addresses.
   */
  scan(from: bigint, to: bigint, tokens: string[], isWatched: (address: string) => boolean): Promise<ScanResult>;
  /** Transfers made by one mined transaction (the deposit finder); [] when not mined. */
  transfersOfTransaction(hash: string, tokens: string[], isWatched: (address: string) => boolean): Promise<TransferEvent[]>;

  // Sending (sweeps, withdrawals): the family's side of the outbound lifecycle.
  readonly sender: Sender;
  /** Sends a signed raw transaction; returns its hash. Resending a known one is not an error. */
  broadcast(raw: string): Promise<string>;
  getReceipt(hash: string): Promise<Receipt | null>;
  /** How the family's receipts and network data show on the public records (fee fields). */
  readonly fees: FeeReport;

  close(): void;

  /** decimals() of a token contract (or a mint's); null when the address does not answer it (no token, a revert). */
  readTokenDecimals(token: string): Promise<number | null>;

  /**
   * The optional parts the family offers, each absent where it does not (chains/capabilities.ts):
   * a route that needs one asks `capability(adapter, name)`, which answers 422 NOT_SUPPORTED
   * for an absent one, in one place.
   */
  readonly capabilities: Capabilities<ChainAdapter>;
}
