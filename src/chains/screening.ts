/**
 * The on-chain lists AML screening reads (modules/aml), in domain terms: whether a
 * stablecoin's issuer has blacklisted (frozen) an address, and whether a sanctions oracle
 * lists it. A family offers these reads through `ChainAdapter.screening` (absent: the family
 * reads no list on chain); each family implements them in its own screening.ts.
 *
 * Which contract answers is configuration: an asset's `blacklist` (whose list the token
 * keeps, so which function answers) and a chain's `sanctionsOracle` (config/chains.ts).
 */
import type { BlacklistKind } from '../config/index.js';

export type { BlacklistKind };

/** One list to read for a batch of addresses. */
export type ListRead =
  /** The token issuer's blacklist: a function of the token contract (EVM, Tron), a frozen token account (Solana). */
  | { kind: 'issuer'; token: string; blacklist: BlacklistKind }
  /** The SanctionsList oracle's isSanctioned(address) (Chainalysis's; a contract, so only where the family runs contracts). */
  | { kind: 'sanctions'; oracle: string };

export interface ScreeningReads {
  /** Whether the family can make this read (Solana: issuer lists only). */
  supports(read: ListRead): boolean;
  /**
   * For each read, in order: whether each address (in `addresses` order) is listed, or the
   * Error that kept the chain from answering that read (a contract that does not answer the
   * function, a revert); the other reads still answer. A transport failure (node down,
   * timeout) throws. Node calls stay bounded whatever the number of addresses: one batched
   * call per chunk of reads x addresses where the chain allows (Multicall3's aggregate3,
   * getMultipleAccounts).
   */
  read(reads: readonly ListRead[], addresses: readonly string[]): Promise<(boolean[] | Error)[]>;
}
