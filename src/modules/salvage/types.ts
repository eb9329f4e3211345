/**
 * What the salvage module's files share (service.ts plans, steps.ts and foreign.ts carry
 * out): kept apart so that none of them imports service.ts back.
 */
import type { ChildFeeFunding, FeeQuote, TxIntent } from '../../chains/types.js';
import type { ChainHandle } from '../catalogue/service.js';
import type { WalletRow } from '../wallets/service.js';

/** Who sends: the master (index 0), a child (its index), or an address whose key was imported (null). */
export interface Salvager {
  address: string;
  index: number | null;
  addressId: string | null;
}

/** Everything a recovery on a configured chain needs, read before anything is written. */
export interface SalvagePlan {
  wallet: WalletRow;
  chain: ChainHandle;
  sender: Salvager;
  recipient: string;
  /** The token (contract, mint), or null for the native coin. */
  token: string | null;
  /** The chain's catalogue asset it is, when listed (shown on the Transaction); undefined: unlisted. */
  assetId: string | null;
  currency: string | null;
  decimals: number;
  amount: bigint;
  tokenBalance: bigint | null;
  nativeBalance: bigint;
  intent: TxIntent;
  quote: FeeQuote;
  funding: ChildFeeFunding;
  wholeBalance: boolean;
}
