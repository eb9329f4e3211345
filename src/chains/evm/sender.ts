/**
 * The EVM family's side of the outbound lifecycle (chains/types.ts, Sender): nonces, gas
 * limits with a margin, EIP-1559 fee quotes (one cache per chain), the replacement bump
 * rule, the 0-value self-transfer that fills or cancels a nonce, and finding which signed
 * version of a nonce was mined.
 */
import {
  hexToBytes,
  keccak256,
  numberToHex,
  serializeTransaction,
  type Address,
  type Hex,
  type TransactionSerializableEIP1559,
} from 'viem';
import { randomBytes } from 'node:crypto';
import { ValidationError } from '../../lib/errors.js';
import type {
  CallLimit,
  ChildFeeFunding,
  FeeQuote,
  NetworkData,
  QuoteOptions,
  Receipt,
  NonceSender,
  SignedTransaction,
  SigningKey,
  NativeIntent,
  TxIntent,
} from '../types.js';
import { encodeTokenTransfer } from './send.js';
import type { FeeEstimate } from './fees.js';

/** Gas of a plain native transfer; the least any transaction uses. */
export const TRANSFER_GAS = 21_000n;

/** Gas limit = the node's estimate x this / 100 (rounded up): estimates move with state. */
export const GAS_MARGIN_PERCENT = 120n;

/**
 * Fees of a replacement: each field at least 10% above the original's (rounded up; nodes
 * refuse a same-nonce replacement below that, geth's default price bump) and at least the
 * chain's current estimate, so a transaction stuck behind a risen base fee gets unstuck.
 */
export const BUMP_PERCENT = 110n;

export function bumpFees(old: FeeEstimate, estimate: FeeEstimate): FeeEstimate {
  const up = (v: bigint) => (v * BUMP_PERCENT + 99n) / 100n;
  const max = (...vs: bigint[]) => vs.reduce((a, b) => (a > b ? a : b));
  const maxPriorityFeePerGas = max(up(old.maxPriorityFeePerGas), estimate.maxPriorityFeePerGas);
  const maxFeePerGas = max(up(old.maxFeePerGas), estimate.maxFeePerGas, maxPriorityFeePerGas);
  return { maxFeePerGas, maxPriorityFeePerGas };
}

/** What the sender needs of the node (the adapter's RPC calls, transport errors already mapped). */
export interface EvmNode {
  getNonce(address: string, blockTag: 'pending' | 'latest'): Promise<number>;
  estimateFees(): Promise<FeeEstimate>;
  estimateGas(tx: { from: string; to: string; value: bigint; data?: string }): Promise<bigint>;
  getReceipt(hash: string): Promise<Receipt | null>;
}

export class EvmSender implements NonceSender {
  readonly ordering = 'nonce' as const;
  #fees: { at: number; fees: Promise<FeeEstimate> } | null = null;

  constructor(
    private readonly node: EvmNode,
    private readonly opts: { chainId?: number; feeCacheMs?: number; gasMarginPercent?: bigint } = {},
  ) {}

  async nonceOf(address: string, which: 'pending' | 'latest'): Promise<bigint> {
    return BigInt(await this.node.getNonce(address, which));
  }

  /**
   * Fees move once per block, and a burst of withdrawals (or of sends in the worker) would
   * otherwise make two RPC calls each for the same answer. A failure is not remembered.
   */
  quoteFees(opts: { fresh?: boolean } = {}): Promise<FeeEstimate> {
    const hit = this.#fees;
    if (!opts.fresh && hit && Date.now() - hit.at < (this.opts.feeCacheMs ?? 1_000)) return hit.fees;
    const entry = { at: Date.now(), fees: this.node.estimateFees() };
    this.#fees = entry;
    entry.fees.catch(() => {
      if (this.#fees === entry) this.#fees = null;
    });
    return entry.fees;
  }

  quote(intent: TxIntent, given: NetworkData = {}, opts: QuoteOptions = {}): Promise<FeeQuote> {
    // A transfer of the whole balance to an account without code costs exactly 21,000 gas: the
    // fee left behind is then no more than the transfer's (no margin), and nothing is estimated.
    if (opts.wholeNative && intent.kind === 'native' && evmNetwork(given).gasLimit === null) {
      given = { ...given, ...this.fixedNetwork({ limit: TRANSFER_GAS }) };
    }
    return this.#quote(intent, given, opts.estimate, this.quoteFees(opts), opts.above);
  }

  quoteAll(
    items: { intent: TxIntent; given?: NetworkData; estimate?: bigint; exact?: boolean }[],
    opts: { fresh?: boolean } = {},
  ): Promise<FeeQuote[]> {
    const fees = this.quoteFees(opts);
    return Promise.all(items.map((i) => this.#quote(i.intent, i.given ?? {}, i.estimate, fees, undefined, i.exact)));
  }

  requote(quote: FeeQuote, given: NetworkData): FeeQuote {
    const base = evmNetwork(quote.network);
    const more = evmNetwork(given);
    if (base.gasLimit === null || base.fees === null) throw new Error('a quote carries a complete network');
    const limit = more.gasLimit ?? base.gasLimit;
    const fees = more.fees ?? base.fees;
    const network = this.fixedNetwork({ limit, fees });
    const fixed = {
      ...quote.fixed,
      ...this.fixedNetwork({ ...(more.gasLimit !== null ? { limit } : {}), ...(more.fees ? { fees } : {}) }),
    };
    return { network, fixed, fee: limit * fees.maxFeePerGas, ...(more.gasLimit === null && quote.limit ? { limit: quote.limit } : {}) };
  }

  /**
   * The limit (given, or estimated with the margin) and the fees (given; a given cap with the
   * quote's tip; a retry's bump; or the quote), and fee = limit x cap: no gas unit costs more.
   */
  async #quote(
    intent: TxIntent,
    given: NetworkData,
    estimate: bigint | undefined,
    quoted: Promise<FeeEstimate>,
    above?: NetworkData[],
    exact = false,
  ) {
    const fixed = evmNetwork(given);
    const margin = exact ? 100n : (this.opts.gasMarginPercent ?? GAS_MARGIN_PERCENT);
    const estimated: Promise<CallLimit | null> | CallLimit | null =
      fixed.gasLimit !== null ? null : estimate !== undefined ? { estimate, limit: withMargin(estimate, margin) } : this.#limitOf(intent);
    const [limit, current] = await Promise.all([estimated, quoted]);
    // A retry's fees are fixed: the bump over the latest earlier attempt that had fees, or the quote.
    const previous = above
      ?.map((n) => evmNetwork(n).fees)
      .filter((f) => f !== null)
      .pop();
    const retry = above ? (previous ? bumpFees(previous, current) : current) : null;
    const pinned = fixed.fees ?? (fixed.cap !== null ? capped(fixed.cap, current) : retry);
    const fees = pinned ?? current;
    const gasLimit = fixed.gasLimit ?? limit!.limit;
    return {
      network: this.fixedNetwork({ limit: gasLimit, fees }),
      fixed: this.fixedNetwork({ ...(fixed.gasLimit !== null ? { limit: gasLimit } : {}), ...(pinned ? { fees: pinned } : {}) }),
      fee: gasLimit * fees.maxFeePerGas,
      ...(limit ? { limit } : {}),
    };
  }

  async estimateLimit(call: { from: string; to: string; value: bigint; data?: string }): Promise<CallLimit> {
    const estimate = await this.node.estimateGas(call);
    return { estimate, limit: withMargin(estimate, this.opts.gasMarginPercent ?? GAS_MARGIN_PERCENT) };
  }

  /**
   * An intent's limit. A token transfer is also estimated to an account holding none of the
   * token (a fresh address), and its limit covers the larger: crediting an empty balance
   * writes a new storage slot (~17,000 gas more), and a recipient that spends all it holds
   * before the transfer is mined would otherwise leave it out of gas, its fee burned. The
   * estimate to the real recipient still decides whether the transfer reverts (a blacklisted
   * recipient) and stays the `estimate` a client's gasLimit is held to; one to the fresh
   * address that fails (a token that credits listed accounts only) is ignored.
   */
  #limitOf(intent: TxIntent): Promise<CallLimit> {
    const limit = this.estimateLimit(callOf(intent));
    if (intent.kind !== 'token') return limit;
    const empty = this.estimateLimit(callOf({ ...intent, to: freshAddress() })).catch(() => null);
    return Promise.all([limit, empty]).then(([a, b]) => (b && b.limit > a.limit ? { estimate: a.estimate, limit: b.limit } : a));
  }

  voidCall(from: string): NativeIntent & { network: NetworkData } {
    return { kind: 'native', from, to: from, amount: 0n, network: { gasLimit: TRANSFER_GAS.toString() } };
  }

  fixedNetwork(given: { limit?: bigint; fees?: FeeEstimate; feeCap?: bigint }): NetworkData {
    if (given.limit !== undefined && given.limit < TRANSFER_GAS) throw new ValidationError(`gasLimit must be at least ${TRANSFER_GAS}`);
    const fees = given.fees;
    if (fees && (fees.maxPriorityFeePerGas < 0n || fees.maxFeePerGas < fees.maxPriorityFeePerGas)) {
      throw new ValidationError('maxPriorityFeePerGas must be between 0 and maxFeePerGas');
    }
    if (given.feeCap !== undefined && (fees || given.feeCap <= 0n))
      throw new ValidationError('gasPrice must be greater than 0, without fee fields');
    return {
      ...(given.limit !== undefined ? { gasLimit: given.limit.toString() } : {}),
      ...(fees ? { maxFeePerGas: fees.maxFeePerGas.toString(), maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString() } : {}),
      // A cap alone (the API's gasPrice): the tip is chosen against the quote when priced.
      ...(given.feeCap !== undefined ? { maxFeePerGas: given.feeCap.toString() } : {}),
    };
  }

  async prepare(intent: TxIntent, given: NetworkData, opts: { feeCeiling?: bigint } = {}): Promise<NetworkData> {
    const fixed = evmNetwork(given);
    const gasLimit = fixed.gasLimit ?? (await this.#limitOf(intent)).limit;
    // A client's cap is signed as given (checked against the network when it was accepted; a
    // payout approved hours later may meet a higher base fee: the node then refuses the bid as
    // too low and the stuck row is replaced as any other).
    const fees = fixed.fees ?? (fixed.cap !== null ? bid(fixed.cap, await this.quoteFees()) : await this.quoteFees());
    return this.fixedNetwork({ limit: gasLimit, fees: withinCeiling(fees, gasLimit, opts.feeCeiling) });
  }

  sign(intent: TxIntent, nonce: bigint | null, network: NetworkData, key: SigningKey): SignedTransaction {
    if (this.opts.chainId === undefined) throw new Error('this sender was built without a chain id: it cannot sign');
    if (nonce === null) throw new Error('an EVM transaction needs a nonce');
    if (nonce < 0n || nonce > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`nonce ${nonce} out of range`);
    const n = evmNetwork(network);
    if (n.gasLimit === null || n.fees === null) throw new Error('network data is not prepared (gas limit and fees)');
    const call = callOf(intent);
    const unsigned: TransactionSerializableEIP1559 = {
      type: 'eip1559',
      chainId: this.opts.chainId,
      to: call.to as Address,
      value: call.value,
      ...(call.data ? { data: call.data as Hex } : {}),
      nonce: Number(nonce),
      gas: n.gasLimit,
      ...n.fees,
    };
    const { r, s, recovery } = key.signDigest(hexToBytes(keccak256(serializeTransaction(unsigned))));
    const raw = serializeTransaction(unsigned, { r: numberToHex(r, { size: 32 }), s: numberToHex(s, { size: 32 }), yParity: recovery });
    return { raw, hash: keccak256(raw) };
  }

  async replacementNetwork(network: NetworkData): Promise<NetworkData> {
    const n = evmNetwork(network);
    if (n.gasLimit === null || n.fees === null) throw new Error('only a prepared transaction can be replaced');
    // A bump must clear the current fees: the quote is read afresh, not from the cache.
    return this.fixedNetwork({ limit: n.gasLimit, fees: bumpFees(n.fees, await this.quoteFees({ fresh: true })) });
  }

  costOf(value: bigint, network: NetworkData): bigint {
    const n = evmNetwork(network);
    return value + (n.gasLimit ?? 0n) * (n.fees?.maxFeePerGas ?? 0n);
  }

  /** Any balance may be left behind. */
  accountFloor(): Promise<bigint> {
    return Promise.resolve(0n);
  }

  /** The child pays its own gas: whatever it lacks of value + limit x cap is topped up first. */
  childFeeFunding(p: { nativeBalance: bigint; value: bigint; network: NetworkData }): ChildFeeFunding {
    const needed = this.costOf(p.value, p.network);
    return needed > p.nativeBalance ? { kind: 'transfer', amount: needed - p.nativeBalance } : { kind: 'none' };
  }

  /** Nothing to lend: the same answer as childFeeFunding. */
  async planChildFunding(p: { nativeBalance: bigint; value: bigint; network: NetworkData }): Promise<ChildFeeFunding> {
    return this.childFeeFunding(p);
  }

  /** The top-up paid for the quoted limit and fees: exactly those are signed. */
  fundedNetwork(quote: FeeQuote): NetworkData {
    return quote.network;
  }

  async findLanded(hashes: string[]): Promise<{ index: number; receipt: Receipt } | null> {
    for (const [index, hash] of hashes.entries()) {
      const receipt = await this.node.getReceipt(hash);
      if (receipt) return { index, receipt };
    }
    return null;
  }
}

export const withMargin = (gas: bigint, percent: bigint = GAS_MARGIN_PERCENT): bigint => (gas * percent + 99n) / 100n;

/**
 * The fees of a client's fee cap (the API's gasPrice): the cap, and the quote's tip at most
 * the cap. The quote's cap is the base fee with headroom plus the tip: without the tip, what
 * a transaction must offer to stay includable for the next blocks; a cap under it is refused.
 */
export function capped(cap: bigint, quote: FeeEstimate): FeeEstimate {
  const floor = quote.maxFeePerGas - quote.maxPriorityFeePerGas;
  if (cap < floor) {
    throw new ValidationError(`gasPrice ${cap} wei is below the network's current fee of ${floor} wei per gas`, [
      { field: 'gasPrice', message: `below the current network fee (${floor} wei)` },
    ]);
  }
  return bid(cap, quote);
}

/** A fee cap as signed: the cap, and the quote's tip at most the cap. */
function bid(cap: bigint, quote: FeeEstimate): FeeEstimate {
  return { maxFeePerGas: cap, maxPriorityFeePerGas: quote.maxPriorityFeePerGas < cap ? quote.maxPriorityFeePerGas : cap };
}

/**
 * Fees bid down to a ceiling on the whole fee (what the payout reserved when it was
 * accepted): limit x cap at most `ceiling`, the tip at most the cap. Under a base fee that
 * rose past it, the transaction is still signed within what was held; a node refuses it as
 * too low, and the pipeline replaces it once the sender can pay more (or it waits).
 */
export function withinCeiling(fees: FeeEstimate, limit: bigint, ceiling: bigint | undefined): FeeEstimate {
  if (ceiling === undefined || limit * fees.maxFeePerGas <= ceiling) return fees;
  const cap = ceiling / limit > 0n ? ceiling / limit : 1n;
  return bid(cap, fees);
}

/**
 * What an intent is on EVM: a value transfer, an ERC-20 `transfer(to, amount)` call to the
 * token, or the call as given. One payment per transaction; no memo (an EVM transaction
 * carries none).
 */
/** An address no one holds a key to or has used: a recipient holding nothing (for an estimate only). */
function freshAddress(): string {
  return `0x${randomBytes(20).toString('hex')}`;
}

export function callOf(intent: TxIntent): { from: string; to: string; value: bigint; data?: string } {
  if (intent.kind !== 'call' && intent.memo !== undefined) throw new ValidationError('an EVM transaction carries no memo');
  switch (intent.kind) {
    case 'native':
      return { from: intent.from, to: intent.to, value: intent.amount };
    case 'token':
      if (intent.more?.length) throw new ValidationError('one transfer per transaction on EVM');
      return { from: intent.from, to: intent.token, value: 0n, data: encodeTokenTransfer(intent.to, intent.amount) };
    case 'call':
      return { from: intent.from, to: intent.to, value: intent.value, data: intent.data };
  }
}

/** The EVM fields of stored network data (decimal strings; absent means not chosen yet; a cap alone is a client's gasPrice). */
function evmNetwork(network: NetworkData): { gasLimit: bigint | null; fees: FeeEstimate | null; cap: bigint | null } {
  const big = (v: string | undefined) => (v === undefined ? null : BigInt(v));
  const maxFeePerGas = big(network.maxFeePerGas);
  const maxPriorityFeePerGas = big(network.maxPriorityFeePerGas);
  return {
    gasLimit: big(network.gasLimit),
    fees: maxFeePerGas !== null && maxPriorityFeePerGas !== null ? { maxFeePerGas, maxPriorityFeePerGas } : null,
    cap: maxPriorityFeePerGas === null ? maxFeePerGas : null,
  };
}
