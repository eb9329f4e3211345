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

export interface ChainAdapter {
  readonly config: ChainConfig;
  /** Canonical form of an address (EIP-55 on EVM), or null when it is not valid here. */
  normalizeAddress(address: string): string | null;
  /** One round trip where the chain allows it (Multicall3). Same order as the queries. */
  getBalances(queries: BalanceQuery[]): Promise<bigint[]>;
  getBlockNumber(): Promise<bigint>;
  close(): void;
}
