/**
 * What the transition API (TransactionService) takes: the rows other modules create and the
 * outcomes they settle with. Amounts are bigint base units; the store writes them as text.
 */
import type { Selectable } from 'kysely';
import type { BlockPointer, NetworkData, SignedFeeFields } from '../../chains/types.js';
import type { TransactionsTable } from '../../db/types.js';
import type { SendEnd } from './lifecycle.js';

/**
 * A transaction as the code reads it. sweep_id (sweeps), reserved_fee, quoted_fee and send_network
 * (withdrawals, contracts) and the policy_* columns (policies' velocity windows) are read only by their
 * owners' stores, in their own queries, so the row type leaves them out and builders of rows
 * (deposits' depositRow) need not carry them.
 */
export type TransactionRow = Omit<
  Selectable<TransactionsTable>,
  | 'sweep_id'
  | 'reserved_fee'
  | 'quoted_fee'
  | 'send_network'
  | 'policy_type'
  | 'policy_asset_id'
  | 'policy_amount'
  | 'policy_amount_usd'
  | 'policy_destination'
>;

/** A transfer in, as the indexer or the deposit finder found it. */
export interface NewDeposit {
  id: string;
  walletId: string;
  addressId: string | null;
  assetId: string;
  chainId: string;
  reference: string;
  amount: bigint;
  amountUsd: string | null;
  /** The rate `amountUsd` was computed at (rate and rateUSD); none without it. */
  rateUsd?: string | null;
  currency: string;
  hash: string;
  logIndex: number;
  block: BlockPointer;
  from: string;
  to: string;
  token: string | null;
  network: string;
  /** The sender's AML screening (modules/aml: the public `amlScreening`); absent = none ({}). */
  amlScreening?: Record<string, unknown>;
  /** Held by AML screening: not swept, auto-settled or settled until released. */
  amlHeld?: boolean;
}

/** Where a deposit's transfer was found (again). */
export interface DepositLocation {
  logIndex: number;
  block: BlockPointer;
}

/** A withdrawal (type WITHDRAW), or a sign-only one (type SIGNED, `signed` set). */
/**
 * What a transaction policy decision counted a payout as, kept on its row (policy_* columns,
 * migration 049) for the velocity windows to add up: the candidate as the rules saw it, which
 * is not always what the row shows (a contract write's transfer, a leg's USD value).
 */
export interface Counted {
  /** The window family: a PolicyType, BATCH_ITEM counted as WITHDRAW. */
  as: 'WITHDRAW' | 'SIGN_ONLY' | 'CONTRACT_WRITE' | 'SWAP' | 'SALVAGE' | 'AUTO_SETTLEMENT';
  assetId: string | null;
  /** Base units of `assetId`; null when the decision saw no amount. */
  amount: bigint | null;
  /** A decimal string, when a rate existed. */
  amountUsd: string | null;
  destination: string | null;
}

export interface NewWithdrawal {
  id: string;
  walletId: string;
  addressId: string | null;
  assetId: string;
  chainId: string;
  reference: string;
  type: 'WITHDRAW' | 'SIGNED';
  amount: bigint;
  amountUsd: string | null;
  /** The rate `amountUsd` was computed at (rate and rateUSD); none without it. */
  rateUsd?: string | null;
  currency: string;
  sender: string;
  recipient: string;
  token: string | null;
  note: string | null;
  metadata: Record<string, unknown> | null;
  network: string;
  reservedFee: bigint | null;
  nonce: bigint | null;
  /** Sign-only: the signed transaction, never broadcast by us, and the fee fields it shows (its family's). */
  signed: { raw: string; hash: string; fees: SignedFeeFields } | null;
  /** The recipient's AML screening (modules/aml: the public `amlScreening`); absent = none ({}). */
  amlScreening?: Record<string, unknown>;
  /** Held for approval by a policy: PENDING_APPROVAL, no nonce, nothing signed (approvalRequired). */
  awaitingApproval?: boolean;
  /** Held for approval: the fee fields to send it with once approved (the family's, as its quote fixed them: a client's gasLimit / gasPrice). */
  sendNetwork?: NetworkData;
  /**
   * Held for approval: the network fee quoted at acceptance, which it is signed within once
   * approved. Above reservedFee where the master pays the fee (a sponsored child's payout): the
   * difference is held back from the master's payouts while it waits (withdrawals/store.ts heldBack).
   */
  quotedFee?: bigint;
  /** Its candidate as its policy decision counted it (the USD value the rules saw, not one read again). */
  counted: Counted;
}

/** A settlement's SWAP or AUTO_SETTLEMENT transaction. */
export interface NewLeg {
  id: string;
  walletId: string;
  addressId: string | null;
  assetId: string;
  chainId: string;
  reference: string;
  type: 'SWAP' | 'AUTO_SETTLEMENT';
  amount: bigint;
  currency: string;
  toAmount: bigint | null;
  toCurrency: string | null;
  sender: string;
  recipient: string;
  token: string | null;
  network: string;
  reason: string | null;
  metadata: Record<string, unknown>;
  /** What the settlement's legs may cost the sender in the native coin (heldBack holds it while the leg is in flight). */
  reservedFee?: bigint;
  /** The leg's candidate as its policy decision counted it. */
  counted: Counted;
}

/** A signed version of a sent transaction: the hash to follow, and what the flow keeps of it. */
export interface Signed {
  hash: string;
  /** null on families without nonces ('expiry' ordering). */
  nonce: bigint | null;
  /** The signed bytes (withdrawals, settlement legs). */
  raw?: string;
  /** The fee fields it was signed with, as its family shows them (withdrawals). */
  fees?: SignedFeeFields;
  /**
   * The most this version can cost in fees (native base units): the reserved fee is raised to
   * it when higher (a replacement bids more than the acceptance reserved), so that what is
   * held for the transaction stays its worst case.
   */
  worstFee?: bigint;
}

/**
 * The receipt that settled a sent transaction, as the Transaction shows it: its block, and
 * the public fee fields its family mapped it to (ChainAdapter.fees.ofReceipt: gasUsed x
 * gasPrice is the fee).
 */
export interface Mined {
  hash: string;
  block: BlockPointer;
  gasUsed: bigint;
  gasPrice: bigint;
}

/** How a withdrawal ended (its own send, or its cancellation). */
export type WithdrawalOutcome = (SendEnd | { status: 'CANCELLED'; stage: 'cancelled' }) & {
  reason: string | null;
  /** The on-chain transaction that settled it (absent when nothing was mined). */
  mined: Mined | null;
};

/** How a settlement leg (or another send settled once: a swap, a salvage, a staking operation) ended. */
export type LegOutcome = SendEnd & {
  reason: string | null;
  toAmount?: bigint;
  /** Merged into the row's metadata (what the chain reported of the outcome). */
  metadata?: Record<string, unknown>;
  /** Depth of the receipt's block when the leg settles (default 1). */
  confirmations?: number;
  mined: Mined | null;
};

/** How a contract write ended, with the receipt's figures and the response shown to clients. */
export type ContractCallOutcome = SendEnd & {
  confirmed: boolean;
  hash: string | null;
  block: BlockPointer | null;
  gasUsed: bigint | null;
  gasPrice: bigint | null;
  fee: bigint | null;
  /** The fee fields it was signed with, as its family shows them. */
  fees: SignedFeeFields;
  response: unknown;
};

/** A deposit carried to the master by a sweep. */
export interface Swept {
  amount: string;
  gasFee: bigint;
  hash: string;
  from: string;
  to: string;
  response: unknown;
}
