/**
 * A sweep's steps after it starts (service.ts, SweepService.sweepAddress, decides what a sweep
 * needs and queues its first transaction): the master's lend and give-back, the child's
 * transfer, each queued in the outbound.settled subscriber of the step before it, and the
 * outcome written onto the deposits (deposit.swept.success or .failed, sweep.completed). Kept
 * apart so service.ts reads as "when and what to sweep" and this file as "how a sweep goes on".
 */
import type { NetworkData } from '../../chains/types.js';
import type { DbConn } from '../../db/pool.js';
import type { Events, Purpose } from '../../events.js';
import type { Logger } from '../../lib/logger.js';
import type { AddressService } from '../addresses/service.js';
import type { CatalogueService } from '../catalogue/service.js';
import type { OutboundRow, OutboundService } from '../outbound/service.js';
import type { TransactionService } from '../transactions/service.js';
import type { WalletService } from '../wallets/service.js';
import type { WebhookService } from '../webhooks/service.js';
import * as store from './store.js';
import { offers } from '../../chains/registry.js';

export class SweepSteps {
  constructor(
    private readonly catalogue: CatalogueService,
    private readonly wallets: WalletService,
    private readonly addresses: AddressService,
    private readonly outbound: OutboundService,
    private readonly transactions: TransactionService,
    private readonly webhooks: WebhookService,
    /** sweep.completed is emitted here: treasury features act once funds reach the master (src/subscriptions.ts). */
    private readonly events: Events,
    private readonly logger: Logger,
  ) {}

  private async enqueueTransfer(tx: DbConn, sweep: store.SweepRow): Promise<void> {
    const address = (await this.addresses.findRow(sweep.address_id, tx))!;
    const wallet = await this.wallets.requireRow(sweep.wallet_id, tx);
    const asset = this.catalogue.asset(sweep.asset_id)!;
    const chain = this.catalogue.chain(sweep.chain_id);
    const amount = BigInt(sweep.amount);
    const sent = await this.outbound.enqueue(tx, {
      chainId: chain.id,
      walletId: wallet.id,
      fromIndex: address.derivation_index,
      fromAddress: address.address,
      intent: asset.row.is_native
        ? { kind: 'native', to: wallet.address, amount }
        : { kind: 'token', token: asset.row.address, to: wallet.address, amount },
      // Exactly what the top-up paid for (or the lent resources cover): the child holds no more than that.
      network: sweep.network ?? {},
      // The master pays the fee and signs as fee payer where the family allows it (Solana).
      ...(offers(chain.adapter, 'feeSponsorship') ? { feePayer: wallet.address } : {}),
      purpose: 'sweep' satisfies Purpose,
      ownerId: sweep.id,
    });
    await store.setOutbound(tx, sweep.id, 'transfer', sent.id);
  }

  /** After the top-up (or at once): the resources lent, when the family lends them, else the transfer. */
  async next(tx: DbConn, sweep: store.SweepRow): Promise<void> {
    if (sweep.lend && !sweep.lend_outbound_id) await this.enqueueMasterStep(tx, sweep, 'lend', sweep.lend);
    else await this.enqueueTransfer(tx, sweep);
  }

  /** The master's lend or give-back transaction to the child: value 0, the family's network data. */
  private async enqueueMasterStep(tx: DbConn, sweep: store.SweepRow, step: 'lend' | 'give_back', network: NetworkData): Promise<void> {
    const address = (await this.addresses.findRow(sweep.address_id, tx))!;
    const sent = await this.outbound.enqueue(tx, {
      chainId: sweep.chain_id,
      walletId: sweep.wallet_id,
      fromIndex: 0,
      // Moves nothing: what it does is in the family's network data (lend resources, or take them back).
      intent: { kind: 'native', to: address.address, amount: 0n },
      network,
      purpose: (step === 'lend' ? 'sweep-lend' : 'sweep-give-back') satisfies Purpose,
      ownerId: sweep.id,
    });
    await store.setOutbound(tx, sweep.id, step, sent.id);
  }

  /**
   * The pending sweep a step's row settled for, locked, that row recorded as the step's: the
   * version that settled (a speed-up's replacement, or the original mined after all; a rebuild
   * after expiry), not the first one queued (setOutbound), which a replacement leaves 'replaced'
   * with no receipt. The give-back's outcome, markSwept and a later carrier sweep read these.
   */
  private async settled(
    tx: DbConn,
    row: OutboundRow,
    field: 'topup' | 'lend' | 'transfer' | 'give_back',
  ): Promise<store.SweepRow | undefined> {
    const sweep = row.ownerId ? await store.lockSweep(tx, row.ownerId) : undefined;
    if (!sweep || sweep.status !== 'pending') return undefined;
    const key = `${field}_outbound_id` as const;
    if (sweep[key] === row.id) return sweep;
    await store.setSettled(tx, sweep.id, field, row.id);
    return { ...sweep, [key]: row.id };
  }

  /** outbound.settled of 'sweep-topup' (src/subscriptions.ts): the lend or the transfer follows, or the sweep fails. */
  async topupSettled(tx: DbConn, row: OutboundRow): Promise<void> {
    const sweep = await this.settled(tx, row, 'topup');
    // Settled again after a reorganisation (src/subscriptions.ts, resentOnly): the step after it is queued already.
    if (!sweep || sweep.lend_outbound_id || sweep.transfer_outbound_id) return;
    if (row.stage === 'mined') await this.next(tx, sweep);
    else await this.fail(tx, sweep, `gas top-up ${row.stage}${row.error ? `: ${row.error}` : ''}`);
  }

  /**
   * outbound.settled of 'sweep-lend': the transfer follows, or the sweep fails (nothing was
   * lent: a lend voided before signing, e.g. the stake no longer covers it, never reached the chain).
   */
  async lendSettled(tx: DbConn, row: OutboundRow): Promise<void> {
    const sweep = await this.settled(tx, row, 'lend');
    // Settled again after a reorganisation: the transfer is queued already.
    if (!sweep || sweep.transfer_outbound_id) return;
    if (row.stage === 'mined') await this.enqueueTransfer(tx, sweep);
    else await this.fail(tx, sweep, `lending resources ${row.stage}${row.error ? `: ${row.error}` : ''}`);
  }

  /**
   * outbound.settled of 'sweep': with resources lent, they are taken back first, whatever the
   * outcome (queued in this transaction, so exactly once even if the worker dies now);
   * otherwise the deposits are swept (sweep.completed), or the sweep fails.
   */
  async transferSettled(tx: DbConn, row: OutboundRow): Promise<void> {
    const sweep = await this.settled(tx, row, 'transfer');
    if (!sweep) return this.undone(tx, row);
    // Settled again after a reorganisation while its give-back is in flight: the give-back ends the sweep.
    if (sweep.give_back_outbound_id) return;
    if (sweep.give_back && sweep.lend_outbound_id) {
      await this.enqueueMasterStep(tx, sweep, 'give_back', sweep.give_back);
      return;
    }
    await this.complete(tx, sweep, row);
  }

  /**
   * A completed sweep's transfer settled again after a reorganisation took its block away (the
   * same bytes sent again: src/subscriptions.ts, resentOnly), and this time it moved nothing: it
   * reverted, e.g. the whole balance it moved counted a deposit not yet confirmed that the
   * reorganisation dropped. The deposits it carried are still at the address: their sweep ends
   * failed (deposit.swept.failed, their swept fields cleared) and a new sweep moves them, instead
   * of their staying marked swept by a transfer that never landed, never swept again.
   */
  private async undone(tx: DbConn, row: OutboundRow): Promise<void> {
    if (row.stage === 'mined' || !row.ownerId) return;
    const sweep = await store.lockSweep(tx, row.ownerId);
    // Only the version that settled for it (a replaced version settling later says nothing).
    if (sweep?.status !== 'success' || sweep.transfer_outbound_id !== row.id) return;
    this.logger.error(
      { sweepId: sweep.id, outboundId: row.id, stage: row.stage, err: row.error },
      'a completed sweep was undone by a reorganisation',
    );
    await this.fail(tx, sweep, `sweep transaction ${row.stage} when sent again after a reorganisation${row.error ? `: ${row.error}` : ''}`);
    await store.enqueueSweepJob(tx, sweep.address_id, sweep.asset_id);
  }

  /** outbound.settled of 'sweep-give-back': the loan is back (or could not be taken back: logged); the sweep ends as its transfer did. */
  async giveBackSettled(tx: DbConn, row: OutboundRow): Promise<void> {
    const sweep = await this.settled(tx, row, 'give_back');
    if (!sweep) return;
    if (row.stage !== 'mined')
      this.logger.error({ sweepId: sweep.id, outboundId: row.id, stage: row.stage, err: row.error }, 'lent resources were not taken back');
    await this.complete(tx, sweep, (await this.outbound.get(sweep.transfer_outbound_id!, tx))!);
  }

  /** The sweep's transfer settled (and its loan, if any, is back): the deposits are swept (sweep.completed), or the sweep fails. */
  private async complete(tx: DbConn, sweep: store.SweepRow, row: OutboundRow): Promise<void> {
    if (row.stage !== 'mined' || !row.receipt) {
      await this.fail(tx, sweep, `sweep transaction ${row.stage}${row.error ? `: ${row.error}` : ''}`);
      return;
    }
    await store.finishSweep(tx, sweep.id, true, null);
    const swept = await store.depositsOfSweep(tx, sweep.id);
    await this.markSwept(tx, sweep, row, swept);
    await this.events.emit('sweep.completed', tx, { sweepId: sweep.id, depositIds: swept.map((d) => d.id) });
    await this.sweepWaiting(tx, sweep);
  }

  /**
   * Deposits confirmed while `sweep` was in flight (their own sweep job found it and left them
   * to the next one) are judged for a sweep of their own now that it has ended, as when they
   * were confirmed (sweep_deposits: the wallet's auto-sweep, its threshold, the address's
   * opt-out): a deposit below the threshold, or on a wallet that does not sweep, waits as it
   * would have. Only those never tried: the deposits of a sweep that failed, reported so, are
   * not retried on their own (a sweep that fails every time would top the address up forever).
   */
  private async sweepWaiting(tx: DbConn, sweep: store.SweepRow): Promise<void> {
    const waiting = (await store.unsweptDeposits(tx, sweep.address_id, sweep.asset_id)).filter((d) => d.sweep_id === null);
    if (waiting.length)
      await store.enqueueSweepDeposits(
        tx,
        waiting.map((d) => d.id),
      );
  }

  /** Marks deposits moved to the master by `sweep` (its transfer `row`, mined) as swept, with their events. */
  async markSwept(tx: DbConn, sweep: store.SweepRow, row: OutboundRow, deposits: { id: string; amount: string }[]): Promise<void> {
    const wallet = await this.wallets.requireRow(sweep.wallet_id, tx);
    const of = async (id: string | null) => (id ? await this.outbound.get(id, tx) : undefined);
    const topup = await of(sweep.topup_outbound_id);
    const lend = await of(sweep.lend_outbound_id);
    const giveBack = await of(sweep.give_back_outbound_id);
    // What each transaction cost its payer (Solana: rent locked in an account it opened, the
    // master's token account, included); rent given back by a closed account is shown apart.
    const fee = (r: OutboundRow | undefined) => r?.receipt?.fee ?? 0n;
    const steps = [topup, lend, row, giveBack];
    const shown = this.outbound.mined(row)!;
    for (const d of deposits) {
      await this.transactions.markSwept(tx, d.id, {
        amount: d.amount,
        // Every transaction of the sweep: top-up (activation), lend, transfer, give-back.
        gasFee: steps.reduce((sum, r) => sum + fee(r), 0n),
        hash: row.hash!,
        from: row.fromAddress,
        to: wallet.address,
        response: {
          status: row.receipt!.status,
          blockNumber: Number(shown.block.number),
          gasUsed: shown.gasUsed.toString(),
          sweptTotal: sweep.amount,
          topupHash: topup?.hash ?? null,
          // What the family shows besides the fee (ChainAdapter.fees.usage: resources used, rent paid and got back).
          ...this.outbound.usage(sweep.chain_id, steps),
          ...(lend ? { lendHash: lend.hash, giveBackHash: giveBack?.hash ?? null } : {}),
        },
      });
      await this.webhooks.emitForTransaction(tx, d.id, 'deposit.swept.success');
    }
  }

  private async fail(tx: DbConn, sweep: store.SweepRow, reason: string): Promise<void> {
    this.logger.warn({ sweepId: sweep.id, reason }, 'sweep failed');
    await store.finishSweep(tx, sweep.id, false, reason);
    await this.reportFailure(tx, sweep.id, reason);
    // Else neither swept nor reported: they waited for this sweep to end.
    await this.sweepWaiting(tx, sweep);
  }

  async reportFailure(tx: DbConn, sweepId: string, reason: string): Promise<void> {
    for (const d of await store.depositsOfSweep(tx, sweepId)) {
      await this.transactions.recordSweepFailure(tx, d.id, { error: reason });
      await this.webhooks.emitForTransaction(tx, d.id, 'deposit.swept.failed');
    }
  }
}
