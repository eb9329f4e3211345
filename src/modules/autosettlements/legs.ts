/**
 * A settlement's public face: its SWAP and AUTO_SETTLEMENT transactions (rows in the
 * transaction history) and their events, each written in the database transaction of the
 * state change that causes it (outbox).
 */
import type { DbConn } from '../../db/pool.js';
import type { OutboundRow } from '../outbound/service.js';
import type { FailedStage, Mined, TransactionWrites } from '../transactions/service.js';
import type { WebhookService } from '../webhooks/service.js';
import * as store from './store.js';

export const SWAP_EVENTS = { ok: 'swap.success', failed: 'swap.failed' } as const;
export const SETTLE_EVENTS = { ok: 'auto-settlement.success', failed: 'auto-settlement.failed' } as const;

export function failureOf(row: OutboundRow, what: string): string {
  if (row.stage === 'failed') return `the ${what} reverted on chain (the network fee was paid)`;
  if (row.stage === 'dropped') return `the ${what} was never mined: ${row.error ?? 'its nonce was used by another transaction'}`;
  if (row.stage === 'replaced') return `the ${what} was not sent: ${row.error ?? 'it would revert'}`;
  return `the ${what} did not complete: ${row.error ?? row.stage}`;
}

export class Legs {
  constructor(
    private readonly webhooks: WebhookService,
    private readonly transactions: TransactionWrites,
  ) {}

  async succeed(
    tx: DbConn,
    legId: string | null,
    type: 'SWAP' | 'AUTO_SETTLEMENT',
    mined: Mined | null,
    toAmount?: bigint,
    confirmations?: number,
  ): Promise<void> {
    if (!legId) return;
    const moved = await this.transactions.settleLeg(tx, legId, {
      status: 'SUCCESS',
      stage: 'mined',
      reason: null,
      mined,
      ...(toAmount !== undefined ? { toAmount } : {}),
      ...(confirmations !== undefined ? { confirmations } : {}),
    });
    if (moved) await this.webhooks.emitForTransaction(tx, legId, type === 'SWAP' ? SWAP_EVENTS.ok : SETTLE_EVENTS.ok);
  }

  async fail(
    tx: DbConn,
    legId: string | null,
    type: 'SWAP' | 'AUTO_SETTLEMENT',
    reason: string,
    mined: Mined | null = null,
    stage: FailedStage = 'failed',
    confirmations?: number,
  ): Promise<void> {
    if (!legId) return;
    const moved = await this.transactions.settleLeg(tx, legId, {
      status: 'FAILED',
      stage,
      reason,
      mined,
      ...(confirmations !== undefined ? { confirmations } : {}),
    });
    if (moved) await this.webhooks.emitForTransaction(tx, legId, type === 'SWAP' ? SWAP_EVENTS.failed : SETTLE_EVENTS.failed);
  }

  /** The settlement ends unsuccessfully: every leg still pending fails with the reason. */
  async failAll(tx: DbConn, s: store.SettlementRow, reason: string): Promise<void> {
    await store.updateSettlement(tx, s.id, { status: 'failed', stage: 'failed', error: reason });
    await this.fail(tx, s.swap_transaction_id, 'SWAP', reason, null, 'not-sent');
    await this.fail(tx, s.settle_transaction_id, 'AUTO_SETTLEMENT', reason, null, 'not-sent');
  }
}
