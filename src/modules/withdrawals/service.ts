/**
 * Withdrawals from a master wallet or a child address: single or batch, broadcast (through
 * the outbound pipeline) or sign-only, and their network fee.
 *
 * A broadcast withdrawal is created in one database transaction with its outbound row (and
 * so its nonce and send job), under the sender's lock, after the balance check against the
 * chain and the sender's pending withdrawals (funds.ts): two requests can never both spend
 * the same funds, and a request that fails writes nothing. Concurrent requests of one
 * sender share that transaction (group commit, batcher.ts and create.ts), each judged as
 * if it were alone. The API only accepts, reserves and enqueues: signing, broadcasting and
 * tracking are the worker's (outbound pipeline). Completion, cancel and retry are in
 * lifecycle.ts; signing a sign-only withdrawal in sign-only.ts; what other spends of the
 * wallet's funds go through (the sender's lock, the whitelist, screening) in guards.ts.
 */
import { isUniqueViolation, type DbConn } from '../../db/pool.js';

import { BusinessRuleError, UpstreamError } from '../../lib/errors.js';
import { shortReference } from '../../lib/ids.js';
import { formatAmount } from '../../lib/money.js';
import { rateText, usdValue } from '../rates/service.js';
import type { AuthContext } from '../apikeys/service.js';
import type { AmlScreening } from '../aml/service.js';

import type { AssetHandle, ChainHandle } from '../catalogue/service.js';

import type { TransactionView } from '../transactions/service.js';
import type { WalletRow } from '../wallets/service.js';

import { GroupQueue } from './batcher.js';
import { FreshCoalescer } from './coalesce.js';
import { createBatch, original, type CreateJob, type CreateResult } from './create.js';
import { affordable, chargedFees, checkAgainstPending, sponsorOf, type GasPlan, type Snapshot } from './funds.js';
import { DbClock } from './db-clock.js';
import {
  checkTopup,
  checkWhitelist,
  checkWhitelistOf,
  heldByAllowances,
  inFlight,
  lockSenders,
  readFunder,
  reserveForMove,
  readForMove,
  type MoveRead,
  screen,
  screenRecipient,
  type InFlight,
  type MoveReservation,
} from './guards.js';
import { gasOptions } from './gas-options.js';
import { networkFeeAnswer, type NetworkFeeAnswer } from './network-fee.js';
import { KeyTaken, fingerprint, remember, replay, type IdempotencyKey } from './idempotency.js';
import { WithdrawalLifecycle } from './lifecycle.js';
import { beneficiariesOf, checkMoves, prepareMoves, reserveMoves, type OwnerSpends, type PreparedMoves } from './moves.js';

export type { OwnerSpends, PreparedMoves, Spend } from './moves.js';
export type { MoveRead } from './guards.js';
export type { MoveStanding } from './standing.js';
import { requireMoveStanding, type MoveStanding, type ScreeningSeen } from './standing.js';
import { signOnly } from './sign-only.js';
import { candidateOf, policyRefusal } from './approval.js';
import * as store from './store.js';
import type { WithdrawBody } from './schemas.js';
import { checkItems, type Item } from './validate.js';
import type { Sender, SenderAccess, WithdrawRequest, WithdrawResult, WithdrawalServiceDeps } from './types.js';
import { addressKey } from '../../chains/address-key.js';

export type { Sender, WithdrawRequest, WithdrawResult, WithdrawalServiceDeps } from './types.js';

/**
 * Requests of one sender per creating transaction. Each transaction pays about a dozen
 * round trips and one fsync whatever its size; a burst of 500 then takes two transactions
 * instead of five. It bounds how long the sender's lock is held (a few hundred ms under
 * load), which only other requests of the same sender wait for.
 */
const MAX_BATCH = 250;

/**
 * How many times a request waits for a twin holding its Idempotency-Key that is then
 * refused (giving the key back) before it answers 503 CONCURRENT_UPDATE.
 */
const MAX_KEY_TURNS = 50;

/** How long an Idempotency-Key is remembered. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

export class WithdrawalService implements SenderAccess {
  readonly lifecycle: WithdrawalLifecycle;
  readonly #senders: GroupQueue<CreateJob, CreateResult>;
  readonly clock = new DbClock();
  /** Concurrent requests to one wallet share its read (never one that began before they asked). */
  readonly #walletReads = new FreshCoalescer<WalletRow>();

  constructor(readonly deps: WithdrawalServiceDeps) {
    this.lifecycle = new WithdrawalLifecycle(deps, this);
    this.#senders = new GroupQueue(
      (jobs) =>
        createBatch(deps, jobs, {
          row: (s, item, id, reservedFee) => this.#row(s, item, id, 'WITHDRAW', reservedFee, null),
          respond: (tx, ids, key, single) => this.#respond(tx, ids, key, single),
        }),
      MAX_BATCH,
    );
  }

  /** POST .../withdraw and .../addresses/{addressId}/withdraw. */
  withdraw(auth: AuthContext, req: WithdrawRequest): Promise<WithdrawResult> {
    return this.#idempotent(auth, req, 'withdraw', async (s, items, key) => {
      // A rule that blocks the request answers before any chain read (the accepting
      // transaction decides again, under its locks: create.ts).
      await this.#precheck(auth, s, items, !req.body.assets);
      // References and the whitelist are checked in the creating transaction (create.ts).
      // Items whose reference is already paid need no funds, their original is the answer:
      // so when the costs are refused, those items are looked up and left out.
      let fresh = items.map((_item, i) => i);
      let costs: { plan: GasPlan; snap: Snapshot } | null;
      try {
        costs = await this.#affordable(s, items, req.body);
      } catch (err) {
        if (!(err instanceof BusinessRuleError) || !items.some((i) => i.reference)) throw err;
        fresh = await this.#fresh(s, items, 'WITHDRAW');
        if (fresh.length === items.length) throw err;
        costs = fresh.length > 0 ? await this.#affordable(s, pick(items, fresh), req.body) : null;
      }
      return this.#create(auth, s, items, fresh, costs, key, !req.body.assets, req.settlesTo);
    });
  }

  /** POST .../addresses/{addressId}/withdraw/sign: signed, stored, never broadcast by us. */
  sign(auth: AuthContext, req: WithdrawRequest): Promise<WithdrawResult> {
    return this.#idempotent(auth, req, 'sign', async (s, items, key) => {
      // Before anything is signed.
      await this.#precheck(auth, s, items, !req.body.assets, true);
      const fresh = await this.#fresh(s, items, 'SIGNED');
      const costs = fresh.length > 0 ? await this.#affordable(s, pick(items, fresh), req.body) : null;
      // Sign-only reserves nothing, but must not spend what pending withdrawals hold.
      if (costs) await checkAgainstPending(this.deps.db, s.chain, s.address, pick(items, fresh), chargedFees(costs.plan), costs.snap);
      return signOnly(
        this.deps,
        { auth, s, items, fresh, plan: costs?.plan ?? null, key, single: !req.body.assets },
        {
          existing: (tx, s, items) => this.#existing(tx, s, items, 'SIGNED'),
          row: (s, item, id, signed) => this.#row(s, item, id, 'SIGNED', null, signed),
          respond: (tx, ids, key, single) => this.#respond(tx, ids, key, single),
        },
      );
    });
  }

  /** POST .../withdraw/network-fee: what the same request would cost in gas, and the sender's native balance (network-fee.ts). */
  async networkFee(auth: AuthContext, req: Omit<WithdrawRequest, 'idempotencyKey'>): Promise<NetworkFeeAnswer> {
    gasOptions(req.body);
    const s = await this.sender(auth, req.walletId, req.addressId);
    const items = await checkItems(this.deps.walletAssets, s.wallet, s.chain, s.address, req.body);
    const { plan, snap } = await this.#affordable(s, items, req.body);
    const native = snap.balances.get(null) ?? 0n;
    const decimals = s.chain.config.blockchain.nativeDecimals;
    // nativeBalanceInUSD: the same rate source as convertedBalance (a feed for the native coin, if configured).
    const coin = s.chain.assets.find((a) => a.is_native);
    const handle = coin ? this.deps.catalogue.asset(coin.id) : undefined;
    const quote = handle ? ((await this.deps.rates?.usd(handle)) ?? null) : null;
    const usd = quote ? usdValue(native, decimals, quote) : null;
    return networkFeeAnswer(plan, items.length, native, decimals, req.body.assets !== undefined, usd);
  }

  /**
   * Forgets Idempotency-Keys older than `retentionMs` (default 24 hours, as Stripe): a
   * retry after that is a new request (a reused `reference` still finds the original).
   * Run periodically by the worker (jobs/tasks.ts); returns how many were deleted.
   */
  async pruneIdempotencyKeys(retentionMs = IDEMPOTENCY_RETENTION_MS, chunk = 5_000): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await store.pruneKeys(this.deps.db, retentionMs, chunk);
      total += n;
      if (n < chunk) return total;
    }
  }

  /** The sending address of a request; a foreign wallet or address is a 404. `read`: the wallet as this request read it already. */
  async sender(auth: AuthContext, walletId: string, addressId: string | null, read?: WalletRow): Promise<Sender> {
    const wallet = read ?? (await this.#wallet(auth, walletId));
    if (!wallet.is_active) throw new BusinessRuleError('WALLET_INACTIVE', 'This wallet is deactivated');
    const chain = this.deps.wallets.chainOf(wallet);
    if (addressId === null) return { wallet, chain, address: wallet.address, index: 0, addressId: null, addressMetadata: null };
    const { address } = await this.deps.addresses.require(auth, walletId, addressId);
    if (address.type !== 'INTERNAL' || address.derivation_index === null) {
      // An address whose key was imported is signed for, but only to sweep it to the master or
      // recover funds from it (docs/withdrawals.md): payouts leave from derived addresses.
      throw new BusinessRuleError(
        'NO_PRIVATE_KEY',
        address.key_imported
          ? 'This address is an imported key: its funds are swept to the master or recovered (POST .../salvage), not sent from it'
          : 'The service holds no key for an external address: it cannot send from it',
      );
    }
    return {
      wallet,
      chain,
      address: address.address,
      index: address.derivation_index,
      addressId,
      addressMetadata: (address.metadata as Record<string, unknown> | null) ?? null,
    };
  }

  /** The wallet the key reaches (a 404 otherwise), whatever its standing. */
  #wallet(auth: AuthContext, walletId: string): Promise<WalletRow> {
    // The key holds everything `require` depends on: the same key always has the same answer (a row or a 404).
    return this.#walletReads.load(`${walletId}|${auth.businessId}|${auth.walletId ?? ''}`, () => this.deps.wallets.require(auth, walletId));
  }

  /**
   * Runs `fn` (which opens a transaction and takes store.lockSender) alone, after the
   * sender's earlier requests in this process: see batcher.ts.
   */
  serialise<T>(s: Sender, fn: () => Promise<T>): Promise<T> {
    return this.#senders.solo(senderKey(s), fn);
  }

  /**
   * What other modules' spends ask of withdrawals (guards.ts): the sender's lock and funds, the
   * whitelist, AML screening. A spend under transaction policies decides them in `policies`,
   * run under the sender's lock (its withdrawal lock before the velocity windows, as withdrawals).
   */
  reserveForMove(tx: DbConn, m: MoveReservation, read: MoveRead, policies?: () => Promise<void>): Promise<void> {
    return reserveForMove(this.deps, tx, m, read, policies);
  }

  /** Before the transaction that reserves a move (reserveForMove): what it reads of the chain. */
  readForMove(
    m: Pick<MoveReservation, 'chain' | 'sender' | 'asset'> & { funder?: string },
    also: string[] = [],
    db?: DbConn,
  ): Promise<MoveRead> {
    return readForMove(this.deps, m, also, db);
  }

  /** Moves of the wallet's funds by contract writes, under the withdrawal rules: see moves.ts. */
  prepareMoves(chain: ChainHandle, owners: OwnerSpends[]): Promise<PreparedMoves> {
    return prepareMoves(this.deps.db, chain, owners, this.clock);
  }

  /** `screenings`: what the moves' AML screening found (standing.ts MoveStanding). */
  reserveMoves(tx: DbConn, walletId: string, prepared: PreparedMoves, screenings?: readonly ScreeningSeen[]): Promise<void> {
    return reserveMoves(this.deps, tx, walletId, prepared, screenings);
  }

  /**
   * A client's move accepted outside reserveForMove / reserveMoves (a sign-only contract
   * write's recording transaction, a recovery with nothing to hold): the wallet's standing
   * read in `tx` under its lock, held to the COMMIT (standing.ts requireMoveStanding).
   */
  async requireStanding(tx: DbConn, standing: MoveStanding): Promise<void> {
    await requireMoveStanding(this.deps, tx, standing);
  }

  checkMoves(walletId: string, prepared: PreparedMoves): Promise<void> {
    return checkMoves(this.deps.db, walletId, prepared);
  }

  /** For a sign-only contract write's recording transaction: the standing reserveMoves reads (active, whitelist), held to its COMMIT. */
  async requireMovesStanding(tx: DbConn, walletId: string, prepared: PreparedMoves, screenings?: readonly ScreeningSeen[]): Promise<void> {
    await requireMoveStanding(this.deps, tx, { walletId, beneficiaries: { items: beneficiariesOf(prepared.owners) }, screenings });
  }

  checkWhitelist(walletId: string, items: Item[], db: DbConn = this.deps.db): Promise<void> {
    return checkWhitelist(db, walletId, items);
  }

  checkWhitelistOf(walletId: string, address: string, field: string, db: DbConn = this.deps.db, held = false): Promise<void> {
    return checkWhitelistOf(db, walletId, address, field, held);
  }

  inFlight(chain: ChainHandle, sender: string, assetId: string, opts: { db?: DbConn; since?: Date } = {}): Promise<InFlight> {
    return inFlight(opts.db ?? this.deps.db, chain, sender, assetId, opts.since);
  }

  /**
   * Senders' withdrawal locks (store.lockSender, in address order), for a move planned outside
   * withdrawals that re-reads inFlight under them (a sweep: the child's, and the master's when
   * it sends a top-up).
   */
  lockSenders(tx: DbConn, chain: ChainHandle, senders: string[]): Promise<void> {
    return lockSenders(tx, chain, senders);
  }

  /** A master's top-up of a child judged against the master's pending spends (guards.ts checkTopup), under lockSenders. */
  checkTopup(
    tx: DbConn,
    chain: ChainHandle,
    to: string,
    funder: { address: string; value: bigint; fee: bigint },
    snap: Snapshot,
  ): Promise<void> {
    return checkTopup(tx, chain, to, funder, snap);
  }

  /** The owner's standing allowances per token asset (guards.ts heldByAllowances). */
  heldByAllowances(chain: ChainHandle, owner: string, assets: AssetHandle[]): Promise<Map<string, bigint>> {
    return heldByAllowances(this.deps.db, chain, owner, assets);
  }

  /** What checkTopup judges on, read before the transaction. */
  readFunder(chain: ChainHandle, funder: string): Promise<Snapshot> {
    return readFunder(this.deps.db, chain, funder);
  }

  screenRecipient(
    auth: AuthContext,
    wallet: WalletRow,
    chain: ChainHandle,
    recipient: string,
    operation: string,
  ): Promise<AmlScreening | null> {
    return screenRecipient(this.deps, auth, wallet, chain, recipient, operation);
  }

  screen(auth: AuthContext, s: Sender, items: Item[], operation: string): Promise<void> {
    return screen(this.deps, auth, s, items, operation);
  }

  /** `body`'s gas options (gas-options.ts) apply to every transaction of the request. */
  #affordable(s: Sender, items: Item[], body: WithdrawBody): Promise<{ plan: GasPlan; snap: Snapshot }> {
    // A child on a family with sponsored fees (Solana): its master pays and signs as fee payer.
    return affordable(
      this.deps.db,
      s.chain,
      s.address,
      items,
      this.clock,
      gasOptions(body),
      sponsorOf(s.chain, s.address, s.wallet.address),
    );
  }

  /**
   * Common frame: sender, Idempotency-Key replay, item checks, whitelist, then `run`. A
   * concurrent twin holding the same key, or the same reference, is waited for and then
   * answered from what it stored (a reference: one retry; a key a refused twin gave back:
   * run again, as often as twins take turns holding it).
   */
  async #idempotent(
    auth: AuthContext,
    req: WithdrawRequest,
    op: 'withdraw' | 'sign',
    run: (s: Sender, items: Item[], key: IdempotencyKey | null) => Promise<WithdrawResult>,
  ): Promise<WithdrawResult> {
    gasOptions(req.body); // a nonce or a bad gas field: 400 before anything is read
    // A stored answer is given as it was, before the wallet's standing is looked at: a
    // retry of a withdrawal that was made (its answer lost) must learn that it was made,
    // not be refused because the wallet (or the address, named in the fingerprint, which
    // the first request checked) was deactivated since. The key reaching the wallet is all
    // a replay needs; anything else answers as for a new request.
    // Without a key nothing is replayed: the wallet is read once, by `sender`.
    const wallet = req.idempotencyKey ? await this.#wallet(auth, req.walletId) : undefined;
    const key =
      wallet && req.idempotencyKey
        ? {
            walletId: wallet.id,
            key: req.idempotencyKey,
            fingerprint: fingerprint(`${op}:${req.walletId}:${req.addressId ?? 'master'}`, req.body),
          }
        : null;
    const early = key ? await replay(this.deps.db, key).catch((err: unknown) => ({ refused: err })) : null;
    if (early && 'response' in early) return early.response as WithdrawResult;
    const s = await this.sender(auth, req.walletId, req.addressId, wallet);
    // A key used for another request: refused after what a new request is refused for first (a foreign address's 404).
    if (early) throw early.refused;
    const items = await checkItems(this.deps.walletAssets, s.wallet, s.chain, s.address, req.body);
    // Every destination screened before anything is reserved or signed: a listed one is 422
    // AML_BLOCKED (audited), nothing written (modules/aml). Meanwhile the USD quotes that
    // amountUSD and rateUSD are recorded from are read (outside the transaction; never fails).
    await Promise.all([
      this.screen(auth, s, items, op === 'sign' ? 'withdraw-sign' : 'withdraw'),
      this.deps.rates?.prefetch(items.map((i) => i.asset.asset.row.id)),
    ]);
    // A broadcast withdrawal's whitelist is checked in its creating transaction (create.ts).
    if (op === 'sign') await this.checkWhitelist(s.wallet.id, items);
    let referenceRetried = false;
    for (let turns = 0; ;) {
      try {
        return await run(s, items, key);
      } catch (err) {
        if (err instanceof KeyTaken) {
          // A twin held the key (earlier in the same batch, or committed first): its answer, once stored.
          const stored = await replay(this.deps.db, key!);
          if (stored) return stored.response as WithdrawResult;
          // Nothing stored: the twin was refused and gave the key back (create.ts), so this
          // request is judged itself. Twins given back the key together take turns holding
          // it again, each turn ending one of them, so this ends; bounded all the same.
          if (++turns < MAX_KEY_TURNS) continue;
          throw new UpstreamError(
            'CONCURRENT_UPDATE',
            'Other requests with this Idempotency-Key kept holding it; nothing was written for this one, send it again',
          );
        }
        // Tried once more: a (wallet, reference) a concurrent request took first.
        if (referenceRetried || !isUniqueViolation(err, 'transactions_wallet_id_reference_key')) throw err;
        referenceRetried = true;
      }
    }
  }

  async #precheck(auth: AuthContext, s: Sender, items: Item[], single: boolean, signOnly = false): Promise<void> {
    const blocked = await this.deps.policies.precheck(
      s.wallet.business_id,
      items.map((item) => candidateOf(this.deps, auth, s, item, single, signOnly)),
      signOnly,
    );
    if (blocked) throw policyRefusal(items[blocked.index]!, blocked.decision);
  }

  /** Queues the request for its sender's next transaction (create.ts) and answers it after the commit. */
  async #create(
    auth: AuthContext,
    s: Sender,
    items: Item[],
    fresh: number[],
    costs: { plan: GasPlan; snap: Snapshot } | null,
    key: IdempotencyKey | null,
    single: boolean,
    settlesTo?: string,
  ): Promise<WithdrawResult> {
    // An item without a reference gets its generated one here, once for every run of this
    // request: a batch whose commit fails in a way that may have committed (the connection
    // lost during COMMIT) is run again one request at a time (batcher.ts), and the run then
    // finds the request's Transactions by these references (create.ts, `original`) instead of
    // writing, and paying, them a second time. Keyed requests are safe by their key alone.
    const named = items.map((item) => (item.reference ? item : { ...item, reference: shortReference() }));
    const done = await this.#senders.submit(senderKey(s), {
      auth,
      s,
      items: named,
      fresh,
      costs,
      key,
      single,
      ...(settlesTo ? { settlesTo } : {}),
    });
    if ('data' in done) return done.data;
    // Without a key the response is read after the commit, so the sender's lock is not held for it.
    const views = await done.views;
    const data = done.ids.map((id) => views.get(id)!);
    return single ? data[0]! : data;
  }

  async #respond(db: DbConn, ids: string[], key: IdempotencyKey | null, single: boolean): Promise<WithdrawResult> {
    const views: TransactionView[] = [];
    for (const id of ids) views.push(await this.deps.transactions.load(id, db));
    const data = single ? views[0]! : views;
    if (key) await remember(db, key, data);
    return data;
  }

  /** Indexes of the items whose reference (if any) is not on the wallet yet. */
  async #fresh(s: Sender, items: Item[], type: 'WITHDRAW' | 'SIGNED'): Promise<number[]> {
    const existing = await this.#existing(this.deps.db, s, items, type);
    return items.flatMap((_item, i) => (existing[i] ? [] : [i]));
  }

  /**
   * Items whose `reference` is already on the wallet: the original is returned instead of
   * paying twice, provided it is the same payment; anything else under the reference is a 409.
   */
  async #existing(db: DbConn, s: Sender, items: Item[], type: 'WITHDRAW' | 'SIGNED'): Promise<(string | undefined)[]> {
    const refs = items.flatMap((i) => (i.reference ? [i.reference] : []));
    const found = await store.findByReferences(db, s.wallet.id, refs);
    return items.map((item) => original(s, item, item.reference ? found.get(item.reference) : undefined, type));
  }

  #row(
    s: Sender,
    item: Item,
    id: string,
    type: 'WITHDRAW' | 'SIGNED',
    reservedFee: bigint | null,
    signed: store.NewWithdrawal['signed'],
  ): Omit<store.NewWithdrawal, 'counted'> {
    const a = item.asset.asset.row;
    const quote = this.deps.rates?.cached(a.id) ?? null;
    return {
      id,
      walletId: s.wallet.id,
      addressId: s.addressId,
      assetId: a.id,
      chainId: s.chain.id,
      reference: item.reference ?? shortReference(),
      type,
      amount: item.amount,
      amountUsd: quote ? usdValue(item.amount, a.decimals, quote) : null,
      rateUsd: quote ? rateText(quote) : null,
      currency: a.symbol,
      sender: s.address,
      recipient: item.to,
      token: a.is_native ? null : a.address,
      note: item.note,
      metadata: item.metadata ?? s.addressMetadata,
      network: s.chain.row.network,
      reservedFee,
      nonce: null,
      signed,
      ...(item.aml ? { amlScreening: item.aml } : {}),
    };
  }
}

const pick = <T>(list: T[], indexes: number[]): T[] => indexes.map((i) => list[i]!);

const senderKey = (s: Sender) => `${s.chain.id}:${addressKey(s.address)}`;
