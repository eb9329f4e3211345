/**
 * What modules know of a blockchain. Everything is in domain terms (addresses as strings,
 * amounts as bigint base units) so Tron and Solana adapters slot in beside the EVM one.
 */
import type { ChainConfig, ChainFamilyName } from '../config/index.js';

// ---- addresses and keys (one codec and one key derivation per family) ---------------------

/**
 * The chain families the service knows; chains/families.ts maps each to its codec and keys.
 * Declared in config/ (a chain's configuration names its family: blockchain.family).
 */
export type { ChainFamilyName };

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

/**
 * An account's private node, opened from the seed to sign with its children (the signer
 * keeps one per wallet for a few minutes: keys/signer.ts). bip32: the account node;
 * slip10: the hardened prefix every child shares (m/44'/501').
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
  to: string;
  amount: bigint;
  txHash: string;
  /** The log's index in its block; -1 for a native (top-level) transfer. */
  logIndex: number;
  blockNumber: bigint;
  blockHash: string;
}

export interface ScanResult {
  /** Every block of the range, in order. */
  blocks: BlockRef[];
  /** Transfers to watched addresses, in chain order. */
  transfers: TransferEvent[];
}

export interface FeeEstimate {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

export interface Receipt {
  status: 'success' | 'reverted';
  blockNumber: bigint;
  blockHash: string;
  gasUsed: bigint;
  effectiveGasPrice: bigint;
  /**
   * Why the chain says a reverted transaction failed, when it says more than "reverted"
   * (Tron: the contract result and message, e.g. OUT_OF_ENERGY); recorded as its reason.
   */
  failure?: string;
  /**
   * Resources the transaction used besides the fee it paid, on families that meter them
   * apart (Tron: energy of a contract call, and bandwidth bytes, whether taken from stake,
   * from the free allowance or burned). Absent on EVM (gasUsed says it all).
   */
  energyUsed?: bigint;
  bandwidthUsed?: bigint;
}

/**
 * The latest round of a price feed, as the feed reports it (Chainlink's AggregatorV3:
 * latestRoundData() and decimals()). Judging it (stale, carried over, non-positive) is the
 * caller's business.
 */
export interface PriceFeedRound {
  roundId: bigint;
  /** The price in units of 10^-decimals. */
  answer: bigint;
  decimals: number;
  /** Unix seconds. */
  startedAt: number;
  /** Unix seconds; 0 for a round that never completed. */
  updatedAt: number;
  answeredInRound: bigint;
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
  /** Calldata of an ERC-20 `transfer(to, amount)`. */
  encodeTokenTransfer(to: string, amount: bigint): string;

  close(): void;

  // Token metadata and prices (enabling assets, rates).
  /** decimals() of a token contract; null when the address does not answer it (no contract, a revert). */
  readTokenDecimals(token: string): Promise<number | null>;
  /** The latest round of a USD price feed; null when the address does not answer as a feed. */
  readPriceFeed(feed: string): Promise<PriceFeedRound | null>;

  // Contracts and typed data (smart-contract calls, EIP-712 signing).
  /** Validates the call against its ABI and encodes it; a ValidationError names `field`. */
  encodeContractCall(call: ContractCallInput, field: string): EncodedContractCall;
  /**
   * eth_call as `from`; the result as text: scalars as strings (integers in decimal),
   * arrays, structs and several outputs as JSON. A revert is a BusinessRuleError
   * (CONTRACT_REVERTED) carrying the decoded reason.
   */
  readContract(call: ContractCallInput, from: string, field: string): Promise<string>;
  /** Runs the call as `from` without sending it and estimates its gas; reverts as readContract. */
  simulateContractCall(call: ContractCallInput, from: string, field: string): Promise<{ gas: bigint }>;
  /**
   * What encoded calldata does to a token's holdings, judged by its 4-byte selector alone
   * (never by the ABI a client sent, which may lie): null when it is none of the
   * recognised token functions.
   */
  describeTokenCall(data: string): TokenCall | null;
  /** ERC-20 allowances `owner` granted `spender` on `token`, in query order. */
  getAllowances(queries: { owner: string; token: string; spender: string }[]): Promise<bigint[]>;
  /** Validates EIP-712 input (types, domain, message), infers the primary type, hashes it. */
  prepareTypedData(input: TypedDataInput): TypedDataPayload;
  /**
   * Validates a message to sign as the chain's wallets do (EVM: EIP-191 personal_sign; Tron:
   * TIP-191 signMessageV2; text, or bytes as 0x-prefixed hex) and hashes it. Absent on
   * families without one.
   */
  prepareMessage?(message: string, field?: string): MessagePayload;
}

// ---- contracts and typed data (additions for smart-contract calls and EIP-712 signing) --

/** One contract call as a client gives it: an ABI (JSON entries), a method and its arguments. */
export interface ContractCallInput {
  address: string;
  /** A function name, or a full signature such as `transfer(address,uint256)` to pick an overload. */
  method: string;
  /** Arguments in ABI order; integers as decimal strings (or safe-integer numbers). */
  parameters: unknown[];
  abi: unknown[];
  /** Native coin sent with the call, in base units (payable functions only); default 0. */
  value?: bigint;
}

/**
 * A token call recognised by its selector: `transfer` (and ERC-677 `transferAndCall`)
 * moves the caller's tokens; `transferFrom` moves `from`'s; `approve` sets and
 * `increaseAllowance` raises what `spender` may pull from the caller. `malformed`: a
 * recognised selector whose arguments cannot be decoded as that function's.
 */
export type TokenCall =
  | { kind: 'transfer'; to: string; amount: bigint }
  | { kind: 'transferFrom'; from: string; to: string; amount: bigint }
  | { kind: 'approve' | 'increaseAllowance'; spender: string; amount: bigint }
  | { kind: 'malformed'; signature: string };

/** A validated call, ready to send: the contract in canonical form and the calldata. */
export interface EncodedContractCall {
  to: string;
  data: string;
  functionName: string;
  /** Canonical signature, e.g. `transfer(address,uint256)`. */
  signature: string;
  stateMutability: string;
}

/** A personal message after validation: what is signed, and its digest. */
export interface MessagePayload {
  /** How the digest is made (chains/messages.ts): EIP-191 personal_sign (EVM), TIP-191 signMessageV2 (Tron). */
  standard: 'EIP-191' | 'TIP-191';
  kind: 'text' | 'bytes';
  /** As given: the text, or the bytes as 0x-prefixed hex. */
  message: string;
  digest: string;
}

/** Typed data as a client sends it (EIP-712 / eth_signTypedData_v4). */
export interface TypedDataInput {
  domain: { name: string; version: string; chainId: number; verifyingContract: string; salt?: string };
  types: Record<string, unknown>;
  message: Record<string, unknown>;
  primaryType?: string;
}

/** Typed data after validation: complete, primary type resolved, integers as bigint. */
export interface TypedDataPayload {
  domain: { name: string; version: string; chainId: number; verifyingContract: string; salt?: string };
  types: Record<string, { name: string; type: string }[]>;
  primaryType: string;
  message: Record<string, unknown>;
  /** The EIP-712 digest that is signed: keccak256(0x1901 || domainSeparator || hashStruct(message)). */
  digest: string;
}

// ---- swaps (auto-settlement) --------------------------------------------------------------

/*
 * What the service needs of a DEX, in domain terms: quotes over candidate routes, the calls
 * that perform a swap (token approval and the swap itself), and the output a mined swap
 * delivered. registry.ts's swapProviderFor() picks a family's implementation (today a
 * Uniswap V2 style router on EVM, chains/evm/swap-v2.ts).
 */

/** One candidate route, quoted against the pools' current state. */
export interface SwapQuote {
  /** Token addresses from input to output; hops = path.length - 1. */
  path: string[];
  /** What the swap gives now, fees and price impact included (the router's getAmountsOut). */
  amountOut: bigint;
  /** What the pools' mid prices give, before fees and price impact. */
  midAmountOut: bigint;
  /** Gas a swap along this path is expected to use (for CHEAPEST and for gas top-ups). */
  gas: bigint;
}

export interface SwapCall {
  to: string;
  data: string;
  value: bigint;
}

export interface SwapProvider {
  readonly kind: string;
  /** The contract that pulls the input token: the approval's spender. */
  readonly spender: string;
  /** Quotes the direct route and, where the router has a wrapped native coin, the route through it. */
  quote(tokenIn: string, tokenOut: string, amountIn: bigint): Promise<SwapQuote[]>;
  /** Converts native coin (wei) into `token` units at the pools' mid price; null when no pool prices it. */
  nativeValueIn(token: string, wei: bigint): Promise<bigint | null>;
  allowance(token: string, owner: string): Promise<bigint>;
  approveCall(token: string, amount: bigint): SwapCall;
  swapCall(p: { path: string[]; amountIn: bigint; amountOutMin: bigint; recipient: string; deadline: bigint }): SwapCall;
  /** Units of `tokenOut` the mined transaction `hash` transferred to `recipient`; null when unknown. */
  outputOf(hash: string, tokenOut: string, recipient: string): Promise<bigint | null>;
}

// ---- sending: a family's side of the outbound lifecycle ---------------------------------

/*
 * The outbound pipeline (modules/outbound) owns what every family shares: stages
 * (created -> signed -> broadcast -> mined | failed | dropped | replaced), its jobs, settling
 * once, confirmation depth and reorgs. What differs per family is here: how a sender's
 * transactions are ordered, what a fee is and how it is quoted, the limit of a call, the
 * rule for replacing a stuck transaction, the call that voids an ordering slot, and how to
 * find which signed version of a transaction landed. Refusals are typed (chains/errors.ts).
 */

/**
 * How a family orders one sender's transactions:
 * - 'nonce': a counter per sender, each number used once and in order (EVM). The pipeline
 *   allocates numbers gap-free in the caller's database transaction; a stuck transaction is
 *   replaced under the same number with higher fees; a slot that must not carry its call is
 *   filled with `voidCall`.
 * - 'expiry': no counter; a transaction is valid until a deadline (Tron's expiration,
 *   Solana's blockhash) and one that expired unmined is rebuilt and signed again.
 */
export type Ordering = 'nonce' | 'expiry';

/** A call's limit: what the node estimated, and that with the family's safety margin (what is signed). */
export interface CallLimit {
  estimate: bigint;
  limit: bigint;
}

/**
 * A family's own fields of one outbound transaction (EVM: gasLimit, maxFeePerGas,
 * maxPriorityFeePerGas), opaque above the seam and JSON-safe: the pipeline stores them as
 * outbound_txs.network_data and hands them back. Integers are decimal strings.
 */
export type NetworkData = Readonly<Record<string, string>>;

/** What a transaction does, the same in every family. */
export interface TxIntent {
  from: string;
  to: string;
  value: bigint;
  /** Call data (0x hex; Solana: the family's own encoding, chains/solana/intent.ts), or null for a plain transfer. */
  data: string | null;
  /**
   * Who pays the fee when the family lets another account pay it (Sender.sponsoredFees:
   * Solana, where the master pays for its children, childFeeFunding 'none'); absent: `from`
   * pays. Families where the sender always pays never receive it from the pipeline.
   */
  feePayer?: string;
}

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

/** A signed transaction: its bytes as the node takes them (hex), and its hash as the chain will know it. */
export interface SignedTransaction {
  raw: string;
  hash: string;
}

/** The family's answer to "fund a child's fee" for one transaction (Sender.childFeeFunding). */
export type ChildFeeFunding =
  /** The child can pay, or someone else pays: nothing to send first. */
  | { kind: 'none' }
  /** The master sends `amount` of the native coin to the child first (an EVM gas top-up). */
  | { kind: 'transfer'; amount: bigint }
  /**
   * The master lends the child resources from its own stake for the transaction (Tron:
   * energy delegated from staked TRX), and takes them back once the transaction settled,
   * whatever its outcome. In order: `transfer` of the native coin first when above 0
   * (activating the child, bandwidth it lacks), then the master's transaction to the child
   * with value 0 and network data `lend`, then the child's transaction signed with `network`
   * (what was lent covers it), then the master's transaction to the child with value 0 and
   * network data `giveBack`. `lend` and `giveBack` are opaque: the family built them and
   * signs them (its prepare and sign read what they do from them).
   */
  | { kind: 'lend'; transfer: bigint; lend: NetworkData; giveBack: NetworkData; network: NetworkData };

/** Options of Sender.quote. */
export interface QuoteOptions {
  /** Read the node's fees now instead of the shared quote. */
  fresh?: boolean;
  /** What the call uses as a simulation already estimated it: the family adds its margin, the node is not asked. */
  estimate?: bigint;
  /**
   * The network data of earlier attempts of the same transfer, oldest first (a retry): the
   * fees are fixed, the family's bump over the latest one that carries fees (at least the
   * quote's), or the quote when none does.
   */
  above?: NetworkData[];
}

/** What one transaction would cost its sender (Sender.quote). */
export interface FeeQuote {
  /** Complete: what would be signed now, the caller's fixed fields kept. */
  network: NetworkData;
  /**
   * What must be signed as it is when the pipeline prepares the transaction later: the
   * caller's fields (completed: a fee cap's tip) and a retry's fees; the rest is quoted again then.
   */
  fixed: NetworkData;
  /** The most the transaction can cost its sender in the native coin, excluding its value. */
  fee: bigint;
  /** The limit estimated here (by the node, or from `estimate`), with the margin; absent when `given` fixed it. */
  limit?: CallLimit;
}

export interface Sender {
  readonly ordering: Ordering;
  /**
   * Whether a transaction may name another account as its fee payer (TxIntent.feePayer),
   * which then signs too: Solana (the master pays for its children). Elsewhere the sender pays.
   */
  readonly sponsoredFees: boolean;
  /** The chain's count of a sender's transactions: 'pending' includes the node's pool (a counter's seed). */
  nonceOf(address: string, which: 'pending' | 'latest'): Promise<bigint>;
  /**
   * What one transaction would cost, as the family prices it (modules add value + fee and
   * hand `fixed` to the pipeline): `given` fields are kept (a fee cap given alone gets its
   * tip here, and a cap under the network's current fee is a ValidationError naming
   * gasPrice), the limit is estimated with the family's margin (from `opts.estimate`
   * without a node call), the fees come from a quote shared for a second by every caller
   * on the chain (fees move once per block), read now when `fresh`. A call that would
   * revert is a ChainRejectedError with reason 'reverted'.
   */
  quote(intent: TxIntent, given?: NetworkData, opts?: QuoteOptions): Promise<FeeQuote>;
  /**
   * Several intents priced with one read of the fees (read now when `fresh`), in order. An
   * item's `exact`: its `estimate` is priced as it is, without the family's margin (a fee
   * shown to a client, e.g. a contract call's network fee; never what is signed).
   */
  quoteAll(
    items: { intent: TxIntent; given?: NetworkData; estimate?: bigint; exact?: boolean }[],
    opts?: { fresh?: boolean },
  ): Promise<FeeQuote[]>;
  /** `quote` with more fields fixed (e.g. another limit), priced at its fees: no node call. */
  requote(quote: FeeQuote, given: NetworkData): FeeQuote;
  /** A call that moves nothing, to fill or cancel an ordering slot (EVM: a 0-value self-transfer), with its network data. */
  voidCall(from: string): TxIntent & { network: NetworkData };

  // The lifecycle's steps on one transaction, over its opaque network data.
  /**
   * The fields a caller fixed (EVM: a gas limit, both fee caps, or `feeCap` alone: the API's
   * gasPrice, its tip chosen by quote or prepare), checked; a ValidationError names what is wrong.
   */
  fixedNetwork(given: { limit?: bigint; fees?: FeeEstimate; feeCap?: bigint }): NetworkData;
  /**
   * Completes the network data before signing: what the caller fixed stays, the rest is
   * estimated and quoted. A call that would revert is a ChainRejectedError ('reverted').
   * On 'expiry' families it always sets a fresh deadline (a reference block, a recent
   * blockhash), whatever `given` holds: a rebuild after expiry prepares the old row's data again.
   */
  prepare(intent: TxIntent, given: NetworkData): Promise<NetworkData>;
  /**
   * Signs with the lent key; `nonce` is the ordering slot on 'nonce' families (required
   * there) and null on 'expiry' families (the deadline is in `network`). `payerKey`: the
   * key of `intent.feePayer` when it is another account than `from`.
   */
  sign(intent: TxIntent, nonce: bigint | null, network: NetworkData, key: SigningKey, payerKey?: SigningKey): SignedTransaction;
  /** The network data of a replacement of a stuck transaction: the bump rule over `network`, against a fresh quote. */
  replacementNetwork(network: NetworkData): Promise<NetworkData>;
  /** The most a transaction can cost its sender in the native coin. */
  costOf(value: bigint, network: NetworkData): bigint;
  /**
   * How a child address's transaction gets its fee paid ("fund a child's fee"), given what
   * the child holds in the native coin: EVM: the child pays, so the master first sends what it
   * lacks (`transfer`); Solana: the master signs as fee payer (`none`: nothing to send); Tron:
   * resources delegated or TRX sent (issue 15).
   */
  childFeeFunding(p: { nativeBalance: bigint; value: bigint; network: NetworkData }): ChildFeeFunding;
  /**
   * childFeeFunding with the chain read: a family that can lend a child resources (Tron:
   * energy delegated from the master's staked TRX; bandwidth and activation it cannot lend)
   * answers 'lend' when its operator allows it and the master can, else what
   * childFeeFunding answers (EVM, Solana: that answer). `child` sends the transaction,
   * `master` pays; `network` is the child's transaction's quote.
   */
  planChildFunding(p: {
    child: string;
    master: string;
    nativeBalance: bigint;
    value: bigint;
    network: NetworkData;
  }): Promise<ChildFeeFunding>;
  /** The EVM fee fields a prepared transaction carries, for records that show them; null fields when absent. */
  feeFields(network: NetworkData): { gasLimit: bigint | null; maxFeePerGas: bigint | null; maxPriorityFeePerGas: bigint | null };
  /**
   * Which of a transaction's signed versions (hashes, in the order given) landed, with its
   * receipt; null while none has. Looks in that order and stops at the first found.
   */
  findLanded(hashes: string[]): Promise<{ index: number; receipt: Receipt } | null>;
  /**
   * Whether a signed transaction's deadline is behind the chain's head ('expiry' families),
   * so that no node can include it any more: only then may the pipeline rebuild it. Always
   * false on 'nonce' families (a nonce never expires). Asked before looking for a receipt,
   * so a transaction that landed just in time is found, not rebuilt.
   */
  hasExpired(network: NetworkData): Promise<boolean>;
}
