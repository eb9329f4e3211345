/**
 * Runs settlements (docs/settlement.md). A settlement is created with its job by the job
 * that the confirmation (or sweep) of its deposit queued (src/subscriptions.ts); from there:
 *
 *   job auto_settle, stage queued: quote the swap (if any), plan gas, create the SWAP and
 *     AUTO_SETTLEMENT transactions, and either send the child address a gas top-up
 *     (stage topup) or enqueue the sends at once;
 *   top-up mined: enqueue the sends: [approve(0)] [approve] + swap (stage sending), or the
 *     transfer (stage transfer);
 *   swap mined and its block the chain's `confirmations` deep: stage swapped, job again:
 *     read what the swap delivered, swap.success, then the transfer of that output (stage
 *     transfer);
 *   transfer mined and confirmed as deep: auto-settlement.success (stage done).
 *
 * Every leg is followed to its confirmations by the pipeline (outbound.confirmed): a receipt
 * reorged away puts the row back to 'broadcast', the same signed bytes are sent again, and
 * the leg is settled by whichever receipt becomes final. Nothing is decided on a receipt
 * that a reorganisation can still take away: a swap's output is transferred only once the
 * swap is final (else a swap re-mined reverted would leave the transfer paying its output
 * out of the sender's other funds), and a transfer is reported only once final.
 *
 * One sender at a time: planning reads the sender's allowance and native balance, before
 * any transaction opens (a node's answer must not hold a connection or a lock); the plan is
 * recorded under the sender's advisory lock, and the job re-queued instead while another
 * settlement of the same sender is in flight (store.senderBusy), or when one moved since the
 * reads began (store.movedSince: the reads may be stale; planned again).
 *
 * Every send goes through the outbound pipeline (nonces, stored raw transactions, fee
 * bumps, receipts); every step runs in the transaction that records the previous step's
 * receipt, under the settlement's row lock and a stage check, so a replayed handler or a
 * re-run job does nothing twice. A failure on the way fails the pending legs with
 * swap.failed / auto-settlement.failed; what was not moved stays where it was.
 */
import type { DbConn } from '../../db/pool.js';
import type { ModuleDeps } from '../deps.js';
import { minedOfRecord, minedRecord, type Confirmation, type OutboundRow } from '../outbound/service.js';
import type { SwapService } from '../swaps/service.js';
import type { WalletRow } from '../wallets/service.js';
import type { WithdrawalService } from '../withdrawals/service.js';
import { failureOf, Legs } from './legs.js';
import { planSettlement, refusedPlan, screenDestination, type Planned, type StoredPlan } from './planner.js';
import type { StoredRule } from './rules.js';
import { PURPOSE, recordPlanned, type TakeNow } from './record.js';
import * as store from './store.js';
import { offers } from '../../chains/registry.js';
import type { SwapCall } from '../../chains/types.js';
import type { Purpose } from '../../events.js';

/** How soon a settlement waiting for another of its sender looks again. */
const SENDER_WAIT_MS = 2_000;
/**
 * Before planning again a settlement whose reads another settlement of its sender made stale:
 * a moment, so a burst of such moves (each settlement updates its row a few times on its way)
 * is over rather than met again by every new plan.
 */
const REPLAN_DELAY_MS = 500;

export class AutoSettlementExecutor {
  readonly #legs: Legs;

  constructor(
    private readonly deps: ModuleDeps,
    private readonly swaps: SwapService,
    private readonly withdrawals: WithdrawalService,
    /** The rule that takes a deposit now (AutoSettlementService), asked when a plan is recorded. */
    private readonly takeNow: TakeNow,
  ) {
    this.#legs = new Legs(deps.webhooks, deps.transactions);
  }

  // ---- outbound events of the four legs (subscribed in src/subscriptions.ts) ----------
  // Every leg is followed to its depth, so that a reorged top-up or approval is sent again
  // (a later nonce of the same sender cannot be mined without it); nothing waits on their depth.

  /** outbound.settled of an approval: nothing to do, a failed approval makes the swap behind it fail. */
  async approveSettled(_tx: DbConn, row: OutboundRow): Promise<void> {
    if (row.stage !== 'mined') this.deps.logger.warn({ settlementId: row.ownerId, stage: row.stage }, 'auto-settlement approval not mined');
  }

  /** outbound.confirmed of a top-up or an approval: only logged. */
  async legConfirmed(_tx: DbConn, row: OutboundRow, change: Confirmation): Promise<void> {
    this.#logReorg(row, change);
  }

  /** Job `auto_settle`: advances a settlement waiting for work outside the pipeline. */
  async run(id: string): Promise<void> {
    const s = await store.findSettlement(this.deps.db, id);
    if (!s || s.status !== 'pending') return;
    if (s.stage === 'queued') await this.#start(s);
    else if (s.stage === 'swapped') await this.#afterSwap(s);
  }

  /** Re-queues settlements whose job was lost (run periodically; job keys make it harmless). */
  async resumeStalled(olderThanMs = 60_000, limit = 200): Promise<number> {
    const ids = await store.stalled(this.deps.db, olderThanMs, limit);
    for (const id of ids) await store.enqueueJob(this.deps.db, id);
    return ids.length;
  }

  async #start(s: store.SettlementRow): Promise<void> {
    const { db, wallets } = this.deps;
    const wallet = await wallets.requireRow(s.wallet_id);
    // Derived from the account xpub, or the stored address on a seed family (Solana).
    const sender = await wallets.addressOf(wallet, s.from_index);
    const fromChild = s.from_index !== 0;
    const swapping = s.asset_in_id !== s.asset_out_id;

    // A sender busy with another settlement: wait for it before screening (asked again under
    // the lock below), or each wait of SENDER_WAIT_MS would screen, and audit a refusal, again.
    const asSwapSender = { chainId: s.chain_id, walletId: s.wallet_id, fromIndex: s.from_index, assetInId: s.asset_in_id };
    if ((fromChild || swapping) && ((await store.senderBusy(db, s)) || (await this.swaps.seenBySettlement(db, asSwapSender)).pending)) {
      await store.enqueueJob(db, s.id, SENDER_WAIT_MS);
      return;
    }
    const blocked = await screenDestination(this.deps, s, wallet);
    // Its legs' USD values, read outside any transaction: the policies decide each leg on the
    // cached quote (policy.ts), and none cached would mean no USD amount, so no USD rule or
    // window would see it (a swap's output asset is seldom one the indexer just priced).
    await this.deps.rates?.prefetch([s.asset_in_id, s.asset_out_id]);
    // A plain move from the master reads nothing of the sender's: its chain reads need no lock.
    if (!fromChild && !swapping) {
      const planned = blocked ? refusedPlan(blocked) : await planSettlement(this.deps, this.swaps, this.withdrawals, s, sender, db);
      await db.transaction().execute((tx) => this.#record(tx, s, wallet, sender, planned));
      return;
    }
    // The sender's allowance, balance and fees, read before the transaction (the node's
    // answers hold no connection or lock); under the sender's locks, a settlement or an API
    // swap of the same sender in flight is waited for, and one that moved since the reads
    // began may have changed them: plan again. The swap lock is the one API swaps take to
    // look at the sender's settlements (swaps/flow.ts start): one order, settlement then swap.
    const since = await store.databaseTime(db);
    const planned = blocked ? refusedPlan(blocked) : await planSettlement(this.deps, this.swaps, this.withdrawals, s, sender, db);
    await db.transaction().execute(async (tx) => {
      await store.lockSender(tx, s.chain_id, sender);
      await this.swaps.lockSender(tx, s.chain_id, sender);
      const locked = await store.lockSettlement(tx, s.id);
      if (!locked || locked.status !== 'pending' || locked.stage !== 'queued') return;
      const apiSwaps = await this.swaps.seenBySettlement(tx, asSwapSender, since);
      if ((await store.senderBusy(tx, locked)) || apiSwaps.pending) {
        await store.enqueueJob(tx, s.id, SENDER_WAIT_MS);
        return;
      }
      if (!blocked && ((await store.movedSince(tx, locked, since)) || apiSwaps.moved)) {
        await store.enqueueJob(tx, s.id, REPLAN_DELAY_MS);
        return;
      }
      await this.#record(tx, locked, wallet, sender, planned);
    });
  }

  /** Writes the planned legs and starts the first send, in the caller's transaction (record.ts). */
  #record(tx: DbConn, s: store.SettlementRow, wallet: WalletRow, sender: string, planned: Planned): Promise<void> {
    return recordPlanned(
      {
        deps: this.deps,
        withdrawals: this.withdrawals,
        legs: this.#legs,
        send: (tx, s) => this.#send(tx, s),
        takeNow: this.takeNow,
      },
      tx,
      s,
      wallet,
      sender,
      planned,
    );
  }

  /** Enqueues [approve +] swap, or the transfer, from the settlement's sender. */
  async #send(tx: DbConn, s: store.SettlementRow): Promise<void> {
    const plan = s.swap as unknown as StoredPlan | null;
    const swapping = s.asset_in_id !== s.asset_out_id;
    if (!swapping) {
      await this.#enqueueTransfer(tx, s, BigInt(s.amount_in));
      return;
    }
    const provider = this.swaps.provider(s.chain_id)!;
    const assetIn = this.deps.catalogue.asset(s.asset_in_id)!.row;
    const amountIn = BigInt(s.amount_in);
    const sender = await this.#sender(tx, s);
    // Decided at planning, under the sender's lock (planner.ts); same nonce order as listed.
    const approvals = plan!.approve ? (plan!.resetApproval ? [0n, amountIn] : [amountIn]) : [];
    // Each call signed with its network data (the swap's fixed: estimating it before the approval is mined would revert).
    const send = ({ network, ...intent }: SwapCall, purpose: Purpose) =>
      this.deps.outbound.enqueue(tx, { ...this.#from(s), intent, network, purpose, ownerId: s.id });
    for (const amount of approvals) await send(provider.approveCall(assetIn.address, amount), PURPOSE.approve);
    await send(
      provider.swapCall({
        path: plan!.path,
        amountIn,
        amountOutMin: BigInt(plan!.amountOutMin),
        recipient: sender,
        deadline: BigInt(plan!.deadline),
      }),
      PURPOSE.swap,
    );
    await store.updateSettlement(tx, s.id, { stage: 'sending' });
  }

  async #enqueueTransfer(tx: DbConn, s: store.SettlementRow, amount: bigint): Promise<void> {
    const asset = this.deps.catalogue.asset(s.asset_out_id)!.row;
    const adapter = this.deps.catalogue.chain(s.chain_id).adapter;
    const to = s.rule.destination.address;
    const fromChild = s.from_index !== 0;
    await this.deps.outbound.enqueue(tx, {
      ...this.#from(s),
      intent: asset.is_native ? { kind: 'native', to, amount } : { kind: 'token', token: asset.address, to, amount },
      // A child signs with the gas limit its top-up paid for.
      ...(fromChild && s.transfer_gas_limit !== null && BigInt(s.transfer_gas_limit) > 0n
        ? { gasLimit: BigInt(s.transfer_gas_limit) }
        : {}),
      // The master pays a child's fee and signs as fee payer where the family allows it (Solana).
      ...(fromChild && offers(adapter, 'feeSponsorship')
        ? { feePayer: (await this.deps.wallets.requireRow(s.wallet_id, tx)).address }
        : {}),
      purpose: PURPOSE.transfer,
      ownerId: s.id,
    });
    await store.updateSettlement(tx, s.id, { stage: 'transfer' });
  }

  /** Sender, and for a child what its top-up paid for (each leg sets its own limit over it). */
  #from(s: store.SettlementRow) {
    const funded = s.from_index !== 0 && s.network ? { network: s.network } : {};
    return { chainId: s.chain_id, walletId: s.wallet_id, fromIndex: s.from_index, ...funded };
  }

  async #sender(tx: DbConn, s: store.SettlementRow): Promise<string> {
    const wallet = await this.deps.wallets.requireRow(s.wallet_id, tx);
    return this.deps.wallets.addressOf(wallet, s.from_index, tx);
  }

  /** outbound.settled of a top-up. */
  async topupSettled(tx: DbConn, row: OutboundRow): Promise<void> {
    const s = row.ownerId ? await store.lockSettlement(tx, row.ownerId) : undefined;
    if (!s || s.status !== 'pending' || s.stage !== 'topup') return;
    if (row.stage === 'mined') await this.#send(tx, s);
    else await this.#legs.failAll(tx, s, failureOf(row, 'gas top-up'));
  }

  /**
   * The swap settled. With a receipt (mined or reverted) nothing is decided until the
   * receipt is final (swapConfirmed): a reorg may still take it away. Without one (dropped,
   * voided) it can never be mined: the settlement fails now.
   */
  async swapSettled(tx: DbConn, row: OutboundRow): Promise<void> {
    if (row.receipt) return;
    const s = row.ownerId ? await store.lockSettlement(tx, row.ownerId) : undefined;
    if (!s || s.status !== 'pending' || s.stage !== 'sending') return;
    const reason = failureOf(row, 'swap');
    await this.#legs.fail(tx, s.swap_transaction_id, 'SWAP', reason, null);
    await this.#legs.failAll(tx, s, `${reason}; the funds stay with the sender`);
  }

  /** outbound.confirmed of a swap: at its final depth the swap's outcome is decided. */
  async swapConfirmed(tx: DbConn, row: OutboundRow, change: Confirmation): Promise<void> {
    this.#logReorg(row, change);
    if (change.kind === 'reorged' || !change.final) return;
    const s = row.ownerId ? await store.lockSettlement(tx, row.ownerId) : undefined;
    if (!s || s.status !== 'pending' || s.stage !== 'sending') return;
    const mined = this.deps.outbound.mined(row);
    if (row.stage !== 'mined' || !mined) {
      const reason = failureOf(row, 'swap');
      await this.#legs.fail(tx, s.swap_transaction_id, 'SWAP', reason, mined, 'failed', change.depth);
      await this.#legs.failAll(tx, s, `${reason}; the funds stay with the sender`);
      return;
    }
    // What the swap delivered is read from its receipt's logs: a chain read, so in the job.
    const plan = { ...(s.swap as unknown as StoredPlan), mined: minedRecord(mined), depth: change.depth };
    await store.updateSettlement(tx, s.id, { stage: 'swapped', swap: plan as unknown as Record<string, unknown> });
    await store.enqueueJob(tx, s.id);
  }

  async #afterSwap(s: store.SettlementRow): Promise<void> {
    const plan = s.swap as unknown as StoredPlan;
    const assetOut = this.deps.catalogue.asset(s.asset_out_id)!.row;
    const sender = await this.#sender(this.deps.db, s);
    const output = await this.swaps.provider(s.chain_id)!.outputOf(plan.mined!.hash, assetOut.address, sender);
    if (output === null) throw new Error(`swap ${plan.mined!.hash} has no readable receipt yet`);
    await this.deps.db.transaction().execute(async (tx) => {
      const locked = await store.lockSettlement(tx, s.id);
      if (!locked || locked.status !== 'pending' || locked.stage !== 'swapped') return;
      const m = plan.mined!;
      await store.updateSettlement(tx, s.id, { amountOut: output });
      await this.#legs.succeed(tx, locked.swap_transaction_id, 'SWAP', minedOfRecord(m), output, plan.depth);
      if (output === 0n) {
        await this.#legs.failAll(tx, locked, 'the swap delivered nothing');
        return;
      }
      await this.deps.transactions.setLegAmount(tx, locked.settle_transaction_id!, output);
      await this.#enqueueTransfer(tx, locked, output);
    });
  }

  /** As swapSettled: with a receipt, the outcome waits for transferConfirmed. */
  async transferSettled(tx: DbConn, row: OutboundRow): Promise<void> {
    if (row.receipt) return;
    const s = row.ownerId ? await store.lockSettlement(tx, row.ownerId) : undefined;
    if (!s || s.status !== 'pending' || s.stage !== 'transfer') return;
    await this.#transferFailed(tx, s, row, null);
  }

  /** outbound.confirmed of the transfer: at its final depth the settlement is done (or failed). */
  async transferConfirmed(tx: DbConn, row: OutboundRow, change: Confirmation): Promise<void> {
    this.#logReorg(row, change);
    if (change.kind === 'reorged' || !change.final) return;
    const s = row.ownerId ? await store.lockSettlement(tx, row.ownerId) : undefined;
    if (!s || s.status !== 'pending' || s.stage !== 'transfer') return;
    const mined = this.deps.outbound.mined(row);
    if (row.stage === 'mined' && mined) {
      await store.updateSettlement(tx, s.id, { status: 'success', stage: 'done' });
      await this.#legs.succeed(tx, s.settle_transaction_id, 'AUTO_SETTLEMENT', mined, undefined, change.depth);
      return;
    }
    await this.#transferFailed(tx, s, row, change.depth);
  }

  async #transferFailed(tx: DbConn, s: store.SettlementRow, row: OutboundRow, depth: number | null): Promise<void> {
    const reason = failureOf(row, 'transfer to the destination');
    await this.#legs.fail(
      tx,
      s.settle_transaction_id,
      'AUTO_SETTLEMENT',
      reason,
      this.deps.outbound.mined(row),
      'failed',
      depth ?? undefined,
    );
    await store.updateSettlement(tx, s.id, { status: 'failed', stage: 'failed', error: reason });
  }

  #logReorg(row: OutboundRow, change: Confirmation): void {
    if (change.kind === 'depth') return;
    this.deps.logger.warn(
      { settlementId: row.ownerId, purpose: row.purpose, hash: row.hash, change: change.kind },
      change.kind === 'reorged'
        ? 'auto-settlement leg reorged away; the same bytes are sent again'
        : 'auto-settlement leg re-mined in another block',
    );
  }

  /** outbound.signed of a swap or transfer: the leg's transaction holds the signed hash. */
  async signed(tx: DbConn, row: OutboundRow, leg: 'swap' | 'transfer'): Promise<void> {
    const s = row.ownerId ? await store.findSettlement(tx, row.ownerId) : undefined;
    const id = leg === 'swap' ? s?.swap_transaction_id : s?.settle_transaction_id;
    if (id) await this.deps.transactions.recordSigned(tx, id, { hash: row.hash!, raw: row.raw!, nonce: row.nonce });
  }
}

export type { StoredRule };
