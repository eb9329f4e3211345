/**
 * A recovery's steps (service.ts plans it): the SALVAGE Transaction and the salvage row are
 * written and the first step queued in the request's transaction; each later step is queued
 * in the outbound.settled subscriber of the one before it, under the salvage's row lock and
 * a stage check, so a replayed handler does nothing twice:
 *
 *   [topup: native coin the child lacks] -> [lend: resources from the master's stake]
 *     -> transfer -> [give_back: the loan taken back, whatever the transfer's outcome] -> done | failed
 *
 * as a sweep goes (sweeps/steps.ts), with the SALVAGE Transaction and its `salvage.success` /
 * `salvage.failed` as its outcome.
 */
import type { NetworkData } from '../../chains/types.js';
import { offers } from '../../chains/registry.js';
import type { DbConn } from '../../db/pool.js';
import type { Purpose } from '../../events.js';
import { uuidv7 } from '../../lib/ids.js';
import type { AmlScreening } from '../aml/service.js';
import type { ModuleDeps } from '../deps.js';
import type { OutboundRow } from '../outbound/service.js';
import type { Counted } from '../transactions/service.js';
import type { SalvagePlan } from './types.js';
import * as store from './store.js';

export const SALVAGE_PURPOSES = {
  topup: 'salvage-topup',
  lend: 'salvage-lend',
  transfer: 'salvage',
  give_back: 'salvage-give-back',
} as const satisfies Record<string, Purpose>;

export const SALVAGE_EVENTS = { ok: 'salvage.success', failed: 'salvage.failed' } as const;

export class SalvageSteps {
  constructor(private readonly deps: ModuleDeps) {}

  /** Writes the Transaction and the salvage, and queues the first step, in the caller's transaction; the id. */
  async start(
    tx: DbConn,
    p: SalvagePlan,
    /** amlScreening: the outside recipient's AML screening (null: the wallet's own), kept on the Transaction. */
    client: { reference: string; metadata: Record<string, unknown> | null; amlScreening: AmlScreening | null },
    counted: Counted,
    /** What the recovery's own steps from the master cost it beyond the top-up's value, and its top-up's and lend's parts (service.ts #masterFee). */
    masterFee: { total: bigint; topup: bigint; lend: bigint },
  ): Promise<string> {
    const id = uuidv7();
    const { chain, wallet, funding } = p;
    await this.deps.transactions.create(
      tx,
      {
        id,
        wallet_id: wallet.id,
        address_id: p.sender.addressId,
        chain_id: chain.id,
        asset_id: p.assetId,
        reference: client.reference,
        type: 'SALVAGE',
        status: 'PENDING',
        stage: 'created',
        confirmed: false,
        amount: p.amount.toString(),
        amount_paid: p.amount.toString(),
        // An unlisted token is shown in its own decimals (read on chain).
        amount_decimals: p.assetId === null ? p.decimals : null,
        currency: p.currency,
        sender_address: p.sender.address,
        recipient_address: p.recipient,
        token_address: p.token,
        network: chain.row.network,
        created_channel: 'API',
        aml_screening: client.amlScreening ?? {},
        // The transfer's whole fee whenever the sender pays it in its own coin, topped up or not:
        // service.ts #reserve checked only what the top-up leaves it to pay, but from now on the
        // sender owes all of it (its own coin now, the top-up once it lands), and its later spends
        // must take neither part (withdrawals/store.ts heldBack). Not under a fee payer (the master
        // pays) nor with resources lent (their transfer was planned on what the sender's spends leave it).
        reserved_fee: p.funding.kind !== 'lend' && !p.intent.feePayer ? p.quote.fee.toString() : null,
        metadata: {
          ...(client.metadata ?? {}),
          salvage: { crossNetwork: chain.id !== wallet.chain_id, funding: funding.kind, wholeBalance: p.wholeBalance },
        },
      },
      counted,
    );
    const topup = funding.kind === 'transfer' ? funding.amount : funding.kind === 'lend' ? funding.transfer : 0n;
    const lend = funding.kind === 'lend' ? funding : null;
    await store.insertSalvage(tx, {
      id,
      wallet_id: wallet.id,
      chain_id: chain.id,
      from_index: p.sender.index,
      sender: p.sender.address,
      recipient: p.recipient,
      token: p.token,
      amount: p.amount.toString(),
      network: p.chain.adapter.sender.fundedNetwork(p.quote),
      lend: lend?.lend ?? null,
      give_back: lend?.giveBack ?? null,
      whole_balance: p.wholeBalance,
      // Held at the master while the recovery is pending (withdrawals/store.ts heldBack).
      master_fee: masterFee.total > 0n ? masterFee.total.toString() : null,
      // Its top-up's and lend's parts: no longer held once that step is mined (heldBack).
      master_fee_topup: masterFee.total > 0n ? masterFee.topup.toString() : null,
      master_fee_lend: masterFee.total > 0n ? masterFee.lend.toString() : null,
      stage: topup > 0n ? 'topup' : lend ? 'lend' : 'transfer',
    });
    if (topup > 0n) await this.#enqueueMaster(tx, (await store.lockSalvage(tx, id))!, 'topup', { value: topup });
    else await this.#next(tx, (await store.lockSalvage(tx, id))!);
    return id;
  }

  /** outbound.signed of 'salvage': the Transaction holds the transfer's hash. */
  async signed(tx: DbConn, row: OutboundRow): Promise<void> {
    if (row.ownerId && row.hash) await this.deps.transactions.recordSigned(tx, row.ownerId, { hash: row.hash, nonce: row.nonce });
  }

  async topupSettled(tx: DbConn, row: OutboundRow): Promise<void> {
    const s = await this.#locked(tx, row, 'topup');
    if (!s) return;
    if (row.stage === 'mined') await this.#next(tx, s);
    else await this.#fail(tx, s, this.deps.outbound.failure(row, 'top-up of the sender'), null);
  }

  async lendSettled(tx: DbConn, row: OutboundRow): Promise<void> {
    const s = await this.#locked(tx, row, 'lend');
    if (!s) return;
    if (row.stage === 'mined') await this.#enqueueTransfer(tx, s);
    else await this.#fail(tx, s, this.deps.outbound.failure(row, 'loan of resources to the sender'), null);
  }

  /** The transfer settled: with resources lent, they are taken back first (whatever the outcome); then the end. */
  async transferSettled(tx: DbConn, row: OutboundRow): Promise<void> {
    const s = await this.#locked(tx, row, 'transfer');
    if (!s) return;
    if (s.give_back && s.lend_outbound_id && !s.give_back_outbound_id) {
      await this.#enqueueMaster(tx, s, 'give_back', { network: s.give_back });
      return;
    }
    await this.#end(tx, s, row);
  }

  async giveBackSettled(tx: DbConn, row: OutboundRow): Promise<void> {
    const s = await this.#locked(tx, row, 'give_back');
    if (!s) return;
    if (row.stage !== 'mined') {
      this.deps.logger.error(
        { salvageId: s.id, outboundId: row.id, stage: row.stage, err: row.error },
        'lent resources were not taken back',
      );
    }
    await this.#end(tx, s, (await this.deps.outbound.get(s.transfer_outbound_id!, tx))!);
  }

  /**
   * The salvage of `row`, locked, when it is pending at `stage` (else a replay: nothing to do),
   * with `row` recorded as the step's: the version that settled (a speed-up's replacement or the
   * original mined after all, a rebuild after expiry), not the first one queued (setOutbound),
   * which a replacement leaves 'replaced' with no receipt. The give-back's end reads it.
   */
  async #locked(tx: DbConn, row: OutboundRow, stage: store.SalvageStep): Promise<store.SalvageRow | undefined> {
    const s = row.ownerId ? await store.lockSalvage(tx, row.ownerId) : undefined;
    if (!s || s.status !== 'pending' || s.stage !== stage) return undefined;
    const key = `${stage}_outbound_id` as const;
    if (s[key] === row.id) return s;
    await store.setSettled(tx, s.id, stage, row.id);
    return { ...s, [key]: row.id };
  }

  async #next(tx: DbConn, s: store.SalvageRow): Promise<void> {
    if (s.lend && !s.lend_outbound_id) await this.#enqueueMaster(tx, s, 'lend', { network: s.lend });
    else await this.#enqueueTransfer(tx, s);
  }

  /** The master's top-up of the sender (native coin), or its lend or give-back (value 0, the family's network data). */
  async #enqueueMaster(
    tx: DbConn,
    s: store.SalvageRow,
    step: 'topup' | 'lend' | 'give_back',
    what: { value: bigint } | { network: NetworkData },
  ): Promise<void> {
    const sent = await this.deps.outbound.enqueue(tx, {
      chainId: s.chain_id,
      walletId: s.wallet_id,
      fromIndex: 0,
      // A top-up pays native coin; a lend or give-back moves nothing, what it does is in the family's network data.
      ...('value' in what
        ? { intent: { kind: 'native', to: s.sender, amount: what.value } }
        : { intent: { kind: 'native', to: s.sender, amount: 0n }, network: what.network }),
      purpose: SALVAGE_PURPOSES[step],
      ownerId: s.id,
      crossChain: true,
    });
    await store.setOutbound(tx, s.id, step, sent.id);
  }

  async #enqueueTransfer(tx: DbConn, s: store.SalvageRow): Promise<void> {
    const chain = this.deps.catalogue.chain(s.chain_id);
    const wallet = await this.deps.wallets.requireRow(s.wallet_id, tx);
    const amount = BigInt(s.amount);
    const sent = await this.deps.outbound.enqueue(tx, {
      chainId: chain.id,
      walletId: s.wallet_id,
      wallet,
      fromIndex: s.from_index,
      fromAddress: s.sender,
      intent: s.token === null ? { kind: 'native', to: s.recipient, amount } : { kind: 'token', token: s.token, to: s.recipient, amount },
      // Exactly what the funding paid for (Sender.fundedNetwork), opaque here.
      network: s.network,
      // The master pays a child's fee and signs as fee payer where the family allows it (Solana).
      ...(offers(chain.adapter, 'feeSponsorship') && s.from_index !== 0 ? { feePayer: wallet.address } : {}),
      purpose: SALVAGE_PURPOSES.transfer,
      ownerId: s.id,
      crossChain: true,
    });
    await store.setOutbound(tx, s.id, 'transfer', sent.id);
  }

  /** The transfer (and its loan, if any) settled: the SALVAGE Transaction ends with it. */
  async #end(tx: DbConn, s: store.SalvageRow, transfer: OutboundRow): Promise<void> {
    const mined = this.deps.outbound.mined(transfer);
    if (transfer.stage !== 'mined' || !mined) {
      await this.#fail(tx, s, this.deps.outbound.failure(transfer, 'recovery transfer'), mined, transfer.stage);
      return;
    }
    await store.finishSalvage(tx, s.id, true, null);
    const moved = await this.deps.transactions.settleLeg(tx, s.id, { status: 'SUCCESS', stage: 'mined', reason: null, mined });
    if (moved) await this.deps.webhooks.emitForTransaction(tx, s.id, SALVAGE_EVENTS.ok);
  }

  async #fail(
    tx: DbConn,
    s: store.SalvageRow,
    reason: string,
    mined: ReturnType<ModuleDeps['outbound']['mined']>,
    stage = 'replaced',
  ): Promise<void> {
    this.deps.logger.warn({ salvageId: s.id, reason }, 'salvage failed');
    await store.finishSalvage(tx, s.id, false, reason);
    const ended = stage === 'failed' || stage === 'dropped' || stage === 'replaced' ? stage : 'not-sent';
    const moved = await this.deps.transactions.settleLeg(tx, s.id, {
      status: 'FAILED',
      stage: mined ? 'failed' : ended === 'failed' ? 'not-sent' : ended,
      reason: `${reason}; nothing was moved`,
      mined,
    });
    if (moved) await this.deps.webhooks.emitForTransaction(tx, s.id, SALVAGE_EVENTS.failed);
  }
}
