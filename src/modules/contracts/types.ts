/**
 * The contract module's shared vocabulary: what the service is built from, who acts, and
 * what a call moves. service.ts re-exports what others need; the module's other files
 * import these from here, so that none of them imports service.ts back.
 */
import type { ChainHandle } from '../catalogue/service.js';
import type { ModuleDeps } from '../deps.js';
import type { WalletRow } from '../wallets/service.js';

export type ContractServiceDeps = ModuleDeps;

/** Who acts: the master address (index 0) or a child address of the wallet. */
export interface Actor {
  wallet: WalletRow;
  chain: ChainHandle;
  address: string;
  /** Derivation index; null for an external address (no key: read and estimate only). */
  index: number | null;
  addressId: string | null;
}

/** What one call moves, recorded with its Transaction (contract_moves, contract_spenders). */
export interface Move {
  owner: string;
  assetId: string;
  amount: bigint;
  kind: 'transfer' | 'allowance';
  beneficiary: string;
  /** The token, for an allowance (its spender is recorded for later allowance reads). */
  token: string | null;
}
