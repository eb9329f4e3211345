/**
 * The Tron family's ChainAdapter (chains/types.ts) over a java-tron HTTP API (TronNode): the
 * read side (balances, blocks, deposits, receipts), broadcast, and the token calldata the
 * sender signs. Addresses are base58check `T…` everywhere out of here (chains/tron/codec.ts);
 * transaction ids are java-tron's txID (64 lower-case hex digits, no 0x). Every node call
 * uses `visible: false` (addresses as 41-hex), the form every java-tron version answers.
 *
 * Which endpoints, and why (java-tron's HTTP API):
 * - heads: `/wallet/getblock` with `detail: false` (the header of the latest block; with
 *   `id_or_num`, of that block): `getnowblock` would carry every transaction of the block;
 * - deposits: per block `/wallet/getblockbynum` (TRX transfers) and
 *   `/wallet/gettransactioninfobyblocknum` (TRC-20 logs), scan.ts;
 * - balances: balances.ts; receipts and the deposit finder: `/wallet/gettransactioninfobyid`
 *   and the block it names;
 * - broadcast: `/wallet/broadcasthex` (the signed Transaction's protobuf, as it was signed).
 */
import type { ChainConfig } from '../../config/index.js';
import { AppError, UpstreamError } from '../../lib/errors.js';
import { ChainRejectedError } from '../errors.js';
import { TronSender } from './sender.js';
import { TronStaking } from './staking.js';
import type { Staking } from '../staking.js';
import type {
  BalanceQuery,
  BlockRef,
  ChainAdapter,
  Contracts,
  PaymentRequests,
  PersonalMessages,
  Receipt,
  ScanResult,
  ScreeningReads,
  TransferEvent,
} from '../types.js';
import { tronPaymentRequests } from './payment-uri.js';
import { readBalances } from './balances.js';
import { TronScreening } from './screening.js';
import { describeTronTokenCall, encodeTronCall, readTronCall, simulateTronCall } from './contracts.js';
import { prepareTronMessage } from './message.js';
import { addressWord, constantCall, mapLimit, uintOutput } from './calls.js';
import { trc20Transfer } from './tx.js';
import { tronCodec } from './codec.js';
import { isTronTransient, tronMessageText, tronRejection } from './errors.js';
import type { TronNode } from './node.js';
import { txIdOfSigned } from './txid.js';
import { landedFailed, tronFees } from './receipt.js';
import {
  blockRefOf,
  blockTransfers,
  int64,
  tokenKeys,
  tokenTransfersOf,
  TronChainMovedError,
  trxTransferOf,
  type TronBlockJson,
  type TronTxInfoJson,
  type TronTxJson,
} from './scan.js';

export interface TronAdapterOptions {
  /** Node calls in flight for one balance read or one scan (constant calls, blocks). Default 8. */
  concurrency?: number;
  /** The fee limit the sender signs TRC-20 calls with, in sun (handed to the sender). */
  feeLimitSun?: bigint;
}

/**
 * The details of a receipt the adapter reads (getReceipt), decimal strings: Tron burns fees
 * rather than pricing gas, so the receipt's fee is what the sender paid in sun
 * (TransactionInfo.fee: energy burned + bandwidth burned + activation of a new account).
 * - `energyUsed`: energy the call used in all: staked, burned and the contract owner's share
 *   (receipt.energy_usage_total);
 * - `energyFee`: sun burned for energy (receipt.energy_fee);
 * - `netUsage`: bandwidth bytes taken from stake or the free allowance (receipt.net_usage);
 *   0 when they were burned;
 * - `netFee`: sun burned for bandwidth (receipt.net_fee);
 * - `result`: java-tron's contract result (SUCCESS, REVERT, OUT_OF_ENERGY, …); absent for
 *   system contracts.
 */
export type TronReceiptDetails = 'energyUsed' | 'energyFee' | 'netUsage' | 'netFee' | 'result';

const TXID = /^(?:0x)?([0-9a-fA-F]{64})$/;

export class TronAdapter implements ChainAdapter {
  readonly config: ChainConfig;
  readonly node: TronNode;
  /** The sending side: the 'expiry' ordering, fees burned or from resources (chains/tron/sender.ts). */
  readonly sender: TronSender;
  /** The fee burned, at a price of 1; energy and bandwidth for sweeps (receipt.ts). */
  readonly fees = tronFees;
  /**
   * TRC-20 and other contracts (contracts.ts, addresses in `T…` form), TIP-191 messages
   * (message.ts), and AML screening's list reads (TRC-20 blacklists and a sanctions oracle, by
   * constant calls: screening.ts). No EIP-712 typed data (TIP-712 binds a Tron chain id and
   * `T…` addresses that EIP-712 tooling does not), no price feeds (Chainlink's AggregatorV3 is
   * an EVM contract set), no swaps yet.
   */
  readonly capabilities: {
    contracts: Contracts;
    messages: PersonalMessages;
    screening: ScreeningReads;
    paymentRequests: PaymentRequests;
    staking: Staking;
  };
  readonly #concurrency: number;
  readonly #multicall: string | null;

  constructor(config: ChainConfig, node: TronNode, opts: TronAdapterOptions = {}) {
    this.config = config;
    this.node = node;
    this.#concurrency = Math.max(1, opts.concurrency ?? 8);
    const multicall = config.multicall3 ? tronCodec.normalize(config.multicall3) : null;
    if (config.multicall3 && multicall === null) throw new Error(`multicall3 of ${config.blockchain.name} is not a Tron address`);
    this.#multicall = multicall;
    // Stake 2.0 (chains/staking.ts), its node calls' failures mapped like the adapter's own.
    const staking = new TronStaking(node);
    this.capabilities = {
      contracts: {
        encodeContractCall: (call, field) => encodeTronCall(call, field),
        readContract: (call, from, field) => this.rpc(() => readTronCall(this.node, call, from, field)),
        simulateContractCall: (call, from, field) => this.rpc(() => simulateTronCall(this.node, call, from, field)),
        describeTokenCall: (data) => describeTronTokenCall(data),
        getAllowances: (queries) => this.getAllowances(queries),
      },
      messages: { prepareMessage: prepareTronMessage },
      screening: new TronScreening(node, multicall, this.#concurrency),
      paymentRequests: tronPaymentRequests,
      staking: {
        resources: staking.resources,
        minimumStake: staking.minimumStake,
        maxUnlocking: staking.maxUnlocking,
        network: (op) => staking.network(op),
        state: (owner) => this.rpc(() => staking.state(owner)),
        outcome: (hash) => this.rpc(() => staking.outcome(hash)),
      },
    };
    this.sender = new TronSender(node, {
      ...(opts.feeLimitSun === undefined ? {} : { feeLimitSun: opts.feeLimitSun }),
      ...(config.sweepFunding === undefined ? {} : { sweepFunding: config.sweepFunding }),
    });
  }

  /**
   * A client's address: base58check `T…`, or java-tron's hex (`41…`, `0x41…`). The codec's
   * 20-byte `0x…` form (the TVM's) is refused here: from a client it is an EVM address
   * given to a Tron chain by mistake, and a payment to it would be a payment to another
   * account than the one the client meant.
   */
  normalizeAddress(address: string): string | null {
    if (/^0x[0-9a-fA-F]{40}$/.test(address)) return null;
    return tronCodec.normalize(address);
  }

  close(): void {
    // TronNode holds no connection of its own (fetch's pool is the process's).
  }

  // ---- balances ----------------------------------------------------------------------

  getBalances(queries: BalanceQuery[]): Promise<bigint[]> {
    return this.rpc(() => readBalances(this.node, queries, { multicall: this.#multicall, concurrency: this.#concurrency }));
  }

  // ---- blocks --------------------------------------------------------------------------

  /**
   * The head block's number (`/wallet/getblock`, the latest block), unsolidified: blocks up
   * to it can still be replaced. Tron counts finality differently from EVM: a block is
   * final once solidified (19 blocks behind the head on mainnet: 2/3 of the 27 super
   * representatives built on it): the deposit indexer confirms deposits up to
   * `finalizedHead` (the solidified block) and reads, and handles reorgs of, the range
   * between the two as on EVM.
   */
  getBlockNumber(): Promise<bigint> {
    return this.rpc(async () => this.headOf('wallet/getblock'));
  }

  /** The latest solidified block (`/walletsolidity/getblock`): irreversible; confirmations count to it. */
  getSolidifiedBlockNumber(): Promise<bigint> {
    return this.rpc(async () => this.headOf('walletsolidity/getblock'));
  }

  /**
   * Tron's blocks are final once solidified (2/3 of the super representatives built on
   * them; 19 behind the head on mainnet): the node says which, so the configured
   * `confirmations` play no part. Read after `head`, so capped by it.
   */
  async finalizedHead(head: bigint): Promise<bigint> {
    const solid = await this.getSolidifiedBlockNumber();
    return solid < head ? solid : head;
  }

  private async headOf(path: string): Promise<bigint> {
    const ref = blockRefOf(await this.node.post<TronBlockJson>(path, { detail: false, visible: false }));
    if (ref === null) throw new Error(`${path} answered no block`);
    return ref.number;
  }

  /** The block's header (`/wallet/getblock` without its transactions); null when the node has no such block. */
  getBlock(number: bigint): Promise<BlockRef | null> {
    if (number < 0n) return Promise.resolve(null);
    return this.rpc(async () =>
      blockRefOf(await this.node.post<TronBlockJson>('wallet/getblock', { id_or_num: number.toString(), detail: false })),
    );
  }

  // ---- deposits ------------------------------------------------------------------------

  /**
   * Two node calls per block whatever the number of watched addresses (scan.ts), at most
   * `concurrency` blocks in flight. Blocks must chain (each one's parentHash is the previous
   * one's id), else the chain moved while we read it: a retryable CHAIN_UNAVAILABLE.
   */
  scan(from: bigint, to: bigint, tokens: string[], isWatched: (address: string) => boolean): Promise<ScanResult> {
    return this.rpc(async () => {
      const keys = tokenKeys(tokens);
      const numbers: bigint[] = [];
      for (let n = from; n <= to; n++) numbers.push(n);
      const perBlock = await mapLimit(numbers, this.#concurrency, async (n) => {
        const [block, infos] = await Promise.all([
          this.node.post<TronBlockJson>('wallet/getblockbynum', { num: Number(n), visible: false }),
          this.node.post<TronTxInfoJson[] | Record<string, unknown>>('wallet/gettransactioninfobyblocknum', {
            num: Number(n),
            visible: false,
          }),
        ]);
        if (!block.blockID) throw new TronChainMovedError(`block ${n} is not on the node (yet)`);
        return blockTransfers(block, Array.isArray(infos) ? infos : [], keys, isWatched);
      });
      const blocks: BlockRef[] = [];
      const transfers: TransferEvent[] = [];
      for (const { ref, transfers: t } of perBlock) {
        const prev = blocks.at(-1);
        if (prev && ref.parentHash !== prev.hash) throw new TronChainMovedError(`block ${ref.number} does not follow ${prev.number}`);
        blocks.push(ref);
        transfers.push(...t);
      }
      return { blocks, transfers };
    });
  }

  /** The deposit finder, by txID: the transfers one mined, successful transaction made to watched addresses; [] otherwise. */
  transfersOfTransaction(hash: string, tokens: string[], isWatched: (address: string) => boolean): Promise<TransferEvent[]> {
    const id = TXID.exec(hash)?.[1]?.toLowerCase();
    if (id === undefined) return Promise.resolve([]);
    return this.rpc(async () => {
      const landed = await this.landed(id);
      if (landed === null || landed.info.result === 'FAILED') return [];
      const trx = trxTransferOf(landed.tx, landed.block, isWatched);
      return [...(trx ? [trx] : []), ...tokenTransfersOf(landed.info, landed.block, tokenKeys(tokens), isWatched)];
    });
  }

  /**
   * A transaction in a block of the node's head chain: its info (`gettransactioninfobyid`,
   * `{}` while unknown or pending), then the block the info names (`getblockbynum`), which
   * must hold it: a block reorganised in between is not taken for the one it landed in.
   */
  private async landed(id: string): Promise<{ info: TronTxInfoJson; tx: TronTxJson; block: BlockRef } | null> {
    const info = await this.node.post<TronTxInfoJson>('wallet/gettransactioninfobyid', { value: id });
    if (!info.id || info.blockNumber === undefined) return null;
    const block = await this.node.post<TronBlockJson>('wallet/getblockbynum', { num: Number(int64(info.blockNumber)), visible: false });
    const ref = blockRefOf(block);
    const tx = block.transactions?.find((t) => t.txID === id);
    return ref && tx ? { info, tx, block: ref } : null;
  }

  // ---- sending -------------------------------------------------------------------------

  /**
   * Sends a signed transaction (the hex of the whole protocol.Transaction protobuf, with or
   * without 0x) through `/wallet/broadcasthex`; returns its txID (sha256 of raw_data, computed
   * here). A refusal is a ChainRejectedError (errors.ts); DUP_TRANSACTION_ERROR (the node has
   * it already) is a success; the node's own trouble (SERVER_BUSY, …) is a retryable
   * CHAIN_UNAVAILABLE.
   */
  broadcast(raw: string): Promise<string> {
    return this.rpc(async () => {
      const hex = raw.replace(/^0x/, '');
      const txid = txIdOfSigned(hex);
      const res = await this.node.post<{ result?: boolean; code?: string; message?: string; Error?: string }>('wallet/broadcasthex', {
        transaction: hex,
      });
      if (res.result === true) return txid;
      if (res.Error) throw new ChainRejectedError('invalid', `transaction ${txid} rejected`, { nodeMessage: res.Error });
      const code = res.code ?? 'OTHER_ERROR';
      const message = tronMessageText(res.message);
      if (isTronTransient(code))
        throw new UpstreamError('CHAIN_UNAVAILABLE', `${this.name} cannot take transactions now: ${code} ${message}`);
      const rejection = tronRejection(code, message, txid);
      if (rejection) throw rejection;
      return txid;
    });
  }

  /** The receipt of a transaction in a block of the node's head chain (see `landed`, TronReceipt); null while none. */
  getReceipt(hash: string): Promise<Receipt | null> {
    const id = TXID.exec(hash)?.[1]?.toLowerCase();
    if (id === undefined) return Promise.resolve(null);
    return this.rpc(async () => {
      const landed = await this.landed(id);
      if (landed === null) return null;
      const { info, block } = landed;
      const r = info.receipt ?? {};
      const result = r.result ?? null;
      const failed = landedFailed(info.result, result);
      const details: Partial<Record<TronReceiptDetails, string>> = {
        energyUsed: int64(r.energy_usage_total).toString(),
        energyFee: int64(r.energy_fee).toString(),
        netUsage: int64(r.net_usage).toString(),
        netFee: int64(r.net_fee).toString(),
        ...(result !== null ? { result } : {}),
      };
      return { status: failed ? 'reverted' : 'success', block: { number: block.number, hash: block.hash }, fee: int64(info.fee), details };
    });
  }

  /** Calldata of a TRC-20 `transfer(to, amount)` (tx.ts, trc20Transfer): what a token intent compiles to. */
  encodeTokenTransfer(to: string, amount: bigint): string {
    return trc20Transfer(to, amount);
  }

  // ---- token metadata ------------------------------------------------------------------

  /** decimals() of a TRC-20 contract by constant call; null when the address does not answer it. */
  readTokenDecimals(token: string): Promise<number | null> {
    return this.rpc(async () => {
      const out = await constantCall(this.node, token, 'decimals()', '');
      const value = out.ok ? uintOutput(out.output) : null;
      return value !== null && value <= 255n ? Number(value) : null;
    });
  }

  // ---- contracts -----------------------------------------------------------------------

  /** allowance(owner, spender) of each token by constant call, in query order. */
  getAllowances(queries: { owner: string; token: string; spender: string }[]): Promise<bigint[]> {
    return this.rpc(() =>
      mapLimit(queries, this.#concurrency, async (q) => {
        const out = await constantCall(this.node, q.token, 'allowance(address,address)', addressWord(q.owner) + addressWord(q.spender));
        const value = out.ok ? uintOutput(out.output) : null;
        if (value === null) throw new Error(`allowance on ${q.token} failed: ${out.ok ? 'not one uint256' : out.why}`);
        return value;
      }),
    );
  }

  // ---- internals -----------------------------------------------------------------------

  private get name(): string {
    return `${this.config.blockchain.name} (${this.config.network})`;
  }

  /** Runs node calls, turning transport failures and unreadable answers into a retryable CHAIN_UNAVAILABLE. */
  private async rpc<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw new UpstreamError('CHAIN_UNAVAILABLE', `${this.name} node call failed: ${(err as Error).message}`, err);
    }
  }
}
