/**
 * What modules know of a blockchain. Everything is in domain terms (addresses as strings,
 * amounts as bigint base units) so Tron and Solana adapters slot in beside the EVM one.
 */
import type { ChainConfig } from '../config/index.js';

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
}

export interface ChainAdapter {
  readonly config: ChainConfig;
  /** Canonical form of an address (EIP-55 on EVM), or null when it is not valid here. */
  normalizeAddress(address: string): string | null;
  /** One round trip where the chain allows it (Multicall3). Same order as the queries. */
  getBalances(queries: BalanceQuery[]): Promise<bigint[]>;
  getBlockNumber(): Promise<bigint>;

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

  // Sending (sweeps, withdrawals).
  getNonce(address: string, blockTag: 'pending' | 'latest'): Promise<number>;
  estimateFees(): Promise<FeeEstimate>;
  estimateGas(tx: { from: string; to: string; value: bigint; data?: string }): Promise<bigint>;
  /** Sends a signed raw transaction; returns its hash. Resending a known one is not an error. */
  broadcast(raw: string): Promise<string>;
  getReceipt(hash: string): Promise<Receipt | null>;
  /** Calldata of an ERC-20 `transfer(to, amount)`. */
  encodeTokenTransfer(to: string, amount: bigint): string;

  close(): void;
}
