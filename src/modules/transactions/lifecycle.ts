/**
 * The life of a Transaction row: which `status` x `stage` pairs exist, and which moves
 * between them each kind of transaction makes. Pure: no SQL (store.ts) and no I/O.
 *
 * `status` is the public one (the spec's, filtered on by clients; a CHECK in migration 001
 * holds it to four values); `stage` is ours and says where in its flow the row is. The other
 * columns a move writes follow from the pair:
 * - `confirmed`: the outcome is on chain (a receipt) or, for a deposit, at the chain's
 *   confirmation depth; a sign-only row is born confirmed (nothing more will happen to it).
 * - `confirmations`: blocks on top of the receipt's (itself included); null off chain.
 * - `hash`, `nonce`, `raw_transaction`: set from `signed` on; block and gas columns once mined.
 */

import { TRANSACTION_STATUSES as STATUSES } from '../../transaction-types.js';

export type TransactionStatus = (typeof STATUSES)[number];

/**
 * The stages each status can be in.
 * - PENDING: `created` (accepted, nonce reserved, not signed), `signed` (hash known, being
 *   sent), `broadcast` (sent again after a reorg took its block), `mined` (a deposit waiting
 *   for its depth).
 * - SUCCESS: `signed` (sign-only: never broadcast by us), `mined` (sent, receipt ok),
 *   `confirmed` (a deposit at depth).
 * - FAILED: `failed` (reverted on chain, fee paid), `dropped` (its nonce went to another
 *   transaction), `replaced` (voided before signing; the nonce filled by a 0-value transfer),
 *   `not-sent` (a settlement leg abandoned before its send), `reorged` (a deposit whose
 *   block was replaced).
 * - CANCELLED: `cancelled` (a withdrawal whose nonce a 0-value self-transfer took, voided
 *   before broadcast, or refused by its approvers or its approval's time to live). Only the
 *   first has a receipt, and a reorg can still take it away until it is final (PENDING again).
 * - PENDING_APPROVAL: `awaiting-approval` (a payout a policy holds for approval: nothing
 *   signed, no nonce, its amount held back from the sender's balance).
 */
export const STAGES = {
  PENDING: ['created', 'signed', 'broadcast', 'mined'],
  PENDING_APPROVAL: ['awaiting-approval'],
  SUCCESS: ['signed', 'mined', 'confirmed'],
  FAILED: ['failed', 'dropped', 'replaced', 'not-sent', 'reorged'],
  CANCELLED: ['cancelled'],
} as const satisfies Record<TransactionStatus, readonly string[]>;

export type StageOf<S extends TransactionStatus> = (typeof STAGES)[S][number];
export type TransactionStage = StageOf<TransactionStatus>;

/** One status with one of its stages: the discriminated state of a row. */
export type TransactionState = { [S in TransactionStatus]: { status: S; stage: StageOf<S> } }[TransactionStatus];
export type PendingState = Extract<TransactionState, { status: 'PENDING' }>;
/** A state a pending row ends in (a settlement). */
export type EndState = Exclude<TransactionState, { status: 'PENDING' }>;
export type FailedStage = StageOf<'FAILED'>;

/** `PENDING/created`: a state as text, for tables and messages. */
export type StateKey = { [S in TransactionStatus]: `${S}/${StageOf<S>}` }[TransactionStatus];

export function keyOf(s: TransactionState): StateKey {
  return `${s.status}/${s.stage}` as StateKey;
}

export function isState(status: string, stage: string): boolean {
  return (STATUSES as readonly string[]).includes(status) && (STAGES[status as TransactionStatus] as readonly string[]).includes(stage);
}

/**
 * The state for a status and a stage that come from elsewhere (an outbound row's stage).
 * Throws on a pair that does not exist: written, it would be a row no flow can move on.
 */
export function stateIn<S extends TransactionStatus>(status: S, stage: string): { status: S; stage: StageOf<S> } {
  if (!isState(status, stage)) throw new Error(`no transaction state ${status}/${stage}`);
  return { status, stage: stage as StageOf<S> };
}

/** How a sent transaction ends: SUCCESS when mined with a successful receipt, else FAILED. */
export type SendEnd = { status: 'SUCCESS'; stage: 'mined' } | { status: 'FAILED'; stage: FailedStage };

/** The end of a sent transaction whose outbound row ended in `stage` (`ok`: mined, receipt successful). */
export function sendEnd(ok: boolean, stage: string): SendEnd {
  if (!ok) return stateIn('FAILED', stage);
  if (stage !== 'mined') throw new Error(`a successful send ends mined, not ${stage}`);
  return { status: 'SUCCESS', stage };
}

/** The transaction types, by the flow that moves them. */
export const TYPES = {
  /** A transfer in, found on chain by the indexer or the deposit finder. */
  deposit: ['DEPOSIT'],
  /** Sent through the outbound pipeline, retried and followed through reorgs by withdrawals. */
  withdrawal: ['WITHDRAW'],
  /** Sent through the outbound pipeline; settled once. */
  send: ['CUSTOM_SMART_CONTRACT', 'SWAP', 'AUTO_SETTLEMENT', 'SALVAGE', 'STAKING', 'UNSTAKING', 'RESTAKING', 'UNSTAKING_WITHDRAW'],
  /** Signed for the client and never sent by us: born final. */
  signature: ['SIGNED'],
} as const;
export type Flow = keyof typeof TYPES;
export type TransactionType = (typeof TYPES)[Flow][number];

export function flowOf(type: string): Flow | undefined {
  return (Object.keys(TYPES) as Flow[]).find((f) => (TYPES[f] as readonly string[]).includes(type));
}

export interface Transition {
  /** The flows that make this move. */
  flows: readonly Flow[];
  /** States a row may be in for the move to apply ([] = the row is created by it). */
  from: readonly StateKey[];
  to: readonly StateKey[];
}

const OUT_PENDING = ['PENDING/created', 'PENDING/signed', 'PENDING/broadcast'] as const;
const OUT_ENDS = ['SUCCESS/mined', 'FAILED/failed', 'FAILED/dropped', 'FAILED/replaced'] as const;

/**
 * Every move of the transition API (TransactionService), by name. `from` is what the write's
 * WHERE clause, or the row lock and check of its caller, makes sure of; each write happens
 * once because a replayed one no longer finds its `from` state.
 */
export const TRANSITIONS = {
  /** A deposit found (written confirmed at once when already at depth: a backfill). */
  depositFound: { flows: ['deposit'], from: [], to: ['PENDING/mined', 'SUCCESS/confirmed'] },
  /** Confirmations counted; at the chain's depth it is SUCCESS (deposit.success). */
  depositConfirmed: { flows: ['deposit'], from: ['PENDING/mined'], to: ['PENDING/mined', 'SUCCESS/confirmed'] },
  /** Its block was replaced and the transfer is not in the new chain. */
  depositReorged: { flows: ['deposit'], from: ['PENDING/mined'], to: ['FAILED/reorged'] },
  /** The same transfer found in another block (re-mined after a reorg): counted from zero again. */
  depositRelocated: { flows: ['deposit'], from: ['PENDING/mined', 'FAILED/reorged'], to: ['PENDING/mined'] },
  /** Accepted for sending. */
  sendCreated: { flows: ['withdrawal', 'send'], from: [], to: ['PENDING/created'] },
  /** Accepted, held for approval by a policy (policies/approvals.ts): nothing signed, its amount reserved. */
  approvalRequired: { flows: ['withdrawal'], from: [], to: ['PENDING_APPROVAL/awaiting-approval'] },
  /** Its approvers' quorum reached: sent as any withdrawal (a nonce now). */
  approvalGranted: { flows: ['withdrawal'], from: ['PENDING_APPROVAL/awaiting-approval'], to: ['PENDING/created'] },
  /** Rejected, past its approval's time to live, or cancelled by the client while waiting: its reservation released. */
  approvalRefused: { flows: ['withdrawal'], from: ['PENDING_APPROVAL/awaiting-approval'], to: ['CANCELLED/cancelled'] },
  /** Signed (or re-signed by a fee bump): its hash is the one to follow. */
  sendSigned: { flows: ['withdrawal', 'send'], from: OUT_PENDING, to: ['PENDING/signed'] },
  /** Its outbound row ended: mined, reverted, dropped, voided; or a settlement leg given up. */
  sendSettled: { flows: ['withdrawal', 'send'], from: OUT_PENDING, to: [...OUT_ENDS, 'FAILED/not-sent'] },
  /** A withdrawal's nonce taken by its 0-value self-transfer, or voided before broadcast. */
  withdrawalCancelled: { flows: ['withdrawal'], from: OUT_PENDING, to: ['CANCELLED/cancelled', 'FAILED/dropped', 'FAILED/replaced'] },
  /** After settlement: depth counted, or the receipt moved to another block. */
  withdrawalDepth: { flows: ['withdrawal'], from: ['SUCCESS/mined', 'FAILED/failed'], to: ['SUCCESS/mined', 'FAILED/failed'] },
  /** The same for the receipt of the 0-value self-transfer that cancelled it. */
  cancellationDepth: { flows: ['withdrawal'], from: ['CANCELLED/cancelled'], to: ['CANCELLED/cancelled'] },
  /**
   * The receipt's block was reorged away: PENDING again while the same bytes are re-sent. For
   * a cancellation, the original it replaced may be mined instead: the withdrawal was paid.
   */
  withdrawalReorged: { flows: ['withdrawal'], from: ['SUCCESS/mined', 'FAILED/failed', 'CANCELLED/cancelled'], to: ['PENDING/broadcast'] },
  /** A failed withdrawal retried: a new send with a new nonce. */
  withdrawalRetried: {
    flows: ['withdrawal'],
    from: ['FAILED/failed', 'FAILED/dropped', 'FAILED/replaced'],
    to: ['PENDING/created'],
  },
  /** Signed for the client (sign-only withdrawals, contract calls, messages, typed data). */
  signatureCreated: { flows: ['signature'], from: [], to: ['SUCCESS/signed'] },
} as const satisfies Record<string, Transition>;
export type TransitionName = keyof typeof TRANSITIONS;

/**
 * Writes that add to a row without moving it, and the states they are made in: the sweep of
 * a confirmed deposit (sweep_id, asset_swept_*), the output a settlement's swap delivered
 * (the AUTO_SETTLEMENT leg's amount), a contract write's reserved fee.
 */
export const AMENDMENTS = {
  depositSwept: { flows: ['deposit'], in: ['SUCCESS/confirmed'] },
  legAmount: { flows: ['send'], in: OUT_PENDING },
  feeReserved: { flows: ['send'], in: ['PENDING/created'] },
} as const satisfies Record<string, { flows: readonly Flow[]; in: readonly StateKey[] }>;

/** True when a row of `type` may be created in state `to`. */
export function canCreate(type: string, to: TransactionState): boolean {
  return canApply(type, null, to);
}

/** True when some move of the row's flow takes a row of `type` from `from` to `to`. */
export function canMove(type: string, from: TransactionState, to: TransactionState): boolean {
  return canApply(type, from, to);
}

function canApply(type: string, from: TransactionState | null, to: TransactionState): boolean {
  const flow = flowOf(type);
  if (!flow) return false;
  return Object.values(TRANSITIONS).some(
    (t: Transition) =>
      t.flows.includes(flow) && (from === null ? t.from.length === 0 : t.from.includes(keyOf(from))) && t.to.includes(keyOf(to)),
  );
}

/** A state no move leaves: the row's story is over. */
export function isFinal(type: string, s: TransactionState): boolean {
  const flow = flowOf(type);
  return (
    flow !== undefined &&
    !Object.values(TRANSITIONS).some(
      (t: Transition) => t.flows.includes(flow) && t.from.includes(keyOf(s)) && t.to.some((k) => k !== keyOf(s)),
    )
  );
}
