/**
 * TEST DOUBLE of a chain family: "ledger", an in-memory chain that implements the seam
 * (src/chains/types.ts: ChainAdapter and its Sender) honestly, with nothing of EVM's wire
 * format, so a test can show that the pipeline runs on any family that keeps the seam's
 * promises. It is not a mock of our code: it is a small blockchain of its own.
 *
 * - State: native balances per address; a nonce per sender (each used once, in order), or,
 *   on a chain made with `expiryBlocks`, no nonce: each transaction carries the last block
 *   that may include it (the seam's 'expiry' ordering, as Tron and Solana).
 * - Transactions: a JSON payload (chain id, from, to, value, nonce, units, fee cap, tip)
 *   signed with the key the signer lends (SigningKey, secp256k1 over sha256 of the
 *   payload); raw = hex of the JSON of { payload, signature }; hash = sha256 of raw.
 * - Fees: every transfer uses TRANSFER_UNITS units; a unit costs min(feeCap, baseFee + tip);
 *   the sender must hold value + units x feeCap to be accepted (as EVM nodes ask).
 * - Broadcast recovers the signer from the signature and refuses, with typed
 *   ChainRejectedError reasons: 'invalid' (malformed, another chain, a bad signature, call
 *   data), 'nonce-used', 'fee-too-low' (fee cap under the base fee), 'replacement-underpriced'
 *   (same nonce, less than +10% on both fee fields), 'insufficient-funds'.
 * - Blocks: one every `blockMs` (empty ones too), or `mine()` on demand; a pool transaction
 *   whose fee cap is under the current base fee waits. Receipts carry units and price.
 * - Reading: getBlock / getBlockNumber agree; scan returns native transfers to watched
 *   addresses, so the deposit indexer can run on it.
 * - No capabilities (contracts, typed data, messages, price feeds...): the registry answers
 *   422 NOT_SUPPORTED for them (src/chains/capabilities.ts).
 *
 * The chain (state, pool, blocks, the transaction format) is in ledger-chain.ts; this file is
 * the family: its adapter and sender. Addresses are 0x (EIP-55) as on EVM, so wallets derive
 * as today: wallet derivation is not behind the seam yet.
 */
import { secp256k1 } from '@noble/curves/secp256k1';
import { getAddress, isAddress } from 'viem';
import type { ChainConfig } from '../../src/config/index.js';
import { NATIVE_ADDRESS } from '../../src/config/chains.js';
import { ChainRejectedError } from '../../src/chains/errors.js';
import { ValidationError } from '../../src/lib/errors.js';
import type {
  BalanceQuery,
  BlockRef,
  CallLimit,
  Capabilities,
  ChainAdapter,
  ChildFeeFunding,
  FeeQuote,
  NetworkData,
  QuoteOptions,
  FeeReport,
  Receipt,
  ScanResult,
  ExpirySender,
  NonceSender,
  SenderCore,
  SignedTransaction,
  SigningKey,
  TransferEvent,
  NativeIntent,
  TxIntent,
} from '../../src/chains/types.js';
import {
  BUMP_PERCENT,
  LedgerChain,
  TRANSFER_UNITS,
  hex,
  sha256,
  type LedgerPayload,
  type LedgerReceipt,
  type LedgerTx,
} from './ledger-chain.js';

export { LedgerChain, TRANSFER_UNITS, decode } from './ledger-chain.js';

/** The ledger's fee pair, as EIP-1559's: the most a unit may cost, and the tip in it. */
interface FeeEstimate {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

const notSupported = (what: string) => new Error(`${what} is not supported by this family (the ledger test double)`);

/**
 * The ledger's side of the outbound lifecycle, whatever its ordering. Its network data:
 * units, feeCap, tip (decimal strings); on an expiry chain also validUntil.
 */
abstract class LedgerSenderCore implements SenderCore {
  abstract readonly ordering: 'nonce' | 'expiry';

  constructor(protected readonly chain: LedgerChain) {}

  /** The cap leaves room for the base fee to double, as EVM wallets quote. */
  async quoteFees(): Promise<FeeEstimate> {
    const tip = 1n;
    return { maxFeePerGas: this.chain.baseFee * 2n + tip, maxPriorityFeePerGas: tip };
  }

  /** Limit x cap, as on EVM; the ledger's estimate needs no margin, and a cap alone takes the quote's tip (at most the cap). */
  quote(intent: TxIntent, given: NetworkData = {}, opts: QuoteOptions = {}): Promise<FeeQuote> {
    return this.#quote(intent, given, opts.estimate, this.quoteFees(), opts.above);
  }

  /** `exact` changes nothing here: the ledger prices every estimate without a margin. */
  quoteAll(items: { intent: TxIntent; given?: NetworkData; estimate?: bigint; exact?: boolean }[]): Promise<FeeQuote[]> {
    const fees = this.quoteFees();
    return Promise.all(items.map((i) => this.#quote(i.intent, i.given ?? {}, i.estimate, fees)));
  }

  requote(quote: FeeQuote, given: NetworkData): FeeQuote {
    const base = ledgerNetwork(quote.network);
    const more = ledgerNetwork(given);
    const limit = more.units ?? base.units!;
    const fees = more.fees ?? base.fees!;
    const fixed = { ...quote.fixed, ...this.fixedNetwork({ ...(more.units !== null ? { limit } : {}), ...(more.fees ? { fees } : {}) }) };
    return { network: this.fixedNetwork({ limit, fees }), fixed, fee: limit * fees.maxFeePerGas };
  }

  async #quote(intent: TxIntent, given: NetworkData, estimate: bigint | undefined, quoted: Promise<FeeEstimate>, above?: NetworkData[]) {
    const n = ledgerNetwork(given);
    const limit =
      n.units !== null ? null : estimate !== undefined ? { estimate, limit: estimate } : await this.estimateLimit(ledgerCall(intent));
    const current = await quoted;
    const previous = above
      ?.map((a) => ledgerNetwork(a).fees)
      .filter((f) => f !== null)
      .pop();
    const capped =
      n.cap !== null
        ? { maxFeePerGas: n.cap, maxPriorityFeePerGas: n.cap < current.maxPriorityFeePerGas ? n.cap : current.maxPriorityFeePerGas }
        : null;
    const pinned = n.fees ?? capped ?? (above ? (previous ? this.replacementFees(previous, current) : current) : null);
    const fees = pinned ?? current;
    const units = n.units ?? limit!.limit;
    return {
      network: this.fixedNetwork({ limit: units, fees }),
      fixed: this.fixedNetwork({ ...(n.units !== null ? { limit: units } : {}), ...(pinned ? { fees: pinned } : {}) }),
      fee: units * fees.maxFeePerGas,
      ...(limit ? { limit } : {}),
    };
  }

  async estimateLimit(call: { from: string; to: string; value: bigint; data?: string }): Promise<CallLimit> {
    if (call.data && call.data !== '0x') throw new ChainRejectedError('reverted', 'contract calls are not supported by this family');
    if (this.chain.balanceOf(call.from) < call.value)
      throw new ChainRejectedError('insufficient-funds', `${call.from} holds less than ${call.value}`);
    // Deterministic: a transfer always uses the same units, so no margin.
    return { estimate: TRANSFER_UNITS, limit: TRANSFER_UNITS };
  }

  replacementFees(previous: FeeEstimate, current: FeeEstimate): FeeEstimate {
    const up = (v: bigint) => (v * BUMP_PERCENT + 99n) / 100n;
    const max = (a: bigint, b: bigint) => (a > b ? a : b);
    const maxPriorityFeePerGas = max(up(previous.maxPriorityFeePerGas), current.maxPriorityFeePerGas);
    return { maxPriorityFeePerGas, maxFeePerGas: max(max(up(previous.maxFeePerGas), current.maxFeePerGas), maxPriorityFeePerGas) };
  }

  fixedNetwork(given: { limit?: bigint; fees?: FeeEstimate; feeCap?: bigint }): NetworkData {
    if (given.limit !== undefined && given.limit < TRANSFER_UNITS)
      throw new ValidationError(`the limit must be at least ${TRANSFER_UNITS} units`);
    if (given.fees && (given.fees.maxPriorityFeePerGas < 0n || given.fees.maxFeePerGas < given.fees.maxPriorityFeePerGas)) {
      throw new ValidationError('the tip must be between 0 and the fee cap');
    }
    return {
      ...(given.limit !== undefined ? { units: given.limit.toString() } : {}),
      ...(given.fees ? { feeCap: given.fees.maxFeePerGas.toString(), tip: given.fees.maxPriorityFeePerGas.toString() } : {}),
      ...(given.feeCap !== undefined && !given.fees ? { feeCap: given.feeCap.toString() } : {}),
    };
  }

  async prepare(intent: TxIntent, given: NetworkData): Promise<NetworkData> {
    const n = ledgerNetwork(given);
    const limit = n.units ?? (await this.estimateLimit(ledgerCall(intent))).limit;
    const fixed = this.fixedNetwork({ limit, fees: n.fees ?? (await this.quoteFees()) });
    // An expiry chain: a fresh deadline every time (a rebuild prepares the expired row's data again).
    if (this.chain.expiryBlocks === null) return fixed;
    return { ...fixed, validUntil: (this.chain.head().number + this.chain.expiryBlocks).toString() };
  }

  sign(intent: TxIntent, nonce: bigint | null, network: NetworkData, signingKey: SigningKey): SignedTransaction {
    const call = ledgerCall(intent);
    if (call.data) throw notSupported('call data');
    const n = ledgerNetwork(network);
    if (n.units === null || n.fees === null) throw new Error('network data is not prepared (units and fees)');
    const expiring = this.ordering === 'expiry';
    if (expiring !== (nonce === null)) throw new Error(expiring ? 'an expiry chain takes no nonce' : 'a nonce is required');
    if (expiring && network.validUntil === undefined) throw new Error('network data is not prepared (validUntil)');
    const payload: LedgerPayload = {
      chainId: this.chain.chainId,
      from: call.from,
      to: call.to,
      value: call.value.toString(),
      ...(nonce === null ? { validUntil: network.validUntil! } : { nonce: nonce.toString() }),
      units: n.units.toString(),
      feeCap: n.fees.maxFeePerGas.toString(),
      tip: n.fees.maxPriorityFeePerGas.toString(),
    };
    const { r, s, recovery } = signingKey.signDigest(sha256(JSON.stringify(payload)));
    const signature = hex(new secp256k1.Signature(r, s).toCompactRawBytes()) + recovery.toString(16).padStart(2, '0');
    const raw = hex(Buffer.from(JSON.stringify({ payload, signature }), 'utf8'));
    return { raw, hash: hex(sha256(Buffer.from(raw.slice(2), 'hex'))) };
  }

  costOf(value: bigint, network: NetworkData): bigint {
    const n = ledgerNetwork(network);
    return value + (n.units ?? 0n) * (n.fees?.maxFeePerGas ?? 0n);
  }

  /** Any balance may be left behind on the ledger. */
  accountFloor(): Promise<bigint> {
    return Promise.resolve(0n);
  }

  /** On the ledger, as on EVM, a sender pays its own fee: the master tops a child up with what it lacks. */
  childFeeFunding(p: { nativeBalance: bigint; value: bigint; network: NetworkData }): ChildFeeFunding {
    const needed = this.costOf(p.value, p.network);
    return needed > p.nativeBalance ? { kind: 'transfer', amount: needed - p.nativeBalance } : { kind: 'none' };
  }

  /** Nothing to lend: the same answer as childFeeFunding. */
  async planChildFunding(p: { nativeBalance: bigint; value: bigint; network: NetworkData }): Promise<ChildFeeFunding> {
    return this.childFeeFunding(p);
  }

  /** As EVM: a funded transaction is signed with the quoted units and fees. */
  fundedNetwork(quote: FeeQuote): NetworkData {
    return quote.network;
  }

  async findLanded(hashes: string[]): Promise<{ index: number; receipt: Receipt } | null> {
    for (const [index, hash] of hashes.entries()) {
      const receipt = neutralReceipt(this.chain.receipt(hash));
      if (receipt) return { index, receipt };
    }
    return null;
  }
}

/** The ledger with nonces (as EVM): each sender's transactions numbered, a stuck one replaced. */
export class LedgerSender extends LedgerSenderCore implements NonceSender {
  readonly ordering = 'nonce' as const;

  async nonceOf(address: string, which: 'pending' | 'latest'): Promise<bigint> {
    return this.chain.nonceOf(address, which);
  }

  voidCall(from: string): NativeIntent & { network: NetworkData } {
    return { kind: 'native', from, to: from, amount: 0n, network: { units: TRANSFER_UNITS.toString() } };
  }

  async replacementNetwork(network: NetworkData): Promise<NetworkData> {
    const n = ledgerNetwork(network);
    if (n.units === null || n.fees === null) throw new Error('only a prepared transaction can be replaced');
    return this.fixedNetwork({ limit: n.units, fees: this.replacementFees(n.fees, await this.quoteFees()) });
  }
}

/** The ledger made with `expiryBlocks`: no nonces, each transaction valid until a block (as Tron and Solana). */
export class LedgerExpirySender extends LedgerSenderCore implements ExpirySender {
  readonly ordering = 'expiry' as const;

  /** Past its last valid block once the head has reached it (the next block is beyond). */
  /** Past its last block, and in no block of the chain (the seam's contract: one answer for both). */
  async hasExpired(network: NetworkData, hash: string): Promise<boolean> {
    if (network.validUntil === undefined) return false;
    this.chain.beforeExpiryCheck?.();
    return this.chain.head().number >= BigInt(network.validUntil) && this.chain.receipt(hash) === null;
  }
}

/** An intent as the ledger sends it: the native coin only (a call is refused by estimateLimit, a token here). */
function ledgerCall(intent: TxIntent): { from: string; to: string; value: bigint; data?: string } {
  if (intent.kind === 'token') throw notSupported('tokens');
  if (intent.kind === 'call') return { from: intent.from, to: intent.to, value: intent.value, data: intent.data };
  return { from: intent.from, to: intent.to, value: intent.amount };
}

function ledgerNetwork(network: NetworkData): { units: bigint | null; fees: FeeEstimate | null; cap: bigint | null } {
  const big = (v: string | undefined) => (v === undefined ? null : BigInt(v));
  const [feeCap, tip] = [big(network.feeCap), big(network.tip)];
  return {
    units: big(network.units),
    fees: feeCap !== null && tip !== null ? { maxFeePerGas: feeCap, maxPriorityFeePerGas: tip } : null,
    cap: tip === null ? feeCap : null,
  };
}

/** A ledger node's receipt in the seam's terms: the fee is units x price, both kept as details. */
function neutralReceipt(r: LedgerReceipt | null): Receipt | null {
  if (!r) return null;
  return {
    status: r.status,
    block: { number: r.blockNumber, hash: r.blockHash },
    fee: r.gasUsed * r.effectiveGasPrice,
    details: { units: r.gasUsed.toString(), price: r.effectiveGasPrice.toString() },
  };
}

/** The ledger family's adapter: the seam over one LedgerChain. */
export class LedgerAdapter implements ChainAdapter {
  readonly sender: LedgerSender | LedgerExpirySender;

  constructor(
    readonly config: ChainConfig,
    readonly chain: LedgerChain,
  ) {
    this.sender = chain.expiryBlocks === null ? new LedgerSender(chain) : new LedgerExpirySender(chain);
  }

  normalizeAddress(address: string): string | null {
    return isAddress(address, { strict: true }) ? getAddress(address) : null;
  }

  async getBalances(queries: BalanceQuery[]): Promise<bigint[]> {
    return queries.map((q) => {
      if (q.token !== null) throw notSupported('tokens');
      return this.chain.balanceOf(q.owner);
    });
  }

  async getBlockNumber(): Promise<bigint> {
    return this.chain.head().number;
  }

  /** As EVM: depth counting with the chain's confirmations. */
  async finalizedHead(head: bigint): Promise<bigint> {
    return head - BigInt(Math.max(1, this.config.confirmations)) + 1n;
  }

  async getBlock(number: bigint): Promise<BlockRef | null> {
    const b = this.chain.block(number);
    return b ? { number: b.number, hash: b.hash, parentHash: b.parentHash, timestamp: b.timestamp } : null;
  }

  async scan(from: bigint, to: bigint, _tokens: string[], isWatched: (address: string) => boolean): Promise<ScanResult> {
    const blocks: BlockRef[] = [];
    const transfers: TransferEvent[] = [];
    for (let n = from; n <= to; n++) {
      const b = this.chain.block(n);
      if (!b) break;
      blocks.push({ number: b.number, hash: b.hash, parentHash: b.parentHash, timestamp: b.timestamp });
      for (const tx of b.txs.map((t) => t.tx)) if (tx.value > 0n && isWatched(tx.to)) transfers.push(this.#transfer(tx, b));
    }
    return { blocks, transfers };
  }

  async transfersOfTransaction(hash: string, _tokens: string[], isWatched: (address: string) => boolean): Promise<TransferEvent[]> {
    const tx = this.chain.minedTransaction(hash);
    const receipt = this.chain.receipt(hash);
    if (!tx || !receipt || tx.value === 0n || !isWatched(tx.to)) return [];
    return [this.#transfer(tx, this.chain.block(receipt.blockNumber)!)];
  }

  #transfer(tx: LedgerTx, b: BlockRef): TransferEvent {
    return {
      token: null,
      from: tx.from,
      to: tx.to,
      amount: tx.value,
      txHash: tx.hash,
      logIndex: -1,
      block: { number: b.number, hash: b.hash },
    };
  }

  async broadcast(raw: string): Promise<string> {
    return this.chain.submit(raw);
  }

  async getReceipt(hash: string): Promise<Receipt | null> {
    return neutralReceipt(this.chain.receipt(hash));
  }

  /** Units used and their price, as EVM's gas (the public gasUsed and gasPrice). */
  readonly fees: FeeReport = {
    ofReceipt: (r) => ({ gasUsed: BigInt(r.details.units!), gasPrice: BigInt(r.details.price!) }),
    usage: () => ({}),
    ofNetwork: (network) => {
      const n = ledgerNetwork(network);
      const text = (v: bigint | null | undefined) => (v === null || v === undefined ? null : v.toString());
      return {
        gasLimit: text(n.units),
        maxFeePerGas: text(n.fees?.maxFeePerGas),
        maxPriorityFeePerGas: text(n.fees?.maxPriorityFeePerGas),
      };
    },
  };

  encodeTokenTransfer(): string {
    throw notSupported('tokens');
  }

  close(): void {
    this.chain.stop();
  }

  /** The ledger has no tokens: no address answers decimals. */
  async readTokenDecimals(): Promise<number | null> {
    return null;
  }

  /** No contracts, typed data, messages, price feeds, swaps or batching: those routes answer 422. */
  readonly capabilities: Capabilities = {};
}

/** The configuration of a ledger chain: a native coin only (18 decimals), 0x addresses. */
export function ledgerChainConfig(opts: { chainId: number; slug?: string; confirmations?: number }): ChainConfig {
  const slug = opts.slug ?? 'ledger-double';
  return {
    blockchain: {
      slug,
      name: 'Ledger (test double family)',
      symbol: 'LDG',
      nativeDecimals: 18,
      derivationPath: "m/44'/60'/0'/0",
      tokenStandard: null,
      isEvmCompatible: false,
      isL2: false,
      logoUrl: '',
    },
    network: 'testnet',
    chainId: opts.chainId,
    // Never dialled: the adapter is in memory. A loopback URL keeps the config valid.
    rpcUrl: 'http://127.0.0.1:9/ledger-double',
    confirmations: opts.confirmations ?? 2,
    startBlock: 0,
    multicall3: null,
    assets: [{ symbol: 'LDG', name: 'Ledger coin', address: NATIVE_ADDRESS, decimals: 18, isNative: true, standard: null, currency: null }],
  };
}
