/**
 * The withdrawal module's shared vocabulary: who sends, what a request is and answers, what
 * the service is built from, and what the lifecycle (lifecycle.ts) asks of the service.
 * service.ts re-exports these; the module's other files import them from here, so that
 * none of them imports service.ts back.
 */
import type { DbConn } from '../../db/pool.js';
import type { AuthContext } from '../apikeys/service.js';
import type { ChainHandle } from '../catalogue/service.js';
import type { ModuleDeps } from '../deps.js';
import type { TransactionView } from '../transactions/service.js';
import type { WalletRow } from '../wallets/service.js';
import type { WithdrawBody } from './schemas.js';
import type { Item } from './validate.js';

export type WithdrawalServiceDeps = ModuleDeps;

/** Who sends: the master address (index 0) or one of the wallet's child addresses. */
export interface Sender {
  wallet: WalletRow;
  chain: ChainHandle;
  address: string;
  index: number;
  addressId: string | null;
  addressMetadata: Record<string, unknown> | null;
}

export interface WithdrawRequest {
  walletId: string;
  /** null: from the master address. */
  addressId: string | null;
  body: WithdrawBody;
  idempotencyKey?: string | undefined;
  /**
   * A settlement's payee (modules/settlements): the beneficiary the request pays, which the
   * accepting transaction requires to still receive settlements (create.ts). Not a client field.
   */
  settlesTo?: string;
}

/** A single request answers with one Transaction, a batch with an array in request order. */
export type WithdrawResult = TransactionView | TransactionView[];

/** What cancel and retry (lifecycle.ts) need of the service: the sender, its lock, the whitelist. */
export interface SenderAccess {
  /** The sending address of a request; a foreign wallet or address is a 404. */
  sender(auth: AuthContext, walletId: string, addressId: string | null): Promise<Sender>;
  /** Runs `fn` alone, after the sender's earlier requests in this process (batcher.ts). */
  serialise<T>(s: Sender, fn: () => Promise<T>): Promise<T>;
  /** Throws NOT_WHITELISTED when the wallet whitelists beneficiaries and a destination is none of them. */
  checkWhitelist(walletId: string, items: Item[], db?: DbConn): Promise<void>;
}
