/**
 * Sweeping confirmed deposits from child addresses to the master address.
 *
 * A sweep moves one asset's whole balance of one child address. A token sweep needs gas
 * at the child: the master first sends just enough native coin (the transfer's gas limit at
 * the fee cap, less what the child already holds), then the child sends the token with
 * exactly those fees (or resources lent from the master's stake instead, where the family
 * lends them; no top-up at all where the master signs the child's transfer as its fee payer). Both go through the
 * outbound pipeline (nonces, stored raw transactions, receipts), and the sweep advances in its
 * outbound.settled subscribers,
 * inside the database transaction that records each receipt. One sweep per address and asset is in
 * flight at a time (unique index), so concurrent deposits and restarts share one top-up;
 * deposits that arrive meanwhile are swept by the next sweep, started when this one ends.
 */
import { ChainRejectedError } from '../../chains/errors.js';
import type { FeeQuote, NetworkData, TxIntent } from '../../chains/types.js';
import { databaseNow, type Db, type DbConn } from '../../db/pool.js';
import type { Logger } from '../../lib/logger.js';
import type { Events, Purpose } from '../../events.js';
import { BusinessRuleError, ConflictError, NotFoundError } from '../../lib/errors.js';
import { uuidv7 } from '../../lib/ids.js';
import type { AuthContext } from '../apikeys/service.js';
import type { AddressService } from '../addresses/service.js';
import type { CatalogueService } from '../catalogue/service.js';
import type { OutboundRow, OutboundService } from '../outbound/service.js';
import type { TransactionService, TransactionView } from '../transactions/service.js';
import type { WalletService } from '../wallets/service.js';
import { normaliseConfigurations } from '../wallets/service.js';
import type { WithdrawalService } from '../withdrawals/service.js';
import type { WebhookService } from '../webhooks/service.js';
import { GONE, GONE_NATIVE, GONE_PENDING, HELD, KEY_GONE, thresholdUnits } from './records.js';
import { SweepSteps } from './steps.js';
import * as store from './store.js';
import { offers } from '../../chains/registry.js';

type AutoSweeping = ReturnType<typeof normaliseConfigurations>['autoSweeping'];

/** sweepAddress: what its plan read changed before its lock was taken. */
const REPLAN = Symbol('replan');

/**
 * `failed`: the funds were gone, the deposits' sweep ended failed at once. `held`: a deposit
 * at the address is held by AML screening, so its balance is not moved (modules/aml).
 * `funds-in-flight`: what the address holds is held by its own spends in flight (withdrawals
 * not yet settled): nothing is free to sweep until they settle.
 */
export type SweepResult = 'started' | 'in-flight' | 'nothing' | 'failed' | 'held' | 'funds-in-flight';

export class SweepService {
  constructor(
    private readonly db: Db,
    private readonly catalogue: CatalogueService,
    private readonly wallets: WalletService,
    private readonly addresses: AddressService,
    private readonly outbound: OutboundService,
    private readonly transactions: TransactionService,
    /** What the address's own spends in flight hold (a sweep leaves it where it is), read again under their lock. */
    private readonly withdrawals: Pick<WithdrawalService, 'inFlight' | 'lockSenders' | 'readFunder' | 'checkTopup'>,
    /** Only the steps (steps.ts) emit deposit webhooks. */
    webhooks: WebhookService,
    /** sweep.completed is emitted here: treasury features act once funds reach the master (src/subscriptions.ts). */
    private readonly events: Events,
    private readonly logger: Logger,
  ) {
    this.steps = new SweepSteps(catalogue, wallets, addresses, outbound, transactions, webhooks, events, logger);
  }

  /** The transactions after the first, and the outcome on the deposits (steps.ts). */
  private readonly steps: SweepSteps;

  /** deposit.confirmed (src/subscriptions.ts): queues job sweep_deposits in the confirming transaction. */
  queueConfirmed(tx: DbConn, depositIds: string[]): Promise<void> {
    return store.enqueueSweepDeposits(tx, depositIds);
  }

  /**
   * Job sweep_deposits: queues a sweep_address job where auto-sweep applies to the deposits.
   * Run twice, each address and asset is still swept once: the job key folds a queued
   * sweep_address into one, and a sweep in flight (unique) or done leaves nothing to start.
   */
  async sweepConfirmed(depositIds: string[]): Promise<void> {
    const pairs: { addressId: string; assetId: string }[] = [];
    const settings = new Map<string, AutoSweeping>();
    for (const d of await store.depositContexts(this.db, depositIds)) {
      if (this.#autoSweeps(d, settings)) pairs.push({ addressId: d.address_id!, assetId: d.asset_id! });
    }
    await store.enqueueSweepJobs(this.db, pairs);
  }

  /** The deposits (of those given) that auto-sweep moves to the master; the rest stay where they landed. */
  async autoSwept(tx: DbConn, depositIds: string[]): Promise<Set<string>> {
    const settings = new Map<string, AutoSweeping>();
    return new Set((await store.depositContexts(tx, depositIds)).filter((d) => this.#autoSweeps(d, settings)).map((d) => d.id));
  }

  /**
   * Of the deposits given (confirmed where they landed), those a sweep already carries, in
   * flight or done: their money is on its way to the master or there, and a rule takes them
   * from the master when the sweep completes (sweep.completed), not from where they landed.
   * Their addresses are locked for the caller's transaction, as a sweep plans under them: one
   * that has not attached them yet sees the caller's settlements (takenByRules) and plans again.
   */
  async carried(tx: DbConn, depositIds: string[]): Promise<Set<string>> {
    return new Set(await store.carriedBySweeps(tx, depositIds));
  }

  /** `settings`: each wallet's auto-sweep settings, normalised once per call (a range holds thousands of deposits of a few wallets). */
  #autoSweeps(d: store.DepositContext, settings: Map<string, AutoSweeping>): boolean {
    if (!d.address_id || !d.asset_id || !(d.address_type === 'INTERNAL' || d.key_imported) || d.disable_auto_sweep) return false;
    // Held by AML screening: its release queues the sweep again.
    if (d.aml_held) return false;
    let sweeping = settings.get(d.wallet_id);
    if (!sweeping) settings.set(d.wallet_id, (sweeping = normaliseConfigurations(d.wallet_configurations).autoSweeping));
    if (!sweeping.isActive) return false;
    const asset = this.catalogue.asset(d.asset_id);
    return !!asset && BigInt(d.amount) >= thresholdUnits(sweeping.threshold, asset.row.decimals);
  }

  /**
   * Starts a sweep of the address's balance of the asset, unless one is in flight. When the
   * balance is gone (moved before the sweep ran, e.g. withdrawn from the address) the
   * deposits' sweep ends at once as failed, with `deposit.swept.failed` and the reason,
   * instead of an error the job queue would retry; `manual` (the API) only reports it.
   */
  async sweepAddress(addressId: string, assetId: string, opts: { manual?: boolean } = {}): Promise<SweepResult> {
    // A spend of the address accepted between the plan's reads and its lock changes what is
    // free: plan again from fresh reads (a few times; a job that still loses is retried).
    for (let attempt = 1; ; attempt++) {
      const result = await this.#sweepAddress(addressId, assetId, opts);
      if (result !== REPLAN) return result;
      if (attempt < 3) continue;
      if (opts.manual) return 'funds-in-flight';
      throw new Error('the address kept spending while its sweep was planned; the job retries');
    }
  }

  async #sweepAddress(addressId: string, assetId: string, opts: { manual?: boolean }): Promise<SweepResult | typeof REPLAN> {
    const address = await this.addresses.findRow(addressId);
    const asset = this.catalogue.asset(assetId);
    // A child address, or one whose key the wallet imported (signed by address).
    if (!address || !asset || (address.derivation_index === null && !address.key_imported)) return 'nothing';
    // The master's balance is never mixed with funds from a listed sender (checked again under the lock).
    if (await store.holdsAmlHeld(this.db, addressId, assetId)) return 'held';
    const wallet = await this.wallets.requireRow(address.wallet_id);
    const chain = this.catalogue.chain(address.chain_id);
    const adapter = chain.adapter;
    const native = asset.row.is_native;

    // Chain reads happen before any lock is taken. The balance is read at the latest block, so
    // the address's own spends in flight (withdrawals signed or queued, not settled) still
    // count in it: what they hold stays where it is, and only the rest is swept (the
    // transfer's estimate runs against the pending state, where those spends are already made).
    // T, noted first: a spend that settles after it may or may not show in the balance read,
    // so the plan is checked under the lock against what settled since T.
    const since = await databaseNow(this.db);
    // What rules took at the address and have not planned yet is theirs (read before the
    // spends in flight: one planned in between is held twice, never missed; the lock checks both).
    const taken = await store.takenByRules(this.db, addressId, assetId);
    const [[tokenBalance, nativeBalance], held, amlHeld] = await Promise.all([
      adapter.getBalances([
        { owner: address.address, token: native ? null : asset.row.address },
        { owner: address.address, token: null },
      ]),
      this.withdrawals.inFlight(chain, address.address, assetId, { since }),
      // A native sweep is refused outright while any of it is held (above); a token sweep's fee must not come out of it.
      native ? 0n : store.amlHeldNative(this.db, addressId),
    ]);
    const claimed = held.amount + taken;
    let free = (native ? nativeBalance! - held.fees : tokenBalance!) - claimed;
    // A native sweep leaves the address's own payouts in flight where they are, and what they
    // leave must be a balance the chain allows (Sender.accountFloor: none, or at least the
    // floor). Once all but one land, the smallest is what is left: below the floor, the floor
    // stays beside them, so the sweep and the payouts land in either order.
    if (native && free > 0n && held.least !== null) {
      const floor = await adapter.sender.accountFloor();
      if (held.least < floor) free -= floor;
    }
    const moved = free > 0n ? free : 0n;
    // The family's quote, read fresh: a native sweep moves everything free but its fee at a
    // plain transfer's limit; a token sweep's transfer is estimated (with the family's margin).
    // Where the family lets the master pay the fee (Solana), the master is the fee payer and
    // signs too: the child sends everything it holds and needs no native coin of its own.
    const sponsored = offers(adapter, 'feeSponsorship');
    const payer = sponsored ? { feePayer: wallet.address } : {};
    // A native transfer is quoted moving all that is free: the most it will move (a family may
    // price a transfer by its size, which grows with the amount; wholeNative below).
    const transfer: TxIntent = native
      ? { kind: 'native', from: address.address, to: wallet.address, amount: moved, ...payer }
      : { kind: 'token', from: address.address, token: asset.row.address, to: wallet.address, amount: moved, ...payer };
    let gone: string | null = null;
    let quote: FeeQuote | null = null;
    const inFlight = claimed > 0n && free <= 0n && (native ? nativeBalance! : tokenBalance!) > 0n;
    if (inFlight) gone = HELD;
    else if (!native && free <= 0n) gone = GONE;
    else if (native && free <= 0n) gone = sponsored ? GONE : GONE_NATIVE;
    else {
      try {
        // The coin's whole balance less its fee: the family prices the transfer exactly (no margin left behind).
        // A token sweep of the whole balance: the family may give back what holding it cost (Solana: the account's rent).
        const whole = native ? (sponsored ? {} : { wholeNative: true }) : claimed > 0n ? {} : { wholeBalance: true };
        quote = await adapter.sender.quote(transfer, {}, { fresh: true, ...whole });
      } catch (err) {
        // The node says the transfer cannot succeed (it reverts: the balance is being moved by
        // a pending transaction, or the token refuses the address). Asking again will not
        // change that; anything else (the node unreachable) is thrown and the job retried.
        if (!(err instanceof ChainRejectedError) || err.retryable) throw err;
        gone = `${GONE_PENDING} (${err.message.slice(0, 300)})`;
      }
    }
    const amount = native ? free - (sponsored ? 0n : (quote?.fee ?? 0n)) : free;
    // A token sweep's fee: the family says whether the master must send the child something
    // first, or lend it resources from the master's stake and take them back after.
    const funding =
      native || !quote
        ? null
        : await adapter.sender.planChildFunding({
            child: address.address,
            master: wallet.address,
            // What the address's own spends in flight hold of the native coin (their fees, native
            // payouts) is not the sweep's to use, nor what AML screening holds there: the master pays instead.
            nativeBalance: nativeBalance! > held.native + amlHeld ? nativeBalance! - held.native - amlHeld : 0n,
            value: 0n,
            network: quote.network,
            // Another sweep or a payout of the child under way may use what the chain gives it for free first.
            spendsInFlight: held.pending !== '',
          });
    const topup = funding?.kind === 'transfer' ? funding.amount : funding?.kind === 'lend' ? funding.transfer : 0n;
    const lend = funding?.kind === 'lend' ? funding : null;
    // What the transfer may cost the child itself, held against the child's own withdrawals
    // while the sweep is in flight (withdrawals/store.ts heldBack): nothing where the master
    // pays as fee payer; where resources are lent, the TRX sent for what cannot be lent.
    const childFee = sponsored || !quote ? 0n : lend ? lend.transfer : quote.fee;
    // Where the master pays as fee payer, the transfer's whole fee (a created account's rent
    // included) is the master's to hold while the sweep is in flight: a payout of the master's
    // coin accepted meanwhile would otherwise leave one of the two to fail on chain.
    const payerFee = sponsored && quote ? quote.fee : 0n;
    if (!gone && amount <= 0n) gone = native ? GONE_NATIVE : GONE;
    // The address's first send (and the master's top-up), their nonces read before the lock;
    // and the master's balance, which must pay the top-up beside its own pending spends.
    // What the master's own steps cost it, beside the top-up's value: the lend and the give-back
    // (each quoted as the master sends it), held at the master while the sweep is in flight.
    const masterStep = (network: NetworkData) =>
      adapter.sender.quote({ kind: 'native', from: wallet.address, to: address.address, amount: 0n }, network).then((q) => q.fee);
    const [, master, topupFee, lendFee] = await Promise.all([
      gone ? null : this.outbound.ready(chain, [address.address, wallet.address]),
      !gone && (topup > 0n || lend || payerFee > 0n) ? this.withdrawals.readFunder(chain, wallet.address) : null,
      // What sending the top-up costs the master (a plain transfer of the native coin, also where
      // resources are lent and only the rest is sent), not the child's own transfer's fee.
      !gone && topup > 0n
        ? adapter.sender.quote({ kind: 'native', from: wallet.address, to: address.address, amount: topup }).then((q) => q.fee)
        : 0n,
      !gone && lend ? Promise.all([masterStep(lend.lend), masterStep(lend.giveBack)]) : ([0n, 0n] as const),
    ]);
    const masterFee = topupFee + lendFee[0] + lendFee[1] + payerFee;

    return this.db.transaction().execute(async (tx) => {
      const locked = await store.lockAddress(tx, addressId);
      if (!locked) return 'nothing';
      // The child's withdrawals are judged under this lock against what its sweeps hold: from
      // here until the commit none can be accepted. The plan stands only if the child's spends
      // are still those it was made with and none settled since T (a balance read may or may
      // not show it); otherwise it is made again from fresh reads. A top-up is the master's
      // spend: its lock too (in address order, as every spend of two addresses takes them).
      await this.withdrawals.lockSenders(tx, chain, master ? [address.address, wallet.address] : [address.address]);
      // A sweep in flight here first: whatever changed since the plan (that sweep, started or
      // settled), none is started beside it. A twin request asked at the same moment answers
      // that one instead of planning again until its tries run out.
      if (await store.activeSweep(tx, addressId, assetId)) return 'in-flight';
      const now = await this.withdrawals.inFlight(chain, address.address, assetId, { db: tx, since });
      if (now.settledSince > 0 || now.pending !== held.pending) return REPLAN;
      // A rule that took a deposit here since the reads, or planned one: its share is not the sweep's.
      if ((await store.takenByRules(tx, addressId, assetId)) !== taken) return REPLAN;
      if (await store.holdsAmlHeld(tx, addressId, assetId)) return 'held';
      // A native deposit held since the plan was made: planned again, so the top-up covers the fee.
      if (!native && (await store.amlHeldNative(tx, addressId)) !== amlHeld) return REPLAN;
      const deposits = await store.unsweptDeposits(tx, addressId, assetId);
      if (deposits.length === 0) return 'nothing';
      // The key is checked again under the row lock that removing an imported address takes:
      // the read above was made before the chain reads, and the wallet may have removed the
      // address (and forgotten its key) since. Without a key nothing could sign the sweep; a
      // top-up sent now would pay an address the service no longer holds.
      if (locked.derivation_index === null && !locked.key_imported) {
        this.logger.warn({ addressId, assetId }, 'the key of the address is gone; nothing to sweep');
        return opts.manual
          ? 'nothing'
          : this.endUnswept(tx, { walletId: wallet.id, addressId, chainId: chain.id, assetId }, deposits, KEY_GONE);
      }
      // Nothing is free while the address's own spends settle: the API says so (409); an
      // automatic sweep ends the deposits' sweep failed with that reason, as when funds are gone.
      if (inFlight && opts.manual) return 'funds-in-flight';
      if (gone) {
        this.logger.warn({ addressId, assetId, reason: gone }, 'nothing to sweep');
        return opts.manual
          ? 'nothing'
          : this.endUnswept(tx, { walletId: wallet.id, addressId, chainId: chain.id, assetId }, deposits, gone);
      }
      if (master) {
        // The top-up, the lend and give-back the master sends, and the fees it pays as fee
        // payer must not spend what the master's pending withdrawals (and other spends) hold.
        const short = await this.withdrawals
          .checkTopup(tx, chain, address.address, { address: wallet.address, value: topup, fee: masterFee }, master)
          .then(
            () => null,
            (err: unknown) => {
              if (err instanceof BusinessRuleError && err.code === 'INSUFFICIENT_BALANCE' && !opts.manual) return err.message;
              throw err;
            },
          );
        if (short) {
          this.logger.warn({ addressId, assetId, reason: short }, 'the master cannot pay the sweep top-up');
          return this.endUnswept(tx, { walletId: wallet.id, addressId, chainId: chain.id, assetId }, deposits, short);
        }
      }
      const sweepId = uuidv7();
      await store.insertSweep(tx, {
        id: sweepId,
        walletId: wallet.id,
        addressId,
        chainId: chain.id,
        assetId,
        status: 'pending',
        stage: topup > 0n ? 'topup' : lend ? 'lend' : 'transfer',
        amount,
        // What the transfer is signed with (enqueueTransfer): what the top-up, if any, paid for.
        network: adapter.sender.fundedNetwork(quote!),
        lend: lend?.lend ?? null,
        giveBack: lend?.giveBack ?? null,
        reservedFee: childFee,
        masterFee,
        // Its top-up's and lend's parts: no longer held once that step is mined (heldBack).
        masterFeeSteps: { topup: topupFee, lend: lendFee[0] },
      });
      await this.transactions.attachToSweep(
        tx,
        sweepId,
        deposits.map((d) => d.id),
      );
      if (topup > 0n) {
        const sent = await this.outbound.enqueue(tx, {
          chainId: chain.id,
          walletId: wallet.id,
          fromIndex: 0,
          intent: { kind: 'native', to: address.address, amount: topup },
          purpose: 'sweep-topup' satisfies Purpose,
          ownerId: sweepId,
        });
        await store.setOutbound(tx, sweepId, 'topup', sent.id);
      } else {
        await this.steps.next(tx, (await store.lockSweep(tx, sweepId))!);
      }
      return 'started';
    });
  }

  /**
   * Deposits whose funds are no longer at the address. Those an earlier sweep already carried
   * to the master (it moved the whole balance, theirs included, before they were confirmed)
   * are marked swept by it. The others get a sweep that ends failed at once, with the reason,
   * reported once: deposits already reported (their last sweep failed) are not reported again
   * until a sweep is tried for them anew (the next deposit's, or the API's).
   */
  private async endUnswept(
    tx: DbConn,
    at: { walletId: string; addressId: string; chainId: string; assetId: string },
    deposits: store.SweepableDeposit[],
    reason: string,
  ): Promise<SweepResult> {
    const mined = deposits.filter((d) => d.block_number !== null).map((d) => BigInt(d.block_number!));
    const earliest = mined.reduce((a, b) => (b < a ? b : a), mined[0] ?? 0n);
    const carriers = mined.length ? await store.carrierSweeps(tx, at.addressId, at.assetId, earliest - 1n) : [];
    const carried = new Map<string, store.SweepableDeposit[]>();
    const unreported: store.SweepableDeposit[] = [];
    const blockOf = (d: store.SweepableDeposit) => (d.block_number === null ? -1n : BigInt(d.block_number));
    const byBlock = [...deposits].sort((a, b) => (blockOf(a) < blockOf(b) ? -1 : blockOf(a) > blockOf(b) ? 1 : 0));
    for (const d of byBlock) {
      // Only a deposit mined before a sweep's transfer can have gone with it (one mined since,
      // its funds gone another way, e.g. withdrawn from the address, was not swept): the first
      // such sweep that moved enough beyond the deposits it is recorded for took it along.
      const carrier =
        d.block_number === null ? undefined : carriers.find((c) => BigInt(d.block_number!) < c.block && BigInt(d.amount) <= c.surplus);
      if (carrier) {
        carrier.surplus -= BigInt(d.amount);
        carried.set(carrier.id, [...(carried.get(carrier.id) ?? []), d]);
      } else if (d.sweep_id === null) unreported.push(d);
    }
    for (const [sweepId, list] of carried) {
      const sweep = (await store.lockSweep(tx, sweepId))!;
      await this.transactions.attachToSweep(
        tx,
        sweep.id,
        list.map((d) => d.id),
      );
      await this.steps.markSwept(tx, sweep, (await this.outbound.get(sweep.transfer_outbound_id!, tx))!, list);
      await this.events.emit('sweep.completed', tx, { sweepId: sweep.id, depositIds: list.map((d) => d.id) });
    }
    if (unreported.length === 0) return 'nothing';
    const sweepId = uuidv7();
    await store.insertSweep(tx, {
      ...at,
      id: sweepId,
      status: 'failed',
      stage: 'failed',
      amount: unreported.reduce((sum, d) => sum + BigInt(d.amount), 0n),
      error: reason,
    });
    await this.transactions.attachToSweep(
      tx,
      sweepId,
      unreported.map((d) => d.id),
    );
    await this.steps.reportFailure(tx, sweepId, reason);
    return 'failed';
  }

  /** POST .../transactions/sweep/assets: sweeps a confirmed deposit now. */
  async manualSweep(auth: AuthContext, walletId: string, transactionId: string): Promise<TransactionView> {
    await this.wallets.require(auth, walletId);
    const d = await store.depositForSweep(this.db, walletId, transactionId);
    if (!d) throw new NotFoundError('Transaction');
    if (d.type !== 'DEPOSIT') throw new BusinessRuleError('NOT_A_DEPOSIT', 'Only deposits are swept');
    if (!d.address_id || !d.asset_id) throw new BusinessRuleError('NOT_SWEEPABLE', 'This deposit is already on the master address');
    const address = await this.addresses.findRow(d.address_id);
    if (address?.type !== 'INTERNAL' && !address?.key_imported)
      throw new BusinessRuleError('NOT_SWEEPABLE', 'The service holds no key for an external address');
    if (d.asset_swept) throw new ConflictError('ALREADY_SWEPT', 'This deposit has already been swept');
    if (d.status !== 'SUCCESS') throw new ConflictError('DEPOSIT_NOT_CONFIRMED', 'Only confirmed deposits are swept');
    if (d.sweep_id && d.sweep_status === 'pending') return this.transactions.get(auth, walletId, transactionId);
    const result = await this.sweepAddress(d.address_id, d.asset_id, { manual: true });
    if (result === 'held')
      throw new BusinessRuleError(
        'AML_HELD',
        'A deposit of this asset at this address is held by AML screening (a listed sender); release it first (POST .../transactions/{id}/aml/release)',
      );
    if (result === 'funds-in-flight') {
      throw new ConflictError(
        'FUNDS_IN_FLIGHT',
        'What the address holds of this asset is held by its own withdrawals in flight: nothing is free to sweep until they settle',
      );
    }
    if (result === 'nothing') {
      // A twin request (or the sweep job) may have swept it meanwhile, the balance read after
      // its transfer: this deposit's sweep, not an empty address.
      const now = await store.depositForSweep(this.db, walletId, transactionId);
      if (!now?.asset_swept && !(now?.sweep_id && now.sweep_status === 'pending'))
        throw new BusinessRuleError('NOTHING_TO_SWEEP', 'The address holds none of this asset to sweep');
    }
    return this.transactions.get(auth, walletId, transactionId);
  }

  /** outbound.settled of 'sweep-topup' (src/subscriptions.ts): steps.ts. */
  topupSettled(tx: DbConn, row: OutboundRow): Promise<void> {
    return this.steps.topupSettled(tx, row);
  }

  /** outbound.settled of 'sweep-lend': steps.ts. */
  lendSettled(tx: DbConn, row: OutboundRow): Promise<void> {
    return this.steps.lendSettled(tx, row);
  }

  /** outbound.settled of 'sweep': steps.ts. */
  transferSettled(tx: DbConn, row: OutboundRow): Promise<void> {
    return this.steps.transferSettled(tx, row);
  }

  /** outbound.settled of 'sweep-give-back': steps.ts. */
  giveBackSettled(tx: DbConn, row: OutboundRow): Promise<void> {
    return this.steps.giveBackSettled(tx, row);
  }
}
