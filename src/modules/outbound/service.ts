/**
 * The outbound pipeline: every transaction we send (top-ups, sweeps, withdrawals, contract
 * calls) goes created -> signed -> broadcast -> mined | failed | dropped (see migration 002).
 *
 * - enqueue (enqueue.ts): in the caller's transaction, allocate the nonce from the `nonces`
 *   counter (row lock), insert the row and its `outbound_send` job. A rollback takes all
 *   three back, so nonces have no gaps and no duplicates across callers, processes and
 *   restarts.
 * - send: sign, store raw + hash (stage signed) and queue the status check in one
 *   transaction, THEN broadcast. A signed row is never signed again: after a crash the
 *   stored bytes are re-broadcast, so one nonce can never become two transactions of ours.
 * - track: poll the receipt with backoff; while unmined, re-broadcast the same bytes (a
 *   node that dropped or evicted the transaction takes it back; one that has it answers
 *   "already known"). Mined: record the receipt and run the purpose's completion handler in
 *   the same database transaction (outbox style), exactly once.
 *
 * Nonce holes. A later nonce is only mined after every earlier one, so a nonce that never
 * reaches the chain blocks its sender. Holes are avoided thus:
 * - allocation is in the caller's transaction: a rollback returns the nonce;
 * - a row whose transaction would revert (gas estimation reverts once every earlier nonce
 *   is mined) is voided before signing, and a 0-value self-transfer (purpose
 *   'nonce-filler') takes its nonce in the same database transaction;
 * - a signed row is retried until a node accepts it (funds arrive, fees fall); it is never
 *   abandoned, since its bytes may already be in some node's pool;
 * - a nonce used by a transaction that is not ours (the key used elsewhere) ends the row as
 *   'dropped' after a grace period, and raises the counter to the chain's count.
 *
 * Stuck transactions (replace.ts). A signed row still unmined `replaceAfterMs` after it was
 * accepted (or whose fee cap a node refuses) is replaced: same nonce, both fee fields raised
 * by at least 10%, the original 'replaced' but still watched, since a node may mine it
 * instead; whichever version is mined settles the owner, once. Cancellation is the same
 * move with a 0-value self-transfer. Still open: a gas limit too low to ever succeed (the
 * transaction is mined and reverts; the owner sees it failed and may retry).
 *
 * Families without nonces ('expiry' ordering: Tron, Solana). No nonce is taken (the row's
 * nonce is null); a signed row whose deadline the chain's head has passed, with no version
 * landed, is rebuilt: a new row with the same call is prepared (a fresh deadline) and signed
 * again. Such a row is never sped up or cancelled once signed.
 *
 * What differs between the two is an ordering strategy (strategy.ts), both in ordering.ts,
 * which picks one per chain: the steps here never ask.
 */
import type { Db, DbConn } from '../../db/pool.js';
import type { FeeQuote, NetworkData, SignedFeeFields, SignedTransaction, TxIntent } from '../../chains/types.js';
import { intentOf } from '../../chains/intents.js';
import type { Signer } from '../../keys/signer.js';
import type { Logger } from '../../lib/logger.js';
import type { Events } from '../../events.js';
import type { CatalogueService, ChainHandle } from '../catalogue/service.js';
import type { WalletService } from '../wallets/service.js';
import { logFields, messageOf, rejectionOf } from './checks.js';
import { broadcast } from './broadcast.js';
import { minedVersion, settle, settleReceipt, signedHook, type Core } from './core.js';
import { confirm } from './confirm.js';
import { orderingOf } from './ordering.js';
import { cancel, speedUp, type CancelResult, type ReplaceResult } from './replace.js';
import type { DetachedSlot } from './strategy.js';
import { enqueueMany, type EnqueueRequest } from './enqueue.js';
import * as store from './store.js';
import type { OutboundRow } from './store.js';

export type { EnqueueRequest } from './enqueue.js';
export type { OutboundRow, Stage } from './store.js';
export { REVERTED } from './store.js';
export type { Confirmation } from '../../outbound-row.js';
export type { CancelResult, ReplaceResult } from './replace.js';
export type { DetachedSlot } from './strategy.js';
export { minedOfRecord, minedRecord, type Mined, type MinedRecord } from './mined-record.js';
import type { Mined } from './mined-record.js';

export interface OutboundOptions {
  /** First receipt check after signing; doubles per poll up to maxTrackDelayMs. */
  firstTrackDelayMs?: number;
  maxTrackDelayMs?: number;
  /** The safety net re-queues unfinished rows without progress for this long. */
  stuckAfterMs?: number;
  /** How long "nonce used by another transaction" must persist before the row is dropped. */
  conflictGraceMs?: number;
  /** Retry delay of a row that waits for its sender's earlier nonces before it is judged. */
  waitRetryMs?: number;
  /** A signed transaction unmined this long after it was accepted is replaced with bumped fees. */
  replaceAfterMs?: number;
}

export class OutboundService {
  readonly #core: Core;

  constructor(
    private readonly db: Db,
    private readonly catalogue: CatalogueService,
    private readonly wallets: WalletService,
    private readonly signer: Signer,
    events: Events,
    private readonly logger: Logger,
    opts: OutboundOptions = {},
  ) {
    this.#core = {
      db,
      catalogue,
      signer,
      logger,
      events,
      opts: {
        firstTrackDelayMs: opts.firstTrackDelayMs ?? 1_000,
        maxTrackDelayMs: opts.maxTrackDelayMs ?? 15_000,
        stuckAfterMs: opts.stuckAfterMs ?? 30_000,
        conflictGraceMs: opts.conflictGraceMs ?? 5 * 60_000,
        waitRetryMs: opts.waitRetryMs ?? 5_000,
        replaceAfterMs: opts.replaceAfterMs ?? 3 * 60_000,
      },
    };
  }

  /** One depth check of a settled row: see confirm.ts (run by `track` once the row is settled). */
  confirm(id: string, poll = 0): Promise<void> {
    return confirm(this.#core, id, poll);
  }

  /**
   * Before the transaction that enqueues from these senders opens: whatever taking their
   * slots needs from the chain (a new sender's nonce count), read where the node's answer
   * holds no connection. A flow that skips it still works; its transaction waits on the node.
   */
  async ready(chain: ChainHandle, senders: string[], db: DbConn = this.db): Promise<void> {
    const ordering = orderingOf(chain);
    // Spelled as enqueue spells its senders, so the counter seeded is the one taken.
    const spelled = senders.map((s) => chain.adapter.normalizeAddress(s) ?? s);
    for (const from of new Set(spelled)) await ordering.ready(db, chain, from);
  }

  /**
   * Must run inside the caller's transaction, as late as possible: the sender's nonce
   * counter stays locked until that transaction ends, so other sends from the same address
   * wait for it (and a caller enqueuing from several senders should lock them in one order).
   * Call `ready` for its senders before that transaction opens.
   */
  async enqueue(tx: DbConn, req: EnqueueRequest): Promise<{ id: string; nonce: bigint | null; from: string }> {
    return (await this.enqueueMany(tx, [req]))[0]!;
  }

  /**
   * enqueue for many requests in a constant number of statements per sender: consecutive
   * nonces in request order (one counter update), one insert, one job insert. Everything
   * is checked before the first write; results are in request order.
   */
  async enqueueMany(tx: DbConn, reqs: EnqueueRequest[]): Promise<{ id: string; nonce: bigint | null; from: string }[]> {
    return enqueueMany(this.catalogue, this.wallets, tx, reqs);
  }

  get(id: string, db: DbConn = this.db): Promise<OutboundRow | undefined> {
    return store.findOutbound(db, id);
  }

  ofOwner(ownerId: string, db: DbConn = this.db): Promise<OutboundRow[]> {
    return store.outboundOfOwner(db, ownerId);
  }

  /** The owners of a row's owner_id in order: a multi-owner row's group (enqueue's `owners`), else the owner itself. */
  ownersOf(ownerId: string, db: DbConn = this.db): Promise<string[]> {
    return store.ownersOf(db, ownerId);
  }

  /** The owner's unfinished rows: normally at most one, the live version of its transaction. */
  liveOf(ownerId: string, db: DbConn = this.db): Promise<OutboundRow[]> {
    return store.liveOfOwner(db, ownerId);
  }

  /** The public fee fields of a row's network data, as its family shows them (ChainAdapter.fees.ofNetwork), for records. */
  feeFields(row: OutboundRow): SignedFeeFields {
    return this.catalogue.chain(row.chainId).adapter.fees.ofNetwork(row.network);
  }

  /**
   * A settled row's receipt as the public records show it: its block, and the fee fields its
   * family maps it to (ChainAdapter.fees.ofReceipt: gasUsed x gasPrice is the fee); null
   * without a receipt.
   */
  mined(row: OutboundRow): Mined | null {
    if (!row.receipt) return null;
    return { hash: row.hash!, block: row.receipt.block, ...this.catalogue.chain(row.chainId).adapter.fees.ofReceipt(row.receipt) };
  }

  /** What the receipts of rows of one chain used besides their fees, as a sweep shows it (ChainAdapter.fees.usage). */
  usage(chainId: string, rows: (OutboundRow | undefined)[]): Record<string, string> {
    const receipts = rows.flatMap((r) => (r?.receipt ? [r.receipt] : []));
    return this.catalogue.chain(chainId).adapter.fees.usage(receipts);
  }

  /**
   * Slots and network data of transactions `from` signs for a client to broadcast
   * (sign-only), nothing reserved: see OrderingStrategy.detached (strategy.ts).
   */
  detached(chain: ChainHandle, from: string, items: { intent: TxIntent; quote: FeeQuote }[]): Promise<DetachedSlot[]> {
    return orderingOf(chain).detached(this.db, chain, from, items);
  }

  /** Why a row that ended without success did not do `what` (a reason its owner records). */
  failure(row: OutboundRow, what: string): string {
    if (row.stage === 'failed') return `the ${what} reverted on chain (the network fee was paid)`;
    if (row.stage === 'dropped') return `the ${what} was never mined: ${row.error ?? 'its nonce was used by another transaction'}`;
    if (row.stage === 'replaced') return `the ${what} was not sent: ${row.error ?? 'it would fail'}`;
    return `the ${what} did not complete: ${row.error ?? row.stage}`;
  }

  /** Job `outbound_send`: signs a created row (once) and broadcasts a signed one. */
  async send(id: string): Promise<void> {
    const row = await this.signAndStore(id);
    if (row?.stage === 'signed') await broadcast(this.#core, row);
  }

  /**
   * Signs a created row and stores raw + hash with stage 'signed', together with its first
   * status check. Any other row is returned as it is: a signed row is never signed again.
   */
  async signAndStore(id: string): Promise<OutboundRow | undefined> {
    const row = await store.findOutbound(this.db, id);
    if (!row || row.stage !== 'created') return row;
    const chain = this.catalogue.chain(row.chainId);

    const { sender } = chain.adapter;
    const intent = intentOfRow(row);
    let network: NetworkData;
    let signed: SignedTransaction;
    try {
      // The family completes what the caller did not fix (EVM: the gas limit with its margin, the fee quote).
      network = await sender.prepare(intent, row.network, row.feeCeiling === null ? {} : { feeCeiling: row.feeCeiling });
    } catch (err) {
      if (rejectionOf(err) === 'reverted') return this.#voidIfReverting(row, chain, messageOf(err));
      await store.recordError(this.db, id, messageOf(err));
      throw err;
    }
    try {
      // A fee payer other than the sender (the master) signs too: both keys lent at once.
      signed = row.feePayer
        ? await this.signer.withKeys(
            row.walletId,
            [
              { index: row.fromIndex, from: row.fromAddress },
              { index: 0, from: row.feePayer },
            ],
            ([key, payer]) => sender.sign(intent, row.nonce, network, key!, payer!),
          )
        : await this.signer.withKey(row.walletId, row.fromIndex, row.fromAddress, (key) => sender.sign(intent, row.nonce, network, key));
    } catch (err) {
      // Transient (RPC, vault) or not, the row keeps its nonce and is retried: see the header.
      await store.recordError(this.db, id, messageOf(err));
      throw err;
    }
    return this.db.transaction().execute(async (tx) => {
      const stored = await store.markSigned(tx, id, { ...signed, network });
      // Another worker signed (or voided) it first: its result stands, this signature is discarded unsent.
      if (!stored) return store.findOutbound(tx, id);
      await signedHook(this.#core, tx, stored);
      // The status check is queued before anything is broadcast (it also re-broadcasts).
      await store.enqueueTrackJob(tx, id, 0, this.#core.opts.firstTrackDelayMs);
      return stored;
    });
  }

  /**
   * Job `outbound_track`, which follows a signed row to its end: while unmined, settles the
   * row when any version of its nonce is mined, re-broadcasts it while not, replaces it with
   * bumped fees when it is stuck, polls again; once settled with a receipt, counts its depth
   * until final (confirm.ts), when its purpose follows confirmations.
   */
  async track(id: string, poll = 0): Promise<void> {
    const row = await store.findOutbound(this.db, id);
    if (row?.stage === 'mined' || row?.stage === 'failed') return confirm(this.#core, id, poll);
    if (!row || (row.stage !== 'signed' && row.stage !== 'broadcast')) return;
    const { rebuilding, replacing } = orderingOf(this.catalogue.chain(row.chainId));
    const found = await minedVersion(this.#core, row);
    if (found) {
      await settleReceipt(this.#core, row, found);
      return;
    }
    // No receipt: rebuilt only once the family proves the deadline passed with the transaction
    // in no block (hasExpired reads both itself, so one that landed just in time, or that a
    // lagging node missed above, is never rebuilt); asked only now, as the proof can be costly.
    if (rebuilding !== null && (await rebuilding.expired(row))) {
      await rebuilding.rebuild(this.#core, row);
      return;
    }
    const outcome = await broadcast(this.#core, row);
    if (outcome === 'settled') return;
    if (replacing?.due(this.#core, row, outcome)) {
      const replaced = await speedUp(this.#core, row, outcome === 'fee-too-low' ? 'fee cap refused' : 'unmined too long');
      // The replacement has its own status check; a lost race means someone else moved the row on.
      if (replaced.kind !== 'unaffordable') return;
      await store.recordError(
        this.db,
        id,
        `stuck, but a replacement would cost ${replaced.needed} and the sender holds ${replaced.balance} (native base units)`,
      );
    }
    const { firstTrackDelayMs, maxTrackDelayMs } = this.#core.opts;
    const delay = Math.min(firstTrackDelayMs * 2 ** Math.min(poll + 1, 20), maxTrackDelayMs);
    await store.enqueueTrackJob(this.db, id, poll + 1, delay);
  }

  /**
   * Replaces a live signed row now (e.g. an operator's or a client's retry of a stuck
   * transaction), with the same call and bumped fees.
   */
  async speedUp(id: string): Promise<ReplaceResult | { kind: 'not-signed' | 'settled' }> {
    const row = await store.findOutbound(this.db, id);
    if (!row || ['mined', 'failed', 'dropped'].includes(row.stage)) return { kind: 'settled' };
    if (row.stage === 'replaced') return { kind: 'raced' };
    if (row.stage === 'created') return { kind: 'not-signed' };
    const found = await minedVersion(this.#core, row);
    if (found) {
      await settleReceipt(this.#core, row, found);
      return { kind: 'settled' };
    }
    return speedUp(this.#core, row, 'speed-up requested');
  }

  /** See replace.ts, cancel. */
  cancel(id: string, opts: { purpose: string; onVoided: (tx: DbConn, row: OutboundRow) => Promise<void> }): Promise<CancelResult> {
    return cancel(this.#core, id, opts);
  }

  /**
   * Safety net, run periodically by the worker: re-queues the job of every unfinished row
   * without progress for a while (a job lost with a crashed worker, or one that ran out of
   * retries while the RPC was down). Job keys make a re-queue of a live job harmless.
   */
  async sweepStuck(limit = 500): Promise<number> {
    const rows = await store.stuckRows(this.db, this.#core.opts.stuckAfterMs, limit);
    for (const r of rows) {
      if (r.stage === 'created') await store.enqueueSendJob(this.db, r.id);
      else await store.enqueueTrackJob(this.db, r.id, 0, 0);
    }
    return rows.length;
  }

  /**
   * Gas estimation reverted. Judged only once every earlier nonce of the sender is mined
   * (before that, the estimate ran against a state the transaction will not run in); then
   * the row is voided and a 0-value self-transfer takes its nonce, so the sender's later
   * transactions are not blocked behind a transaction that would only burn fees. On an
   * 'expiry' family (no nonces) the same wait is for the sender's earlier unsettled rows,
   * and a voided row leaves no slot to fill (the ordering strategy's waitsForEarlier and
   * voidUnsigned).
   */
  async #voidIfReverting(row: OutboundRow, chain: ChainHandle, reason: string): Promise<OutboundRow | undefined> {
    const ordering = orderingOf(chain);
    if (await ordering.waitsForEarlier(this.#core, row)) {
      await store.recordError(this.db, row.id, `would revert (${reason}); waiting for earlier nonces to be mined before deciding`);
      await store.enqueueSendJob(this.db, row.id, this.#core.opts.waitRetryMs);
      return row;
    }
    const voided = await settle(this.#core, row.id, ['created'], (tx) =>
      ordering.voidUnsigned(this.#core, tx, row, `voided before signing, the transaction would revert: ${reason}`),
    );
    if (voided)
      this.logger.warn(
        { ...logFields(row), fillerId: voided.replacedBy, err: reason },
        voided.replacedBy ? 'outbound transaction voided; nonce filled' : 'outbound transaction voided',
      );
    return voided ?? store.findOutbound(this.db, row.id);
  }
}

/** What a row sends, as the family signs it: its intent, its sender, and its fee payer when not the sender. */
export function intentOfRow(row: OutboundRow): TxIntent {
  return intentOf(row.intent, row.fromAddress, row.feePayer);
}
