/**
 * The outbound pipeline's row and what a confirmation check found: the vocabulary the
 * pipeline (modules/outbound), the event registry (events.ts: the payloads of the
 * `outbound.*` events) and each purpose's subscribers share. It lives here, below all three,
 * so that events.ts imports no module (the outbound module emits through events.ts).
 */
import type { IntentBody, NetworkData, Receipt } from './chains/types.js';

export type Stage = 'created' | 'signed' | 'broadcast' | 'mined' | 'failed' | 'dropped' | 'replaced';

/** One outbound transaction, amounts as bigint. */
export interface OutboundRow {
  id: string;
  chainId: string;
  walletId: string;
  fromAddress: string;
  /** null: an address whose key the wallet imported (signed with that key, by address). */
  fromIndex: number | null;
  /** The ordering slot on 'nonce' families; null on 'expiry' families (the deadline is in `network`). */
  nonce: bigint | null;
  /** What it sends (chains/intents.ts): a native or token payment, or a contract call. */
  intent: IntentBody;
  /** The family's own fields (EVM: gas limit and fee caps): what the caller fixed, completed when signed. */
  network: NetworkData;
  /** Who pays the fee and signs as fee payer, when not the sender (Solana: the wallet's master); null: the sender. */
  feePayer: string | null;
  /** The most its fee may be when signed: what its payout reserved (EnqueueRequest.feeCeiling); null: no bound. */
  feeCeiling: bigint | null;
  raw: string | null;
  hash: string | null;
  stage: Stage;
  purpose: string;
  ownerId: string | null;
  replacedBy: string | null;
  /** The receipt it settled with (the seam's neutral one; its failure is in `error`). */
  receipt: Receipt | null;
  error: string | null;
  attempts: number;
  conflictSeenAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  broadcastAt: Date | null;
}

export type Confirmation =
  /** Still in its block, `depth` blocks deep; `final` once that is the chain's confirmations. */
  | { kind: 'depth'; depth: number; final: boolean }
  /** Re-mined in another block with the same outcome: `row` carries the new receipt. */
  | { kind: 'moved'; depth: number; final: boolean }
  /** Its block was replaced and it is not (or not with the same outcome) in the chain: `row` is at 'broadcast' again. */
  | { kind: 'reorged'; reason: string };
