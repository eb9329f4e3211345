/**
 * TEST DOUBLE of a chain family: "ledger", an in-memory chain that implements the seam
 * (src/chains/types.ts: ChainAdapter and its Sender) honestly, with nothing of EVM's wire
 * format, so a test can show that the pipeline runs on any family that keeps the seam's
 * promises. It is not a mock of our code: it is a small blockchain of its own.
 *
 * - State: native balances per address; a nonce per sender (each used once, in order).
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
 * - Contracts, typed data, messages, allowances, token decimals and price feeds throw
 *   "not supported by this family".
 *
 * Addresses are 0x (EIP-55) as on EVM, so wallets derive as today: wallet derivation is not
 * behind the seam yet.
 */
import { createHash } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1';
import { getAddress, isAddress } from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import type { ChainConfig } from '../../src/config/index.js';
import { NATIVE_ADDRESS } from '../../src/config/chains.js';
import { ChainRejectedError } from '../../src/chains/errors.js';
import { ValidationError } from '../../src/lib/errors.js';
import type {
  BalanceQuery,
  BlockRef,
  CallLimit,
  ChainAdapter,
  FeeEstimate,
  NetworkData,
  Receipt,
  ScanResult,
  Sender,
  SignedTransaction,
  SigningKey,
  TransferEvent,
  TxIntent,
} from '../../src/chains/types.js';

/** Units a native transfer uses (the ledger's "gas"); the least a transaction can carry. */
export const TRANSFER_UNITS = 1_000n;
/** Fee fields of a replacement: at least this percent of the original's (the ledger's rule, as geth's). */
const BUMP_PERCENT = 110n;

export interface LedgerPayload {
  chainId: number;
  from: string;
  to: string;
  value: string;
  nonce: string;
  units: string;
  feeCap: string;
  tip: string;
}

interface LedgerTx {
  payload: LedgerPayload;
  hash: string;
  from: string;
  to: string;
  value: bigint;
  nonce: bigint;
  units: bigint;
  feeCap: bigint;
  tip: bigint;
}

interface Block extends BlockRef {
  txs: { tx: LedgerTx; receipt: Receipt }[];
}

const sha256 = (bytes: Uint8Array | string): Buffer => createHash('sha256').update(bytes).digest();
const hex = (b: Uint8Array): `0x${string}` => `0x${Buffer.from(b).toString('hex')}`;
const key = (address: string) => address.toLowerCase();
const notSupported = (what: string) => new Error(`${what} is not supported by this family (the ledger test double)`);

/** The chain itself: what a node of it holds and does. */
export class LedgerChain {
  readonly chainId: number;
  baseFee: bigint;
  readonly #balances = new Map<string, bigint>();
  readonly #nonces = new Map<string, bigint>();
  /** Pool: by sender, by nonce. */
  readonly #pool = new Map<string, Map<bigint, LedgerTx>>();
  readonly #blocks: Block[] = [];
  readonly #receipts = new Map<string, { tx: LedgerTx; receipt: Receipt }>();
  #timer: NodeJS.Timeout | null = null;
  /** While false, blocks are still produced but carry no transaction (a congested chain). */
  including = true;
  /** Every broadcast the chain answered, in order (for tests: what was refused and why). */
  readonly broadcasts: { hash: string | null; outcome: string }[] = [];

  constructor(opts: { chainId: number; baseFee?: bigint; blockMs?: number }) {
    this.chainId = opts.chainId;
    this.baseFee = opts.baseFee ?? 10n;
    this.#blocks.push(this.#seal([], '0x' + '00'.repeat(32)));
    if (opts.blockMs) {
      this.#timer = setInterval(() => this.mine(), opts.blockMs);
      this.#timer.unref();
    }
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** A faucet: credits `amount` to `address`. */
  credit(address: string, amount: bigint): void {
    this.#balances.set(key(address), this.balanceOf(address) + amount);
  }

  balanceOf(address: string): bigint {
    return this.#balances.get(key(address)) ?? 0n;
  }

  /** Mined transactions of a sender ('latest'), or with its pool's run of next nonces ('pending'). */
  nonceOf(address: string, which: 'pending' | 'latest'): bigint {
    let n = this.#nonces.get(key(address)) ?? 0n;
    if (which === 'pending') while (this.#pool.get(key(address))?.has(n)) n++;
    return n;
  }

  head(): Block {
    return this.#blocks[this.#blocks.length - 1]!;
  }

  block(number: bigint): Block | null {
    return number >= 0n && number < BigInt(this.#blocks.length) ? this.#blocks[Number(number)]! : null;
  }

  receipt(hash: string): Receipt | null {
    return this.#receipts.get(key(hash))?.receipt ?? null;
  }

  /** Transactions of a mined block, for scans. */
  transactionsOf(number: bigint): LedgerTx[] {
    return this.block(number)?.txs.map((t) => t.tx) ?? [];
  }

  minedTransaction(hash: string): LedgerTx | null {
    return this.#receipts.get(key(hash))?.tx ?? null;
  }

  pooled(hash: string): boolean {
    for (const byNonce of this.#pool.values()) for (const tx of byNonce.values()) if (tx.hash === key(hash)) return true;
    return false;
  }

  /** Checks and pools a signed transaction; its hash, or a typed refusal. */
  submit(raw: string): string {
    try {
      const hash = this.#submit(raw);
      this.broadcasts.push({ hash, outcome: 'accepted' });
      return hash;
    } catch (err) {
      this.broadcasts.push({ hash: null, outcome: err instanceof ChainRejectedError ? err.reason : 'error' });
      throw err;
    }
  }

  #submit(raw: string): string {
    const tx = decode(raw, this.chainId);
    if (this.#receipts.has(tx.hash) || this.pooled(tx.hash)) return tx.hash; // already known
    const mined = this.#nonces.get(key(tx.from)) ?? 0n;
    if (tx.nonce < mined) throw new ChainRejectedError('nonce-used', `nonce ${tx.nonce} of ${tx.from} is used (next is ${mined})`);
    if (tx.feeCap < this.baseFee) throw new ChainRejectedError('fee-too-low', `fee cap ${tx.feeCap} is under the base fee ${this.baseFee}`);
    if (this.balanceOf(tx.from) < tx.value + tx.units * tx.feeCap) {
      throw new ChainRejectedError('insufficient-funds', `${tx.from} cannot pay ${tx.value} plus ${tx.units} units at ${tx.feeCap}`);
    }
    const byNonce = this.#pool.get(key(tx.from)) ?? new Map<bigint, LedgerTx>();
    const old = byNonce.get(tx.nonce);
    if (old && (tx.feeCap * 100n < old.feeCap * BUMP_PERCENT || tx.tip * 100n < old.tip * BUMP_PERCENT)) {
      throw new ChainRejectedError('replacement-underpriced', `a replacement of nonce ${tx.nonce} must pay 10% more on both fee fields`);
    }
    byNonce.set(tx.nonce, tx);
    this.#pool.set(key(tx.from), byNonce);
    return tx.hash;
  }

  /** Produces one block with every executable pool transaction (in nonce order per sender). */
  mine(): Block {
    const included: { tx: LedgerTx; receipt: Receipt }[] = [];
    const number = BigInt(this.#blocks.length);
    for (const [sender, byNonce] of this.including ? this.#pool : []) {
      for (let n = this.#nonces.get(sender) ?? 0n; byNonce.has(n); n++) {
        const tx = byNonce.get(n)!;
        if (tx.feeCap < this.baseFee) break; // waits for the base fee to fall, or a replacement
        const price = tx.feeCap < this.baseFee + tx.tip ? tx.feeCap : this.baseFee + tx.tip;
        const fee = TRANSFER_UNITS * price;
        if (this.balanceOf(tx.from) < tx.value + fee) break;
        this.#balances.set(sender, this.balanceOf(tx.from) - tx.value - fee);
        this.credit(tx.to, tx.value);
        this.#nonces.set(sender, n + 1n);
        byNonce.delete(n);
        included.push({
          tx,
          receipt: { status: 'success', blockNumber: number, blockHash: '', gasUsed: TRANSFER_UNITS, effectiveGasPrice: price },
        });
      }
      // A transaction whose nonce got mined by another version is gone from the pool.
      for (const n of byNonce.keys()) if (n < (this.#nonces.get(sender) ?? 0n)) byNonce.delete(n);
    }
    const block = this.#seal(included, this.head().hash);
    this.#blocks.push(block);
    for (const t of included) {
      t.receipt.blockHash = block.hash;
      this.#receipts.set(t.tx.hash, t);
    }
    return block;
  }

  #seal(txs: Block['txs'], parentHash: string): Block {
    const number = BigInt(this.#blocks.length);
    const timestamp = Math.floor(Date.now() / 1000);
    const hash = hex(sha256(`${this.chainId}:${number}:${parentHash}:${timestamp}:${txs.map((t) => t.tx.hash).join(',')}`));
    return { number, hash, parentHash, timestamp, txs };
  }
}

/** Reads and checks a raw transaction: format, chain, signature (who signed it). */
export function decode(raw: string, chainId: number): LedgerTx {
  let payload: LedgerPayload;
  let signature: string;
  try {
    if (!/^0x([0-9a-f]{2})+$/i.test(raw)) throw new Error('not hex');
    ({ payload, signature } = JSON.parse(Buffer.from(raw.slice(2), 'hex').toString('utf8')));
  } catch {
    throw new ChainRejectedError('invalid', 'not a ledger transaction');
  }
  if (payload.chainId !== chainId) throw new ChainRejectedError('invalid', `signed for chain ${payload.chainId}, not ${chainId}`);
  let signer: string;
  try {
    const bytes = Buffer.from(signature.replace(/^0x/, ''), 'hex');
    const sig = secp256k1.Signature.fromCompact(bytes.subarray(0, 64)).addRecoveryBit(bytes[64]!);
    const point = sig.recoverPublicKey(sha256(JSON.stringify(payload)));
    signer = publicKeyToAddress(hex(point.toRawBytes(false)));
  } catch {
    throw new ChainRejectedError('invalid', 'bad signature');
  }
  if (key(signer) !== key(payload.from)) throw new ChainRejectedError('invalid', `signed by ${signer}, not by the sender ${payload.from}`);
  return {
    payload,
    hash: hex(sha256(Buffer.from(raw.slice(2), 'hex'))),
    from: getAddress(payload.from),
    to: getAddress(payload.to),
    value: BigInt(payload.value),
    nonce: BigInt(payload.nonce),
    units: BigInt(payload.units),
    feeCap: BigInt(payload.feeCap),
    tip: BigInt(payload.tip),
  };
}

/** The ledger's side of the outbound lifecycle. Its network data: units, feeCap, tip (decimal strings). */
export class LedgerSender implements Sender {
  readonly ordering = 'nonce' as const;

  constructor(private readonly chain: LedgerChain) {}

  async nonceOf(address: string, which: 'pending' | 'latest'): Promise<bigint> {
    return this.chain.nonceOf(address, which);
  }

  /** The cap leaves room for the base fee to double, as EVM wallets quote. */
  async quoteFees(): Promise<FeeEstimate> {
    const tip = 1n;
    return { maxFeePerGas: this.chain.baseFee * 2n + tip, maxPriorityFeePerGas: tip };
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

  voidCall(from: string): TxIntent & { network: NetworkData } {
    return { from, to: from, value: 0n, data: null, network: { units: TRANSFER_UNITS.toString() } };
  }

  fixedNetwork(given: { limit?: bigint; fees?: FeeEstimate }): NetworkData {
    if (given.limit !== undefined && given.limit < TRANSFER_UNITS)
      throw new ValidationError(`the limit must be at least ${TRANSFER_UNITS} units`);
    if (given.fees && (given.fees.maxPriorityFeePerGas < 0n || given.fees.maxFeePerGas < given.fees.maxPriorityFeePerGas)) {
      throw new ValidationError('the tip must be between 0 and the fee cap');
    }
    return {
      ...(given.limit !== undefined ? { units: given.limit.toString() } : {}),
      ...(given.fees ? { feeCap: given.fees.maxFeePerGas.toString(), tip: given.fees.maxPriorityFeePerGas.toString() } : {}),
    };
  }

  async prepare(intent: TxIntent, given: NetworkData): Promise<NetworkData> {
    const n = ledgerNetwork(given);
    const limit =
      n.units ??
      (await this.estimateLimit({ from: intent.from, to: intent.to, value: intent.value, ...(intent.data ? { data: intent.data } : {}) }))
        .limit;
    return this.fixedNetwork({ limit, fees: n.fees ?? (await this.quoteFees()) });
  }

  sign(intent: TxIntent, nonce: bigint, network: NetworkData, signingKey: SigningKey): SignedTransaction {
    if (intent.data) throw notSupported('call data');
    const n = ledgerNetwork(network);
    if (n.units === null || n.fees === null) throw new Error('network data is not prepared (units and fees)');
    const payload: LedgerPayload = {
      chainId: this.chain.chainId,
      from: intent.from,
      to: intent.to,
      value: intent.value.toString(),
      nonce: nonce.toString(),
      units: n.units.toString(),
      feeCap: n.fees.maxFeePerGas.toString(),
      tip: n.fees.maxPriorityFeePerGas.toString(),
    };
    const { r, s, recovery } = signingKey.signDigest(sha256(JSON.stringify(payload)));
    const signature = hex(new secp256k1.Signature(r, s).toCompactRawBytes()) + recovery.toString(16).padStart(2, '0');
    const raw = hex(Buffer.from(JSON.stringify({ payload, signature }), 'utf8'));
    return { raw, hash: hex(sha256(Buffer.from(raw.slice(2), 'hex'))) };
  }

  async replacementNetwork(network: NetworkData): Promise<NetworkData> {
    const n = ledgerNetwork(network);
    if (n.units === null || n.fees === null) throw new Error('only a prepared transaction can be replaced');
    return this.fixedNetwork({ limit: n.units, fees: this.replacementFees(n.fees, await this.quoteFees()) });
  }

  costOf(value: bigint, network: NetworkData): bigint {
    const n = ledgerNetwork(network);
    return value + (n.units ?? 0n) * (n.fees?.maxFeePerGas ?? 0n);
  }

  feeFields(network: NetworkData) {
    const n = ledgerNetwork(network);
    return { gasLimit: n.units, maxFeePerGas: n.fees?.maxFeePerGas ?? null, maxPriorityFeePerGas: n.fees?.maxPriorityFeePerGas ?? null };
  }

  async findLanded(hashes: string[]): Promise<{ index: number; receipt: Receipt } | null> {
    for (const [index, hash] of hashes.entries()) {
      const receipt = this.chain.receipt(hash);
      if (receipt) return { index, receipt };
    }
    return null;
  }
}

function ledgerNetwork(network: NetworkData): { units: bigint | null; fees: FeeEstimate | null } {
  const big = (v: string | undefined) => (v === undefined ? null : BigInt(v));
  const [feeCap, tip] = [big(network.feeCap), big(network.tip)];
  return { units: big(network.units), fees: feeCap !== null && tip !== null ? { maxFeePerGas: feeCap, maxPriorityFeePerGas: tip } : null };
}

/** The ledger family's adapter: the seam over one LedgerChain. */
export class LedgerAdapter implements ChainAdapter {
  readonly sender: LedgerSender;

  constructor(
    readonly config: ChainConfig,
    readonly chain: LedgerChain,
  ) {
    this.sender = new LedgerSender(chain);
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
      blockNumber: b.number,
      blockHash: b.hash,
    };
  }

  async broadcast(raw: string): Promise<string> {
    return this.chain.submit(raw);
  }

  async getReceipt(hash: string): Promise<Receipt | null> {
    return this.chain.receipt(hash);
  }

  encodeTokenTransfer(): string {
    throw notSupported('tokens');
  }

  close(): void {
    this.chain.stop();
  }

  readTokenDecimals(): Promise<number | null> {
    return Promise.reject(notSupported('token metadata'));
  }

  readPriceFeed(): Promise<never> {
    return Promise.reject(notSupported('price feeds'));
  }

  encodeContractCall(): never {
    throw notSupported('contract calls');
  }

  readContract(): Promise<string> {
    return Promise.reject(notSupported('contract calls'));
  }

  simulateContractCall(): Promise<{ gas: bigint }> {
    return Promise.reject(notSupported('contract calls'));
  }

  describeTokenCall(): null {
    return null;
  }

  getAllowances(): Promise<bigint[]> {
    return Promise.reject(notSupported('allowances'));
  }

  prepareTypedData(): never {
    throw notSupported('typed data');
  }
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
