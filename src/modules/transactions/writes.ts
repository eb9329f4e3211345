/**
 * The transition API: every write of the `transactions` table, as the moves of lifecycle.ts
 * (named in each method's comment). Each takes the caller's connection, so the move commits
 * with the caller's other writes (its outbound row, its events) or not at all. The store's
 * WHERE clauses make a move happen once (a replay finds the row moved on); where a move has
 * none, its caller holds the row lock and has checked the state (said below).
 */
import type { Insertable } from 'kysely';
import { ConflictError } from '../../lib/errors.js';
import type { DbConn } from '../../db/pool.js';
import type { TransactionsTable } from '../../db/types.js';
import type { TransactionType } from './lifecycle.js';
import type { BlockPointer } from '../../chains/types.js';
import * as deposits from './deposit-store.js';
import * as store from './store.js';
import type {
  ContractCallOutcome,
  Counted,
  DepositLocation,
  LegOutcome,
  Mined,
  NewDeposit,
  NewLeg,
  NewWithdrawal,
  Signed,
  Swept,
  WithdrawalOutcome,
} from './types.js';

/** A row's columns but its state. */
export type TransactionFields = Omit<Insertable<TransactionsTable>, 'status' | 'stage'>;
/** A row created by `create`: accepted for sending (sendCreated) or signed for the client (signatureCreated). */
export type NewTransaction = TransactionFields &
  ({ status: 'PENDING'; stage: 'created' } | { status: 'SUCCESS'; stage: 'signed'; confirmed: true });

export class TransactionWrites {
  // ---- created ----------------------------------------------------------------------

  /**
   * One row (swaps, recoveries, staking, contract calls, signatures): sendCreated or
   * signatureCreated. Its reference may be the client's: one the wallet already holds (an
   * earlier request, a withdrawal, a concurrent twin that committed first) throws 409
   * REFERENCE_IN_USE, and the caller's transaction, rolled back, writes nothing else either.
   * `counted`: what its policy decision counted it as (null: a row no policy decides).
   */
  async create(db: DbConn, row: NewTransaction, counted: Counted | null): Promise<void> {
    if (await store.insertTransaction(db, row, counted)) return;
    throw referenceInUse(row.reference, await store.referenceHolder(db, row.wallet_id, row.reference));
  }

  /**
   * 409 REFERENCE_IN_USE when the wallet already holds `reference` (none given: nothing to
   * check). Callers ask before work they would otherwise do for nothing (reading the chain,
   * signing); `create` stays the guard against a twin that commits in between.
   */
  async requireReferenceFree(db: DbConn, walletId: string, reference: string | undefined): Promise<void> {
    if (reference === undefined) return;
    const holder = await store.referenceHolder(db, walletId, reference);
    if (holder) throw referenceInUse(reference, holder);
  }

  /** Withdrawals accepted (sendCreated), held for approval (approvalRequired) or signed only (signatureCreated), in one statement; the rows as written. */
  createWithdrawals(db: DbConn, list: NewWithdrawal[]): Promise<store.TransactionRow[]> {
    return store.insertWithdrawals(db, list);
  }

  createWithdrawal(db: DbConn, w: NewWithdrawal): Promise<void> {
    return store.insertWithdrawal(db, w);
  }

  /** A settlement's SWAP or AUTO_SETTLEMENT leg: sendCreated. */
  createLeg(db: DbConn, leg: NewLeg): Promise<void> {
    return store.insertLeg(db, leg);
  }

  /**
   * depositFound, in bulk: the rows inserted (a deposit already on record for its wallet is
   * skipped), built in memory. With `depth`, one at or below the final block `depth.final` is written SUCCESS.
   */
  recordDeposits(db: DbConn, ds: NewDeposit[], depth?: { head: bigint; final: bigint }): Promise<store.TransactionRow[]> {
    return deposits.insertDeposits(db, ds, depth);
  }

  /**
   * A deposit's AML screening changes (no state move: status and stage stay): released by an
   * operator (held -> not held) or screened again after its providers failed. Happens once:
   * the row must still be in the state `from` says (held; not screened). False when not.
   */
  setDepositScreening(
    db: DbConn,
    id: string,
    from: 'held' | 'not-screened',
    screening: Record<string, unknown>,
    held: boolean,
  ): Promise<boolean> {
    return deposits.setDepositScreening(db, id, from, screening, held);
  }

  // ---- deposits ---------------------------------------------------------------------

  /** Before relocating several deposits in one transaction: off their positions first (deposit-store.ts). */
  parkDeposits(db: DbConn, ids: string[]): Promise<void> {
    return deposits.parkDeposits(db, ids);
  }

  /** depositRelocated: found in another block (its caller matched it, PENDING or FAILED, in the range's transaction). */
  relocateDeposit(db: DbConn, id: string, loc: DepositLocation): Promise<void> {
    return deposits.relocateDeposit(db, id, loc);
  }

  /** depositReorged, only if still PENDING in the block it was read in; false when it has moved on. */
  failDeposit(db: DbConn, d: { id: string; block_hash: string }, reason: string): Promise<boolean> {
    return deposits.failDeposit(db, d, reason);
  }

  /** Still PENDING (no transition): its block replaced, its transaction known in a later block, moved there. */
  moveDepositAhead(db: DbConn, d: { id: string; block_hash: string }, block: BlockPointer): Promise<void> {
    return deposits.moveDepositAhead(db, d, block);
  }

  /**
   * depositConfirmed: recounts the chain's PENDING deposits up to `verifiedTo` (only `only`
   * when given) and returns the ids at or below the final block `final` (now SUCCESS; the
   * adapter's finalizedHead: depth counting on EVM, the solidified block on Tron).
   */
  confirmDeposits(db: DbConn, chainId: string, head: bigint, verifiedTo: bigint, final: bigint, only?: string[]): Promise<string[]> {
    return deposits.confirmDeposits(db, chainId, head, verifiedTo, final, only);
  }

  /** depositSwept: the deposits are carried by this sweep (its caller holds the address's lock). */
  attachToSweep(db: DbConn, sweepId: string, depositIds: string[]): Promise<void> {
    return deposits.attachDeposits(db, sweepId, depositIds);
  }

  /** depositSwept: the sweep's transfer was mined. */
  markSwept(db: DbConn, depositId: string, s: Swept): Promise<void> {
    return deposits.markSwept(db, depositId, s);
  }

  /** depositSwept: the sweep failed; the reason is kept in asset_swept_response. */
  recordSweepFailure(db: DbConn, depositId: string, response: unknown): Promise<void> {
    return deposits.recordSweepFailure(db, depositId, response);
  }

  // ---- sends (withdrawals, contract writes, settlement legs) ---------------------------

  /** sendSigned, only while PENDING (and of type `only` when given). */
  recordSigned(db: DbConn, id: string, s: Signed, only?: TransactionType): Promise<void> {
    return store.recordSigned(db, id, s, only);
  }

  /** sendSettled or withdrawalCancelled; the caller holds the row lock and saw it PENDING. */
  settleWithdrawal(db: DbConn, id: string, o: WithdrawalOutcome): Promise<void> {
    return store.settleWithdrawal(db, id, o);
  }

  /** sendSettled, only if PENDING: a replayed completion changes nothing (false). */
  settleLeg(db: DbConn, id: string, o: LegOutcome): Promise<boolean> {
    return store.settleLeg(db, id, o);
  }

  /** sendSettled; the caller holds the row lock and saw it PENDING. */
  settleContractCall(db: DbConn, id: string, o: ContractCallOutcome): Promise<void> {
    return store.settleContractCall(db, id, o);
  }

  /**
   * withdrawalDepth (cancellationDepth for a CANCELLED one), for the attempt whose hash the
   * withdrawal holds. Leaves updated_at alone: a settled withdrawal's updated_at is what the
   * balance check reads as "settled since".
   */
  setConfirmations(db: DbConn, id: string, hash: string, depth: number): Promise<void> {
    return store.setConfirmations(db, id, hash, depth);
  }

  /** withdrawalDepth or cancellationDepth: the receipt moved to another block (updated_at left alone, as above). */
  moveBlock(db: DbConn, id: string, m: Mined, depth: number): Promise<void> {
    return store.moveBlock(db, id, m, depth);
  }

  /** withdrawalReorged, for the attempt whose hash it holds; true when the withdrawal was changed. */
  reopenAfterReorg(db: DbConn, id: string, hash: string, reason: string): Promise<boolean> {
    return store.reopenAfterReorg(db, id, hash, reason);
  }

  /**
   * withdrawalRetried: reserving anew, the last attempt's chain data cleared (the caller locked
   * it and saw it FAILED), counted in the windows from now as the retry was decided.
   */
  retryWithdrawal(db: DbConn, id: string, reservedFee: bigint, nonce: bigint | null, counted: Counted): Promise<void> {
    return store.reopen(db, id, reservedFee, nonce, counted);
  }

  /** approvalGranted: the approvers' quorum reached, sent on with this nonce; false when it is no longer PENDING_APPROVAL. */
  grantApproval(db: DbConn, id: string, nonce: bigint | null): Promise<boolean> {
    return store.grantApproval(db, id, nonce);
  }

  /** approvalRefused: rejected, expired or cancelled while waiting; false when it is no longer PENDING_APPROVAL. */
  refuseApproval(db: DbConn, id: string, reason: string): Promise<boolean> {
    return store.refuseApproval(db, id, reason);
  }

  /** legAmount: the AUTO_SETTLEMENT leg's amount once the swap has delivered; only while PENDING. */
  setLegAmount(db: DbConn, id: string, amount: bigint): Promise<void> {
    return store.setLegAmount(db, id, amount);
  }

  /** feeReserved: the gas a broadcast contract write may spend, held from the sender's native balance. */
  reserveFee(db: DbConn, id: string, fee: bigint): Promise<void> {
    return store.reserveFee(db, id, fee);
  }
}

/**
 * The answer to a reference the wallet already holds (`holder`, its Transaction's id): one
 * code and one message for every operation that takes a client reference (withdrawals too).
 */
export function referenceInUse(reference: string, holder: string | undefined): ConflictError {
  return new ConflictError(
    'REFERENCE_IN_USE',
    `The reference '${reference}' is already used on this wallet by another transaction (${holder ?? 'unknown'})`,
  );
}
