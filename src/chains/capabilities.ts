/**
 * The optional parts of the seam (chains/types.ts re-exports them): what a family offers or
 * not, beside the core every family implements (codec, derivation, balances, scan, heads, the
 * send lifecycle). A family lists what it offers in its adapter's `capabilities`; a route that
 * needs one asks `capability(adapter, name)`, the one place that answers 422 NOT_SUPPORTED
 * (TYPED_DATA_NOT_SUPPORTED for typed data, the API's own code) when it is absent, before
 * anything is written or a key is opened. No family throws NOT_SUPPORTED for a member of the core.
 *
 * - contracts: ABI calls (encode, read, simulate; a `call` intent is a contract write), the
 *   token calls recognised by selector, ERC-20 / TRC-20 allowances (EVM, Tron);
 * - typedData: EIP-712 (EVM);
 * - messages: personal messages as the chain's wallets sign them (EVM, Tron, Solana);
 * - priceFeeds: USD feeds (Chainlink's AggregatorV3 on EVM);
 * - swaps: a DEX router for auto-settlement (Uniswap V2 style, EVM chains with a router configured);
 * - batching: several transfers of one sender in one transaction (Solana's SPL transfers);
 * - screening: AML screening's on-chain list reads, an issuer's blacklist (a frozen account) and a
 *   sanctions oracle (chains/screening.ts; EVM, Tron; Solana: frozen token accounts only);
 * - feeSponsorship: another account (the wallet's master) pays and signs as fee payer (Solana);
 * - paymentRequests: the payment-request URI its wallets open from a QR code (EIP-681 on EVM,
 *   Tron's BIP-21 form, Solana Pay), for the payer's checkout page (EVM, Tron, Solana);
 * - staking: stake the native coin for the resources transactions burn (Tron's Stake 2.0;
 *   chains/staking.ts);
 * - foreignChains: a chain of the family not configured here, at a client's RPC URL, for one
 *   asset recovery (EVM).
 *
 * Adding a capability: its interface here, a member of `Capabilities` and a line of `ABSENT`
 * (how a chain without it is refused); each family that offers it sets it in its adapter's
 * `capabilities` (and test/architecture/family-seam.test.ts lists it per family); a module
 * reaches it only through `capability` (or `offers`, where it is optional behaviour), from
 * chains/registry.ts. An absent capability is never a stub that throws.
 */
import type { ChainConfig } from '../config/index.js';
import { BusinessRuleError } from '../lib/errors.js';
import type { TxIntent } from './intents.js';
import type { SwapProvider } from './swapping.js';
import type { ScreeningReads } from './screening.js';
import type { Staking } from './staking.js';
import type { TypedDataPayload } from '../keys/types.js';

// ---- what the capabilities take and give ----------------------------------------------------

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
  /**
   * How the digest is made (chains/messages.ts): EIP-191 personal_sign (EVM), TIP-191
   * signMessageV2 (Tron), solana:signMessage (Solana: ed25519 over the bytes themselves).
   */
  standard: 'EIP-191' | 'TIP-191' | 'solana:signMessage';
  kind: 'text' | 'bytes';
  /** As given: the text, or the bytes as 0x-prefixed hex. */
  message: string;
  /** What the key signs, 0x hex: a 32-byte hash (EIP-191, TIP-191), or the message bytes (solana:signMessage). */
  digest: string;
}

/** Typed data as a client sends it (EIP-712 / eth_signTypedData_v4). */
export interface TypedDataInput {
  domain: { name: string; version: string; chainId: number; verifyingContract: string; salt?: string };
  types: Record<string, unknown>;
  message: Record<string, unknown>;
  primaryType?: string;
}

// ---- the capabilities --------------------------------------------------------------------

/** Smart-contract calls and the token calls they make. */
export interface Contracts {
  /** Validates the call against its ABI and encodes it; a ValidationError names `field`. */
  encodeContractCall(call: ContractCallInput, field: string): EncodedContractCall;
  /**
   * A read-only call as `from`; the result as text: scalars as strings (integers in decimal),
   * arrays, structs and several outputs as JSON. A revert is a BusinessRuleError
   * (CONTRACT_REVERTED) carrying the decoded reason.
   */
  readContract(call: ContractCallInput, from: string, field: string): Promise<string>;
  /** Runs the call as `from` without sending it and estimates what it uses (EVM gas, Tron energy); reverts as readContract. */
  simulateContractCall(call: ContractCallInput, from: string, field: string): Promise<{ gas: bigint }>;
  /**
   * What encoded calldata does to a token's holdings, judged by its 4-byte selector alone
   * (never by the ABI a client sent, which may lie): null when it is none of the recognised
   * token functions.
   */
  describeTokenCall(data: string): TokenCall | null;
  /** Allowances `owner` granted `spender` on `token`, in query order. */
  getAllowances(queries: { owner: string; token: string; spender: string }[]): Promise<bigint[]>;
}

/**
 * What a signature lets others do with the signer's tokens on its own (a token permit, a
 * transfer authorisation): an allowance of `amount` of `token` to `to`, or a transfer to it.
 */
export interface SignedGrant {
  kind: 'allowance' | 'transfer';
  token: string;
  /** Whose tokens: the owner the message names, or null where it is the signer itself (Permit2). */
  owner: string | null;
  /** The spender of an allowance, the recipient of a transfer. */
  to: string;
  amount: bigint;
  /** Whether the domain names the adapter's own chain. */
  thisChain: boolean;
  /** Where the message names it, for errors (`message.spender`). */
  field: string;
}

export interface TypedDataSigning {
  /** Validates EIP-712 input (types, domain, message), infers the primary type, hashes it. */
  prepareTypedData(input: TypedDataInput): TypedDataPayload;
  /** What prepared typed data authorises over tokens by itself (EVM: permits, transfer authorisations, Permit2); none: []. */
  grantsOf(payload: TypedDataPayload): SignedGrant[];
}

export interface PersonalMessages {
  /**
   * Validates a message to sign as the chain's wallets do (EVM: EIP-191 personal_sign; Tron:
   * TIP-191 signMessageV2; Solana: solana:signMessage; text, or bytes as 0x-prefixed hex)
   * and hashes it.
   */
  prepareMessage(message: string, field?: string): MessagePayload;
}

export interface PriceFeeds {
  /** The latest round of a USD price feed; null when the address does not answer as a feed. */
  readPriceFeed(feed: string): Promise<PriceFeedRound | null>;
}

/** Several transfers of one sender in one transaction. */
export interface Batching {
  /**
   * How many of `intents`' leading transfers (one sender's, in order) fit in one transaction:
   * at least 1 (the first alone), at most all (Solana packs SPL transfers of one owner, fee
   * payer and mint into its 1,232-byte packet). May read the chain (which recipients need an
   * account); never asked under a database lock.
   */
  maxTransfers(intents: TxIntent[]): Promise<number>;
  /** One intent carrying `intents` (a group maxTransfers allowed, at least 2), signed and sent as one transaction. */
  combine(intents: TxIntent[]): TxIntent;
}

/**
 * Another account may pay a transaction's fee and sign it as fee payer (TxIntent.feePayer):
 * the wallet's master pays for its children, so a child never needs the native coin.
 */
export interface FeeSponsorship {
  readonly payer: 'master';
}

/** One transfer a payer is asked to make, in domain terms; the chain turns it into its wallets' URI. */
export interface PaymentRequest {
  recipient: string;
  /** The token contract (or mint); null for the native coin. */
  token: string | null;
  /** Base units. */
  amount: bigint;
  decimals: number;
  /** Who is paid and for what (shown by wallets that read them). */
  label?: string;
  message?: string;
  /** A key the payer's transaction carries so it can be found (Solana Pay's `reference`). */
  reference?: string;
}

/**
 * How a chain's wallets are asked for a transfer: the URI they open from a QR code or a link
 * (EIP-681 on EVM, with the chain's id; Tron's BIP-21 style form; a Solana Pay transfer
 * request), and, where the scheme carries one, a fresh reference key per request. Without
 * it the payer's page shows the address and the amount to copy, and no QR code.
 */
export interface PaymentRequests {
  /** The URI scheme, e.g. `ethereum`, `solana`, `tron`. */
  readonly scheme: string;
  uri(request: PaymentRequest): string;
  /** A new reference for a request (Solana Pay: a random 32-byte key, base58); absent when the scheme has none. */
  newReference?(): string;
}

/** How a foreign chain's host is resolved: node's `lookup`, the webhook target policy's (lib/ssrf.ts). */
export type ForeignLookup = NonNullable<import('node:http').RequestOptions['lookup']>;

/**
 * Chains of the family this installation does not configure, reached at a client's RPC URL
 * for one request (an asset recovery of funds sent to our address there; EVM). `A` is the
 * adapter it opens (ChainAdapter: types.ts names it, so this file need not import it).
 */
export interface ForeignChains<A = never> {
  /**
   * The adapter of the chain answering at `url`, named after the adapter's own chain, its
   * connections going only where `lookup` allows; throws when nothing answers there as a chain.
   */
  open(url: string, lookup: ForeignLookup): Promise<A>;
}

/** `A`: the adapter a foreign chain opens as (ChainAdapter's own capabilities say ChainAdapter). */
export interface Capabilities<A = never> {
  contracts?: Contracts;
  typedData?: TypedDataSigning;
  messages?: PersonalMessages;
  priceFeeds?: PriceFeeds;
  swaps?: SwapProvider;
  batching?: Batching;
  screening?: ScreeningReads;
  feeSponsorship?: FeeSponsorship;
  staking?: Staking;
  paymentRequests?: PaymentRequests;
  foreignChains?: ForeignChains<A>;
}

export type CapabilityName = keyof Capabilities;

/** What each capability is called when a chain lacks it, and the error code the API answers with. */
const ABSENT: Record<CapabilityName, { what: string; code: 'NOT_SUPPORTED' | 'TYPED_DATA_NOT_SUPPORTED' }> = {
  contracts: { what: 'Smart-contract calls are', code: 'NOT_SUPPORTED' },
  typedData: { what: 'Typed data (EIP-712) signing is', code: 'TYPED_DATA_NOT_SUPPORTED' },
  messages: { what: 'Message signing is', code: 'NOT_SUPPORTED' },
  priceFeeds: { what: 'Price feeds are', code: 'NOT_SUPPORTED' },
  swaps: { what: 'Swaps are', code: 'NOT_SUPPORTED' },
  batching: { what: 'Several transfers in one transaction are', code: 'NOT_SUPPORTED' },
  screening: { what: 'On-chain screening lists are', code: 'NOT_SUPPORTED' },
  feeSponsorship: { what: 'Fees paid by another account are', code: 'NOT_SUPPORTED' },
  staking: { what: 'Staking is', code: 'NOT_SUPPORTED' },
  paymentRequests: { what: 'Payment-request URIs are', code: 'NOT_SUPPORTED' },
  foreignChains: { what: 'A chain named by an RPC URL is', code: 'NOT_SUPPORTED' },
};

/** What `capability` needs of an adapter (ChainAdapter has it). */
interface Offering<A = unknown> {
  readonly config: ChainConfig;
  readonly capabilities: Capabilities<A>;
}

/**
 * The capability `name` of the adapter's chain, or a 422 (BusinessRuleError NOT_SUPPORTED;
 * TYPED_DATA_NOT_SUPPORTED for typed data) naming the chain when its family does not offer
 * it: the one place a route learns that its chain cannot do what it asks.
 */
export function capability<A, K extends CapabilityName>(adapter: Offering<A>, name: K): NonNullable<Capabilities<A>[K]> {
  const offered = adapter.capabilities[name];
  if (offered !== undefined) return offered as NonNullable<Capabilities<A>[K]>;
  const { what, code } = ABSENT[name];
  // Typed data refused where the chain's wallets sign messages: say what to do instead.
  const instead = name === 'typedData' && adapter.capabilities.messages ? ': sign a message instead' : '';
  refuse(code, `${what} not available on ${adapter.config.blockchain.name}${instead}`);
}

/** The refusal itself; its code is one of two literals so the error catalogue's check can see both. */
function refuse(code: 'NOT_SUPPORTED' | 'TYPED_DATA_NOT_SUPPORTED', message: string): never {
  throw new BusinessRuleError(code, message);
}

/** Whether the adapter's family offers `name` (for optional behaviour; a route that needs it asks `capability`). */
export function offers(adapter: Offering, name: CapabilityName): boolean {
  return adapter.capabilities[name] !== undefined;
}
