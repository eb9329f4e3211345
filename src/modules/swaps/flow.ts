/**
 * An API swap's steps (api.ts accepts it), each in the transaction of the step before:
 *
 *   start (the request's transaction, under the sender's lock): the SWAP Transaction and the
 *     swap row; a child's fee top-up (stage topup) or the legs at once (stage sending);
 *   top-up mined: the legs, [approve(0)] [approve] + the router's swap (amountOutMin and the
 *     deadline signed into it; the output sent straight to the recipient), consecutive nonces;
 *   swap mined and its block the chain's confirmations deep (outbound.confirmed, final): stage
 *     swapped and job swap_settle, which reads what the recipient received from the
 *     receipt's transfer logs (a chain read, so outside the pipeline's transaction) and ends
 *     the Transaction SUCCESS with that toAmount and `swap.success`;
 *   a swap that reverted (the pool moved below the minimum, the deadline passed) or was never
 *     mined: FAILED and `swap.failed`; the input never left the sender, only the network fee was spent.
 *
 * Every step checks the swap's stage under its row lock, so a replayed handler or job does
 * nothing twice; a reorg before the final depth re-sends the same bytes (the pipeline).
 */
import type { DbConn } from '../../db/pool.js';
import type { Purpose } from '../../events.js';
import { jobs } from '../../jobs/store.js';
import { ConflictError } from '../../lib/errors.js';
import { uuidv7 } from '../../lib/ids.js';
import type { AssetHandle, ChainHandle } from '../catalogue/service.js';
import type { AmlScreening } from '../aml/service.js';
import type { ModuleDeps } from '../deps.js';
import { minedOfRecord, minedRecord, type Confirmation, type OutboundRow } from '../outbound/service.js';
import { countedOf, type Candidate } from '../policies/service.js';
import type { FeeQuote, SwapCall } from '../../chains/types.js';
import type { WalletRow } from '../wallets/service.js';
import type { MoveRead, WithdrawalService } from '../withdrawals/service.js';
import type { SwapService } from './service.js';
import * as store from './store.js';

export const SWAP_PURPOSES = { topup: 'swap-topup', approve: 'swap-approve', swap: 'swap' } as const satisfies Record<string, Purpose>;
export const SWAP_EVENTS = { ok: 'swap.success', failed: 'swap.failed' } as const;

/** What start needs of a priced request (api.ts). */
export interface Accepted {
  from: AssetHandle;
  to: AssetHandle;
  amountIn: bigint;
  order: string;
  slippage: string;
  recipient: string;
  route: store.RoutePlan;
  minOut: bigint;
  fees: FeeQuote;
  nativeBalance: bigint;
}

export interface StartContext {
  actor: { wallet: WalletRow; chain: ChainHandle; address: string; index: number; addressId: string | null };
  withdrawals: WithdrawalService;
  /** The swap as transaction policies see it (SWAP). */
  candidate: Candidate;
  quote: { id: string; requoted: boolean } | null;
  reference: string;
  metadata: Record<string, unknown> | null;
  /** The outside recipient's AML screening (null: the wallet's own), stored as the Transaction's amlScreening. */
  amlScreening: AmlScreening | null;
  deadline: bigint;
}

/** What start read of the chain before its transaction, and the sender's swaps just before. */
interface ChainRead {
  seen: store.SenderSwaps;
  allowance: bigint;
  read: MoveRead;
  /** What a child's spends in flight and AML-held deposits hold of its native coin (0 for the master): not there for its legs' gas. */
  heldNative: bigint;
}

/** Who the swap sends from, as the look at the sender's other swaps keys it. */
const senderOf = (a: Accepted, ctx: StartContext): store.SwapSender => ({
  chainId: ctx.actor.chain.id,
  walletId: ctx.actor.wallet.id,
  fromIndex: ctx.actor.index,
  assetInId: a.from.row.id,
});

/** The sender's swaps changed between start's chain read and its lock: read again. */
class StaleRead extends Error {}

export class SwapFlow {
  constructor(
    private readonly deps: ModuleDeps,
    private readonly swaps: SwapService,
  ) {}

  /**
   * The swap's rows and first transactions, in one database transaction; its (and its
   * Transaction's) id. What it needs of the chain (the sender's allowance to the router, its
   * balances, its first nonce) is read before that transaction opens, so no connection or lock
   * waits on the node. Another swap of the sender moves the allowance (approve, then the
   * router's pull), an API swap or an auto-settlement's (which takes the same lock): the
   * sender's swaps are looked at before the read (noting the database's time) and again under
   * the swap lock (store.senderSwaps counts the sender's settlements too); one in flight then
   * answers SWAP_IN_PROGRESS, one written since makes the read stale: read again. (A contract write's approve from the same address is not
   * serialised with swaps; a swap signed on a stale allowance reverts on chain, its input
   * untouched.)
   */
  async start(a: Accepted, ctx: StartContext): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      const seen = await store.senderSwaps(this.deps.db, senderOf(a, ctx));
      const nativeId = ctx.actor.chain.assets.find((x) => x.is_native)?.id;
      const [allowance, read, heldNative] = await Promise.all([
        this.swaps.provider(ctx.actor.chain.id)!.allowance(a.from.row.address, ctx.actor.address),
        ctx.withdrawals.readForMove(
          {
            chain: ctx.actor.chain,
            sender: ctx.actor.address,
            asset: a.from,
            ...(ctx.actor.index !== 0 ? { funder: ctx.actor.wallet.address } : {}),
          },
          [ctx.actor.wallet.address],
        ),
        ctx.actor.index !== 0 && nativeId
          ? ctx.withdrawals.inFlight(ctx.actor.chain, ctx.actor.address, nativeId).then((h) => h.native + h.standingNative)
          : 0n,
      ]);
      try {
        return await this.#start(a, ctx, { seen, allowance, read, heldNative });
      } catch (err) {
        if (!(err instanceof StaleRead)) throw err;
        if (attempt === 3) {
          throw new ConflictError('SWAP_IN_PROGRESS', 'Another swap from this address just started or ended; send this one again');
        }
      }
    }
  }

  async #start(a: Accepted, ctx: StartContext, chainRead: ChainRead): Promise<string> {
    const { actor } = ctx;
    const { chain, wallet } = actor;
    const family = chain.adapter.sender;
    const provider = this.swaps.provider(chain.id)!;
    const id = uuidv7();
    return this.deps.db.transaction().execute(async (tx) => {
      await store.lockSender(tx, chain.id, actor.address);
      // A twin with the same reference waited here for the first to commit: it answers
      // REFERENCE_IN_USE, not SWAP_IN_PROGRESS (another sender's twin is caught by create).
      await this.deps.transactions.requireReferenceFree(tx, wallet.id, ctx.reference);
      const now = await store.senderSwaps(tx, senderOf(a, ctx));
      if (now.pending > 0) {
        throw new ConflictError('SWAP_IN_PROGRESS', 'Another swap from this address is in flight; send this one once it ends');
      }
      if (chainRead.seen.pending > 0 || (await store.swapsMovedSince(tx, senderOf(a, ctx), chainRead.seen.at))) {
        throw new StaleRead();
      }
      if (a.recipient !== actor.address) await ctx.withdrawals.checkWhitelistOf(wallet.id, a.recipient, 'recipientAddress', tx);
      const { allowance } = chainRead;
      const approvals = allowance >= a.amountIn ? [] : allowance === 0n ? [a.amountIn] : [0n, a.amountIn];
      const legs = family.requote(a.fees, provider.legs({ path: a.route.path, approvals: approvals.length }));
      const child = actor.index !== 0;
      // The top-up makes up for what the child's own spends in flight hold of its native coin
      // (a payout, their fees), as a recovery's or a settlement's does: reckoned on the raw
      // balance, it came short and reserveForMove refused a swap a larger top-up lets through.
      const free = a.nativeBalance > chainRead.heldNative ? a.nativeBalance - chainRead.heldNative : 0n;
      const funding = child ? family.childFeeFunding({ nativeBalance: free, value: 0n, network: legs.network }) : null;
      const topup = funding?.kind === 'transfer' ? funding.amount : 0n;
      // The input and the legs' fees held like a withdrawal's; of a child's fees, what its
      // top-up leaves it to pay, and the top-up (at the probe's fee: a native payment, as the
      // top-up is) held at the master, which sends it. Transaction policies are decided under
      // the withdrawal locks, before the funds check and anything written: one lock order, the
      // withdrawal locks before the velocity windows' locks, as a withdrawal takes them
      // (deciding first deadlocked with a withdrawal of the sender queued on that lock;
      // guards.ts, reserveForMove).
      await ctx.withdrawals.reserveForMove(
        tx,
        {
          chain,
          sender: actor.address,
          asset: a.from,
          amount: a.amountIn,
          to: a.recipient,
          fee: legs.fee > topup ? legs.fee - topup : 0n,
          ...(topup > 0n ? { funder: { address: wallet.address, value: topup, fee: a.fees.fee } } : {}),
          // What api.ts checked before the chain was read, read again under the standing's lock
          // (held to the COMMIT): a deactivation, the input asset disabled or the recipient
          // unlisted meanwhile, by any API process, refuses the swap (withdrawals/standing.ts).
          standing: {
            walletId: wallet.id,
            enabled: [{ assetId: a.from.row.id, field: 'fromAssetId' }],
            ...(a.recipient !== actor.address
              ? { beneficiaries: { items: [{ to: a.recipient, field: '' }], name: 'recipientAddress' } }
              : {}),
            screenings: [ctx.amlScreening],
          },
        },
        chainRead.read,
        () => this.deps.policies.requireAllowed(tx, wallet.business_id, [ctx.candidate], () => 'amount'),
      );
      const plan: store.SwapPlan = {
        ...a.route,
        deadline: ctx.deadline.toString(),
        approvals: approvals.map(String),
        // A child signs with what its top-up paid for (each leg sets its own limit over it).
        ...(child ? { network: family.fundedNetwork(legs) } : {}),
      };
      await this.deps.transactions.create(
        tx,
        {
          id,
          wallet_id: wallet.id,
          address_id: actor.addressId,
          chain_id: chain.id,
          asset_id: a.from.row.id,
          reference: ctx.reference,
          type: 'SWAP',
          status: 'PENDING',
          stage: 'created',
          confirmed: false,
          amount: a.amountIn.toString(),
          amount_paid: a.amountIn.toString(),
          currency: a.from.row.symbol,
          to_amount: a.route.amountOut,
          to_currency: a.to.row.symbol,
          sender_address: actor.address,
          recipient_address: a.recipient,
          token_address: a.from.row.address,
          network: chain.row.network,
          created_channel: 'API',
          aml_screening: ctx.amlScreening ?? {},
          // All the legs' gas, a child's too: reserveForMove checked only what its top-up leaves
          // it to pay, but from the moment the swap is accepted the child owes all of it (its own
          // ETH now, the top-up once it lands), so its later spends must not take either part
          // (withdrawals/store.ts heldBack reads this, as a child's auto-settlement holds its fee).
          reserved_fee: legs.fee.toString(),
          metadata: {
            ...(ctx.metadata ?? {}),
            swap: {
              quoteId: ctx.quote?.id ?? null,
              requoted: ctx.quote?.requoted ?? false,
              order: a.order,
              slippageTolerance: a.slippage,
              quote: a.route.amountOut,
              minAmount: a.minOut.toString(),
              path: a.route.path,
              deadline: new Date(Number(ctx.deadline) * 1000).toISOString(),
            },
          },
        },
        countedOf(ctx.candidate),
      );
      await store.insertSwap(tx, {
        id,
        wallet_id: wallet.id,
        address_id: actor.addressId,
        chain_id: chain.id,
        from_index: actor.index,
        sender: actor.address,
        recipient: a.recipient,
        asset_in_id: a.from.row.id,
        asset_out_id: a.to.row.id,
        amount_in: a.amountIn.toString(),
        min_out: a.minOut.toString(),
        plan,
        stage: topup > 0n ? 'topup' : 'sending',
        // The top-up's own fee, as reserveForMove checked it at the master: held there with the
        // top-up's value for as long as the top-up is in flight (withdrawals/store.ts heldBack).
        topup_fee: topup > 0n ? a.fees.fee.toString() : null,
      });
      if (ctx.quote && !(await store.useQuote(tx, ctx.quote.id, id))) {
        throw new ConflictError('QUOTE_USED', 'This quote has been executed already; ask for a new one');
      }
      if (topup > 0n) {
        await this.deps.outbound.enqueue(tx, {
          chainId: chain.id,
          walletId: wallet.id,
          wallet,
          fromIndex: 0,
          intent: { kind: 'native', to: actor.address, amount: topup },
          purpose: SWAP_PURPOSES.topup,
          ownerId: id,
        });
      } else await this.#sendLegs(tx, (await store.lockSwap(tx, id))!);
      return id;
    });
  }

  /** [approve(0)] [approve] and the swap, in nonce order, from the swap's sender. */
  async #sendLegs(tx: DbConn, s: store.SwapRow): Promise<void> {
    const provider = this.swaps.provider(s.chain_id)!;
    const token = this.deps.catalogue.asset(s.asset_in_id)!.row.address;
    const from = { chainId: s.chain_id, walletId: s.wallet_id, fromIndex: s.from_index, ownerId: s.id };
    // Each call is signed with its own network data (the swap's fixed: estimating it before
    // the approval is mined would revert), over what a child's top-up paid for.
    const send = ({ network, ...intent }: SwapCall, purpose: Purpose) =>
      this.deps.outbound.enqueue(tx, { ...from, intent, network: { ...s.plan.network, ...network }, purpose });
    for (const amount of s.plan.approvals) await send(provider.approveCall(token, BigInt(amount)), SWAP_PURPOSES.approve);
    await send(
      provider.swapCall({
        path: s.plan.path,
        amountIn: BigInt(s.amount_in),
        amountOutMin: BigInt(s.min_out),
        recipient: s.recipient,
        deadline: BigInt(s.plan.deadline),
      }),
      SWAP_PURPOSES.swap,
    );
    await store.updateSwap(tx, s.id, { stage: 'sending' });
  }

  async #locked(tx: DbConn, row: OutboundRow, stage: store.SwapStage): Promise<store.SwapRow | undefined> {
    const s = row.ownerId ? await store.lockSwap(tx, row.ownerId) : undefined;
    return s && s.status === 'pending' && s.stage === stage ? s : undefined;
  }

  /** outbound.settled of 'swap-topup': the legs follow, or the swap fails (nothing sent). */
  async topupSettled(tx: DbConn, row: OutboundRow): Promise<void> {
    const s = await this.#locked(tx, row, 'topup');
    if (!s) return;
    if (row.stage === 'mined') await this.#sendLegs(tx, s);
    else await this.#fail(tx, s, `${this.deps.outbound.failure(row, 'fee top-up')}; the funds stay with the sender`, null, 'not-sent');
  }

  /** outbound.settled of 'swap-approve': nothing to do; a failed approval makes the swap behind it revert. */
  async approveSettled(_tx: DbConn, row: OutboundRow): Promise<void> {
    if (row.stage !== 'mined') this.deps.logger.warn({ swapId: row.ownerId, stage: row.stage }, 'swap approval not mined');
  }

  /** outbound.confirmed of a top-up or an approval: followed to depth (re-sent after a reorg) only. */
  async legConfirmed(_tx: DbConn, row: OutboundRow, change: Confirmation): Promise<void> {
    if (change.kind === 'reorged')
      this.deps.logger.warn({ swapId: row.ownerId, purpose: row.purpose }, 'swap leg reorged away; sent again');
  }

  /** outbound.signed of 'swap': the Transaction holds the signed hash. */
  async signed(tx: DbConn, row: OutboundRow): Promise<void> {
    if (row.ownerId && row.hash)
      await this.deps.transactions.recordSigned(tx, row.ownerId, { hash: row.hash, raw: row.raw!, nonce: row.nonce });
  }

  /** outbound.settled of 'swap': with a receipt, the outcome waits for its final depth; without one, it never will be mined. */
  async swapSettled(tx: DbConn, row: OutboundRow): Promise<void> {
    if (row.receipt) return;
    const s = await this.#locked(tx, row, 'sending');
    if (s) await this.#fail(tx, s, `${this.deps.outbound.failure(row, 'swap')}; the funds stay with the sender`, null, row.stage);
  }

  /** outbound.confirmed of 'swap': at its final depth, a mined swap's output is read (job swap_settle); a reverted one failed. */
  async swapConfirmed(tx: DbConn, row: OutboundRow, change: Confirmation): Promise<void> {
    if (change.kind === 'reorged' || !change.final) return;
    const s = await this.#locked(tx, row, 'sending');
    if (!s) return;
    const mined = this.deps.outbound.mined(row);
    if (row.stage !== 'mined' || !mined) {
      const why = `${this.deps.outbound.failure(row, 'swap')}: the output would have been below the minimum of ${s.min_out} base units, or the deadline passed; the funds stay with the sender`;
      await this.#fail(tx, s, why, mined, 'failed', change.depth);
      return;
    }
    const plan: store.SwapPlan = { ...s.plan, depth: change.depth, mined: minedRecord(mined) };
    await store.updateSwap(tx, s.id, { stage: 'swapped', plan });
    await jobs.swap_settle.add(tx, { id: s.id }, { key: jobs.swap_settle.key(s.id) });
  }

  /** Job swap_settle: what the recipient received, from the receipt's transfer logs; then swap.success. */
  async finish(id: string): Promise<void> {
    const s = await store.findSwap(this.deps.db, id);
    if (!s || s.status !== 'pending' || s.stage !== 'swapped' || !s.plan.mined) return;
    const tokenOut = this.deps.catalogue.asset(s.asset_out_id)!.row.address;
    const output = await this.swaps.provider(s.chain_id)!.outputOf(s.plan.mined.hash, tokenOut, s.recipient);
    if (output === null) throw new Error(`swap ${s.plan.mined.hash} has no readable receipt yet`);
    const mined = minedOfRecord(s.plan.mined);
    await this.deps.db.transaction().execute(async (tx) => {
      const locked = await store.lockSwap(tx, id);
      if (!locked || locked.status !== 'pending' || locked.stage !== 'swapped') return;
      await store.updateSwap(tx, id, { status: 'success', stage: 'done', amountOut: output });
      const moved = await this.deps.transactions.settleLeg(tx, id, {
        status: 'SUCCESS',
        stage: 'mined',
        reason: null,
        toAmount: output,
        ...(s.plan.depth !== undefined ? { confirmations: s.plan.depth } : {}),
        mined,
      });
      if (moved) await this.deps.webhooks.emitForTransaction(tx, id, SWAP_EVENTS.ok);
    });
  }

  async #fail(
    tx: DbConn,
    s: store.SwapRow,
    reason: string,
    mined: ReturnType<ModuleDeps['outbound']['mined']>,
    stage: string,
    depth?: number,
  ): Promise<void> {
    await store.updateSwap(tx, s.id, { status: 'failed', stage: 'failed', error: reason });
    const failed = stage === 'failed' || stage === 'dropped' || stage === 'replaced' ? stage : 'not-sent';
    const moved = await this.deps.transactions.settleLeg(tx, s.id, {
      status: 'FAILED',
      stage: failed,
      reason,
      mined,
      ...(depth !== undefined ? { confirmations: depth } : {}),
    });
    if (moved) await this.deps.webhooks.emitForTransaction(tx, s.id, SWAP_EVENTS.failed);
  }
}
