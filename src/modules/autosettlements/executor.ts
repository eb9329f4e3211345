/**
 * Runs settlements (docs/settlement.md). A settlement is created with its job in the
 * transaction that confirms (or sweeps) its deposit; from there:
 *
 *   job auto_settle, stage queued: quote the swap (if any), plan gas, create the SWAP and
 *     AUTO_SETTLEMENT transactions, and either send the child address a gas top-up
 *     (stage topup) or enqueue the sends at once;
 *   top-up mined: enqueue the sends: [approve] + swap (stage sending), or the transfer
 *     (stage transfer);
 *   swap mined: stage swapped, job again: read what the swap delivered, swap.success, then
 *     the transfer of that output (stage transfer);
 *   transfer mined: auto-settlement.success (stage done).
 *
 * Every send goes through the outbound pipeline (nonces, stored raw transactions, fee
 * bumps, receipts); every step runs in the transaction that records the previous step's
 * receipt, under the settlement's row lock and a stage check, so a replayed handler or a
 * re-run job does nothing twice. A failure on the way fails the pending legs with
 * swap.failed / auto-settlement.failed; what was not moved stays where it was.
 */
import type { DbConn } from '../../db/pool.js';
import { shortReference, uuidv7 } from '../../lib/ids.js';
import type { ModuleDeps } from '../deps.js';
import type { OutboundRow } from '../outbound/service.js';
import type { SwapService } from '../swaps/service.js';
import { failureOf, Legs, minedOf } from './legs.js';
import { APPROVE_GAS, planSettlement, type StoredPlan } from './planner.js';
import type { StoredRule } from './rules.js';
import * as store from './store.js';

const PURPOSE = {
  topup: 'autosettle-topup',
  approve: 'autosettle-approve',
  swap: 'autosettle-swap',
  transfer: 'autosettle-transfer',
} as const;
export class AutoSettlementExecutor {
  readonly #legs: Legs;

  constructor(
    private readonly deps: ModuleDeps,
    private readonly swaps: SwapService,
  ) {
    this.#legs = new Legs(deps.webhooks);
    const o = deps.outbound;
    o.onSettled(PURPOSE.topup, (tx, row) => this.#topupSettled(tx, row));
    o.onSettled(PURPOSE.approve, async (_tx, row) => {
      // Nothing to do: a failed approval makes the swap behind it fail, and that settles the settlement.
      if (row.stage !== 'mined') deps.logger.warn({ settlementId: row.ownerId, stage: row.stage }, 'auto-settlement approval not mined');
    });
    o.onSettled(PURPOSE.swap, (tx, row) => this.#swapSettled(tx, row));
    o.onSettled(PURPOSE.transfer, (tx, row) => this.#transferSettled(tx, row));
    o.onSigned(PURPOSE.swap, (tx, row) => this.#signed(tx, row, 'swap'));
    o.onSigned(PURPOSE.transfer, (tx, row) => this.#signed(tx, row, 'transfer'));
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
    const { db, catalogue, wallets } = this.deps;
    const chain = catalogue.chain(s.chain_id);
    const wallet = await wallets.requireRow(s.wallet_id);
    const sender = wallets.deriver(wallet).address(s.from_index);
    const assetIn = catalogue.asset(s.asset_in_id)!.row;
    const assetOut = catalogue.asset(s.asset_out_id)!.row;
    const rule = s.rule;
    const amountIn = BigInt(s.amount_in);
    const fromChild = s.from_index !== 0;
    const swapping = assetIn.id !== assetOut.id;

    // Chain reads first, outside any lock.
    const { fees, plan, refusal, transferGas, topup } = await planSettlement(this.deps, this.swaps, s, sender);

    await db.transaction().execute(async (tx) => {
      const locked = await store.lockSettlement(tx, s.id);
      if (!locked || locked.status !== 'pending' || locked.stage !== 'queued') return;
      const [deposit] = await store.deposits(tx, [s.deposit_id]);
      const legBase = {
        walletId: s.wallet_id,
        addressId: fromChild ? (deposit?.address_id ?? null) : null,
        chainId: s.chain_id,
        network: chain.row.network,
        sender,
      };
      const metadata = { settlementId: s.id, depositId: s.deposit_id, ruleId: s.rule_id, ruleName: rule.name, order: rule.order };
      let swapId: string | null = null;
      if (swapping) {
        swapId = uuidv7();
        await store.insertLeg(tx, {
          ...legBase,
          id: swapId,
          assetId: assetIn.id,
          reference: shortReference(),
          type: 'SWAP',
          amount: amountIn,
          currency: assetIn.symbol,
          toAmount: plan ? BigInt(plan.quote) : null,
          toCurrency: assetOut.symbol,
          recipient: sender,
          token: assetIn.address,
          reason: null,
          metadata: { ...metadata, slippageTolerance: rule.slippage_tolerance, swap: plan && publicPlan(plan) },
        });
      }
      const settleId = uuidv7();
      await store.insertLeg(tx, {
        ...legBase,
        id: settleId,
        assetId: assetOut.id,
        reference: shortReference(),
        type: 'AUTO_SETTLEMENT',
        amount: swapping ? BigInt(plan?.quote ?? '0') : amountIn,
        currency: assetOut.symbol,
        toAmount: null,
        toCurrency: null,
        recipient: rule.destination.address,
        token: assetOut.is_native ? null : assetOut.address,
        reason: null,
        metadata: swapId ? { ...metadata, swapTransactionId: swapId } : metadata,
      });
      await store.updateSettlement(tx, s.id, {
        swapTransactionId: swapId ?? undefined,
        settleTransactionId: settleId,
        ...(plan ? { swap: plan as unknown as Record<string, unknown> } : {}),
        ...(fromChild ? { fees, transferGasLimit: transferGas } : {}),
      } as Parameters<typeof store.updateSettlement>[2]);
      const current = (await store.lockSettlement(tx, s.id))!;
      if (refusal) {
        await this.#legs.failAll(tx, current, refusal);
        return;
      }
      if (topup > 0n) {
        await this.deps.outbound.enqueue(tx, {
          chainId: s.chain_id,
          walletId: s.wallet_id,
          wallet,
          fromIndex: 0,
          to: sender,
          value: topup,
          purpose: PURPOSE.topup,
          ownerId: s.id,
        });
        await store.updateSettlement(tx, s.id, { stage: 'topup' });
      } else await this.#send(tx, current);
    });
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
    if (plan!.approve) {
      await this.deps.outbound.enqueue(tx, {
        ...this.#from(s),
        ...provider.approveCall(assetIn.address, amountIn),
        gasLimit: APPROVE_GAS,
        purpose: PURPOSE.approve,
        ownerId: s.id,
      });
    }
    await this.deps.outbound.enqueue(tx, {
      ...this.#from(s),
      ...provider.swapCall({
        path: plan!.path,
        amountIn,
        amountOutMin: BigInt(plan!.amountOutMin),
        recipient: sender,
        deadline: BigInt(plan!.deadline),
      }),
      // Fixed: estimating before the approval is mined would revert.
      gasLimit: BigInt(plan!.gas),
      purpose: PURPOSE.swap,
      ownerId: s.id,
    });
    await store.updateSettlement(tx, s.id, { stage: 'sending' });
  }

  async #enqueueTransfer(tx: DbConn, s: store.SettlementRow, amount: bigint): Promise<void> {
    const asset = this.deps.catalogue.asset(s.asset_out_id)!.row;
    const adapter = this.deps.catalogue.chain(s.chain_id).adapter;
    const to = s.rule.destination.address;
    const fromChild = s.from_index !== 0;
    await this.deps.outbound.enqueue(tx, {
      ...this.#from(s),
      to: asset.is_native ? to : asset.address,
      value: asset.is_native ? amount : 0n,
      ...(asset.is_native ? {} : { data: adapter.encodeTokenTransfer(to, amount) }),
      // A child signs with the gas limit its top-up paid for.
      ...(fromChild && s.transfer_gas_limit !== null ? { gasLimit: BigInt(s.transfer_gas_limit) } : {}),
      purpose: PURPOSE.transfer,
      ownerId: s.id,
    });
    await store.updateSettlement(tx, s.id, { stage: 'transfer' });
  }

  /** Sender, and for a child the fees its top-up paid for. */
  #from(s: store.SettlementRow) {
    const fixed =
      s.from_index !== 0 && s.max_fee_per_gas !== null && s.max_priority_fee_per_gas !== null
        ? { maxFeePerGas: BigInt(s.max_fee_per_gas), maxPriorityFeePerGas: BigInt(s.max_priority_fee_per_gas) }
        : {};
    return { chainId: s.chain_id, walletId: s.wallet_id, fromIndex: s.from_index, ...fixed };
  }

  async #sender(tx: DbConn, s: store.SettlementRow): Promise<string> {
    const wallet = await this.deps.wallets.requireRow(s.wallet_id, tx);
    return this.deps.wallets.deriver(wallet).address(s.from_index);
  }

  async #topupSettled(tx: DbConn, row: OutboundRow): Promise<void> {
    const s = row.ownerId ? await store.lockSettlement(tx, row.ownerId) : undefined;
    if (!s || s.status !== 'pending' || s.stage !== 'topup') return;
    if (row.stage === 'mined') await this.#send(tx, s);
    else await this.#legs.failAll(tx, s, failureOf(row, 'gas top-up'));
  }

  async #swapSettled(tx: DbConn, row: OutboundRow): Promise<void> {
    const s = row.ownerId ? await store.lockSettlement(tx, row.ownerId) : undefined;
    if (!s || s.status !== 'pending' || s.stage !== 'sending') return;
    const mined = minedOf(row);
    if (row.stage !== 'mined' || !mined) {
      const reason = failureOf(row, 'swap');
      await this.#legs.fail(tx, s.swap_transaction_id, 'SWAP', reason, mined);
      await this.#legs.failAll(tx, s, `${reason}; the funds stay with the sender`);
      return;
    }
    // What the swap delivered is read from its receipt's logs: a chain read, so in the job.
    const plan = { ...(s.swap as unknown as StoredPlan), mined: stringsOf(mined) };
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
      await this.#legs.succeed(
        tx,
        locked.swap_transaction_id,
        'SWAP',
        {
          hash: m.hash,
          blockNumber: BigInt(m.blockNumber),
          blockHash: m.blockHash,
          gasUsed: BigInt(m.gasUsed),
          gasPrice: BigInt(m.gasPrice),
        },
        output,
      );
      if (output === 0n) {
        await this.#legs.failAll(tx, locked, 'the swap delivered nothing');
        return;
      }
      await store.setLegAmount(tx, locked.settle_transaction_id!, output);
      await this.#enqueueTransfer(tx, locked, output);
    });
  }

  async #transferSettled(tx: DbConn, row: OutboundRow): Promise<void> {
    const s = row.ownerId ? await store.lockSettlement(tx, row.ownerId) : undefined;
    if (!s || s.status !== 'pending' || s.stage !== 'transfer') return;
    const mined = minedOf(row);
    if (row.stage === 'mined' && mined) {
      await store.updateSettlement(tx, s.id, { status: 'success', stage: 'done' });
      await this.#legs.succeed(tx, s.settle_transaction_id, 'AUTO_SETTLEMENT', mined);
      return;
    }
    const reason = failureOf(row, 'transfer to the destination');
    await this.#legs.fail(tx, s.settle_transaction_id, 'AUTO_SETTLEMENT', reason, mined);
    await store.updateSettlement(tx, s.id, { status: 'failed', stage: 'failed', error: reason });
  }

  async #signed(tx: DbConn, row: OutboundRow, leg: 'swap' | 'transfer'): Promise<void> {
    const s = row.ownerId ? await store.findSettlement(tx, row.ownerId) : undefined;
    const id = leg === 'swap' ? s?.swap_transaction_id : s?.settle_transaction_id;
    if (id) await store.recordLegSigned(tx, id, { hash: row.hash!, raw: row.raw!, nonce: row.nonce });
  }
}

/** What the SWAP transaction's metadata shows of the plan (base units as strings). */
function publicPlan(p: StoredPlan): Record<string, unknown> {
  return {
    path: p.path,
    quote: p.quote,
    amountOutMin: p.amountOutMin,
    reference: p.reference,
    referenceKind: p.referenceKind,
    routes: p.candidates,
  };
}

function stringsOf(m: NonNullable<ReturnType<typeof minedOf>>): NonNullable<StoredPlan['mined']> {
  return {
    hash: m.hash,
    blockNumber: m.blockNumber.toString(),
    blockHash: m.blockHash,
    gasUsed: m.gasUsed.toString(),
    gasPrice: m.gasPrice.toString(),
  };
}

export type { StoredRule };
