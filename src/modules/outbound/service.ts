/**
 * The outbound pipeline: every transaction we send (top-ups, sweeps, withdrawals, contract
 * calls) goes created -> signed -> broadcast -> mined | failed | dropped (see migration 002).
 *
 * - enqueue: in the caller's transaction, allocate the nonce from the `nonces` counter (row
 *   lock), insert the row and its `outbound_send` job. A rollback takes all three back, so
 *   nonces have no gaps and no duplicates across callers, processes and restarts.
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
 * Still open, for the operator or the next piece of work: a signed row that no node will
 * take as it is (its fee cap stays below the base fee, its gas limit is too low) needs a
 * replacement: same nonce, both fee fields raised by at least 10%, the original 'replaced'.
 * The partial unique index on (chain, sender, nonce) already allows it.
 */
import type { Db, DbConn } from '../../db/pool.js';
import type { FeeEstimate } from '../../chains/types.js';
import type { Signer, SignedTx } from '../../keys/signer.js';
import type { Logger } from '../../lib/logger.js';
import { ValidationError } from '../../lib/errors.js';
import { uuidv7 } from '../../lib/ids.js';
import type { CatalogueService, ChainHandle } from '../catalogue/service.js';
import type { WalletService } from '../wallets/service.js';
import * as store from './store.js';
import type { OutboundRow } from './store.js';

export type { OutboundRow, Stage } from './store.js';

export interface EnqueueRequest {
  /** chains.id of the chain to send on; the wallet must live on it. */
  chainId: string;
  walletId: string;
  /** Derivation index of the sender: 0 is the master address, 1..n its children. */
  fromIndex: number;
  to: string;
  value: bigint;
  data?: string;
  /** Skips estimation; required when the transaction must go out even if it reverts. */
  gasLimit?: bigint;
  /**
   * Fixed fees (both or neither), e.g. a sweep signed with exactly the fees its gas top-up
   * paid for. Default: the chain's estimate when the row is signed.
   */
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  /** Selects the completion handler: 'topup', 'sweep', 'withdraw', 'contract', ... */
  purpose: string;
  /** What the transaction belongs to (a sweep, a transaction). */
  ownerId?: string;
}

/**
 * Runs inside the database transaction that settles the row; throwing rolls the
 * settlement back and it is retried. `row.stage` tells the outcome: 'mined' succeeded;
 * 'failed' reverted on chain (the fee was paid); 'dropped' never reached the chain (its
 * nonce was used by another transaction); 'replaced' was voided before signing because it
 * would revert.
 */
export type SettledHandler = (tx: DbConn, row: OutboundRow) => Promise<void>;

export interface OutboundOptions {
  /** First receipt check after signing; doubles per poll up to maxTrackDelayMs. */
  firstTrackDelayMs?: number;
  maxTrackDelayMs?: number;
  /** Gas limit = estimate x this / 100, when the caller gives none. */
  gasMarginPercent?: bigint;
  /** The safety net re-queues unfinished rows without progress for this long. */
  stuckAfterMs?: number;
  /** How long "nonce used by another transaction" must persist before the row is dropped. */
  conflictGraceMs?: number;
  /** Retry delay of a row that waits for its sender's earlier nonces before it is judged. */
  waitRetryMs?: number;
}

const FILLER_PURPOSE = 'nonce-filler';
const TRANSFER_GAS = 21_000n;
const DATA_RE = /^0x(?:[0-9a-fA-F]{2})*$/;

type BroadcastOutcome = 'accepted' | 'refused' | 'settled';

export class OutboundService {
  readonly #handlers = new Map<string, SettledHandler>();
  readonly #opts: Required<OutboundOptions>;

  constructor(
    private readonly db: Db,
    private readonly catalogue: CatalogueService,
    private readonly wallets: WalletService,
    private readonly signer: Signer,
    private readonly logger: Logger,
    opts: OutboundOptions = {},
  ) {
    this.#opts = {
      firstTrackDelayMs: opts.firstTrackDelayMs ?? 1_000,
      maxTrackDelayMs: opts.maxTrackDelayMs ?? 15_000,
      gasMarginPercent: opts.gasMarginPercent ?? 120n,
      stuckAfterMs: opts.stuckAfterMs ?? 30_000,
      conflictGraceMs: opts.conflictGraceMs ?? 5 * 60_000,
      waitRetryMs: opts.waitRetryMs ?? 5_000,
    };
  }

  /** Registers the completion handler of a purpose (one per purpose). */
  onSettled(purpose: string, handler: SettledHandler): void {
    if (this.#handlers.has(purpose)) throw new Error(`a completion handler for '${purpose}' is already registered`);
    this.#handlers.set(purpose, handler);
  }

  /**
   * Must run inside the caller's transaction, as late as possible: the sender's nonce
   * counter stays locked until that transaction ends, so other sends from the same address
   * wait for it (and a caller enqueuing from several senders should lock them in one order).
   * The first send from an address reads the chain's nonce, an RPC call made before the lock.
   */
  async enqueue(tx: DbConn, req: EnqueueRequest): Promise<{ id: string; nonce: bigint; from: string }> {
    // On the bare pool each statement would commit alone: a crash between them would leak a nonce.
    if (!tx.isTransaction) throw new Error('OutboundService.enqueue must run inside a database transaction');
    const chain = this.catalogue.chain(req.chainId);
    const checked = validate(chain, req);
    const wallet = await this.wallets.requireRow(req.walletId, tx);
    if (wallet.chain_id !== chain.id) throw new ValidationError(`wallet ${req.walletId} does not live on chain ${chain.key}`);
    const from = this.wallets.deriver(wallet).address(req.fromIndex);

    const known = await store.peekNonce(tx, chain.id, from);
    const seed = known === null ? BigInt(await chain.adapter.getNonce(from, 'pending')) : 0n;
    const nonce = await store.allocateNonce(tx, chain.id, from, seed);
    const id = uuidv7();
    await store.insertOutbound(tx, {
      id,
      chainId: chain.id,
      walletId: req.walletId,
      fromAddress: from,
      fromIndex: req.fromIndex,
      nonce,
      ...checked,
      purpose: req.purpose,
      ownerId: req.ownerId ?? null,
    });
    await store.enqueueSendJob(tx, id);
    return { id, nonce, from };
  }

  get(id: string, db: DbConn = this.db): Promise<OutboundRow | undefined> {
    return store.findOutbound(db, id);
  }

  ofOwner(ownerId: string, db: DbConn = this.db): Promise<OutboundRow[]> {
    return store.outboundOfOwner(db, ownerId);
  }

  /** Job `outbound_send`: signs a created row (once) and broadcasts a signed one. */
  async send(id: string): Promise<void> {
    const row = await this.signAndStore(id);
    if (row?.stage === 'signed') await this.#broadcast(row);
  }

  /**
   * Signs a created row and stores raw + hash with stage 'signed', together with its first
   * status check. Any other row is returned as it is: a signed row is never signed again.
   */
  async signAndStore(id: string): Promise<OutboundRow | undefined> {
    const row = await store.findOutbound(this.db, id);
    if (!row || row.stage !== 'created') return row;
    const chain = this.catalogue.chain(row.chainId);

    let gas = row.gasLimit;
    if (gas === null) {
      try {
        const estimate = await chain.adapter.estimateGas({
          from: row.fromAddress,
          to: row.to,
          value: row.value,
          ...(row.data ? { data: row.data } : {}),
        });
        gas = (estimate * this.#opts.gasMarginPercent + 99n) / 100n;
      } catch (err) {
        if (rejectionOf(err) === 'reverted') return this.#voidIfReverting(row, chain, messageOf(err));
        await store.recordError(this.db, id, messageOf(err));
        throw err;
      }
    }
    let fees: FeeEstimate;
    let signed: SignedTx;
    try {
      fees =
        row.maxFeePerGas !== null && row.maxPriorityFeePerGas !== null
          ? { maxFeePerGas: row.maxFeePerGas, maxPriorityFeePerGas: row.maxPriorityFeePerGas }
          : await chain.adapter.estimateFees();
      signed = await this.signer.signTransaction(row.walletId, row.fromIndex, chain.config.chainId, {
        from: row.fromAddress,
        to: row.to,
        value: row.value,
        ...(row.data ? { data: row.data } : {}),
        nonce: safeNonce(row.nonce),
        gas,
        ...fees,
      });
    } catch (err) {
      // Transient (RPC, vault) or not, the row keeps its nonce and is retried: see the header.
      await store.recordError(this.db, id, messageOf(err));
      throw err;
    }
    return this.db.transaction().execute(async (tx) => {
      const stored = await store.markSigned(tx, id, { ...signed, gasLimit: gas, ...fees });
      // Another worker signed (or voided) it first: its result stands, this signature is discarded unsent.
      if (!stored) return store.findOutbound(tx, id);
      // The status check is queued before anything is broadcast (it also re-broadcasts).
      await store.enqueueTrackJob(tx, id, 0, this.#opts.firstTrackDelayMs);
      return stored;
    });
  }

  /** Job `outbound_track`: settles a mined row, re-broadcasts an unmined one, polls again. */
  async track(id: string, poll = 0): Promise<void> {
    const row = await store.findOutbound(this.db, id);
    if (!row || (row.stage !== 'signed' && row.stage !== 'broadcast')) return;
    const chain = this.catalogue.chain(row.chainId);
    const receipt = await chain.adapter.getReceipt(row.hash!);
    if (receipt) {
      await this.#settle(id, ['signed', 'broadcast'], (tx) => store.settleMined(tx, id, receipt));
      return;
    }
    if ((await this.#broadcast(row)) === 'settled') return;
    const delay = Math.min(this.#opts.firstTrackDelayMs * 2 ** Math.min(poll + 1, 20), this.#opts.maxTrackDelayMs);
    await store.enqueueTrackJob(this.db, id, poll + 1, delay);
  }

  /**
   * Safety net, run periodically by the worker: re-queues the job of every unfinished row
   * without progress for a while (a job lost with a crashed worker, or one that ran out of
   * retries while the RPC was down). Job keys make a re-queue of a live job harmless.
   */
  async sweepStuck(limit = 500): Promise<number> {
    const rows = await store.stuckRows(this.db, this.#opts.stuckAfterMs, limit);
    for (const r of rows) {
      if (r.stage === 'created') await store.enqueueSendJob(this.db, r.id);
      else await store.enqueueTrackJob(this.db, r.id, 0, 0);
    }
    return rows.length;
  }

  async #broadcast(row: OutboundRow): Promise<BroadcastOutcome> {
    const chain = this.catalogue.chain(row.chainId);
    try {
      const hash = await chain.adapter.broadcast(row.raw!);
      if (hash.toLowerCase() !== row.hash!.toLowerCase()) throw new Error(`node returned ${hash} for ${row.hash}`);
      await store.markBroadcast(this.db, row.id);
      if (row.stage === 'signed') this.logger.info(logFields(row), 'outbound transaction broadcast');
      return 'accepted';
    } catch (err) {
      const message = messageOf(err);
      if (rejectionOf(err) === 'nonce-too-low') return this.#nonceConflict(row, chain, message);
      await store.recordBroadcastFailure(this.db, row.id, message, false);
      this.logger.warn({ ...logFields(row), err: message }, 'outbound broadcast refused; will retry');
      return 'refused';
    }
  }

  /**
   * The node says our nonce is used and does not know our hash. Only if that persists past
   * a grace period (a lagging node behind a load balancer can say so about a transaction
   * that did mine) and the receipt is still absent is the row dropped.
   */
  async #nonceConflict(row: OutboundRow, chain: ChainHandle, message: string): Promise<BroadcastOutcome> {
    const error = `nonce ${row.nonce} of ${row.fromAddress} is used by another transaction: ${message}`;
    const seen = await store.recordBroadcastFailure(this.db, row.id, error, true);
    if (!seen || seen.conflictAgeMs === null || seen.conflictAgeMs < this.#opts.conflictGraceMs) return 'refused';
    const receipt = await chain.adapter.getReceipt(row.hash!);
    if (receipt) {
      await this.#settle(row.id, ['signed', 'broadcast'], (tx) => store.settleMined(tx, row.id, receipt));
      return 'settled';
    }
    const mined = BigInt(await chain.adapter.getNonce(row.fromAddress, 'latest'));
    if (mined <= row.nonce) return 'refused';
    this.logger.warn({ ...logFields(row), err: error }, 'outbound transaction dropped: its nonce was used elsewhere');
    await this.#settle(row.id, ['signed', 'broadcast'], async (tx) => {
      // The key was used outside the pipeline: later allocations start above what it used.
      await store.raiseNonce(tx, row.chainId, row.fromAddress, mined);
      return store.markDropped(tx, row.id, error);
    });
    return 'settled';
  }

  /**
   * Gas estimation reverted. Judged only once every earlier nonce of the sender is mined
   * (before that, the estimate ran against a state the transaction will not run in); then
   * the row is voided and a 0-value self-transfer takes its nonce, so the sender's later
   * transactions are not blocked behind a transaction that would only burn gas.
   */
  async #voidIfReverting(row: OutboundRow, chain: ChainHandle, reason: string): Promise<OutboundRow | undefined> {
    const mined = BigInt(await chain.adapter.getNonce(row.fromAddress, 'latest'));
    if (mined < row.nonce) {
      await store.recordError(this.db, row.id, `would revert (${reason}); waiting for earlier nonces to be mined before deciding`);
      await store.enqueueSendJob(this.db, row.id, this.#opts.waitRetryMs);
      return row;
    }
    const fillerId = uuidv7();
    const voided = await this.#settle(row.id, ['created'], async (tx) => {
      const replaced = await store.markReplaced(tx, row.id, fillerId, `voided before signing, the transaction would revert: ${reason}`);
      await store.insertOutbound(tx, {
        id: fillerId,
        chainId: row.chainId,
        walletId: row.walletId,
        fromAddress: row.fromAddress,
        fromIndex: row.fromIndex,
        nonce: row.nonce,
        to: row.fromAddress,
        value: 0n,
        data: null,
        gasLimit: TRANSFER_GAS,
        maxFeePerGas: null,
        maxPriorityFeePerGas: null,
        purpose: FILLER_PURPOSE,
        ownerId: row.id,
      });
      await store.enqueueSendJob(tx, fillerId);
      return replaced;
    });
    if (voided) this.logger.warn({ ...logFields(row), fillerId, err: reason }, 'outbound transaction voided; nonce filled');
    return voided ?? store.findOutbound(this.db, row.id);
  }

  /**
   * Moves a row to a terminal stage and runs its purpose's handler in one transaction. The
   * row lock and the stage condition make this happen once, whoever else tries.
   */
  async #settle(id: string, from: store.Stage[], apply: (tx: DbConn) => Promise<OutboundRow>): Promise<OutboundRow | undefined> {
    const settled = await this.db.transaction().execute(async (tx) => {
      if (!(await store.lockUnsettled(tx, id, from))) return undefined;
      const row = await apply(tx);
      await this.#handlers.get(row.purpose)?.(tx, row);
      return row;
    });
    if (settled) this.logger.info({ ...logFields(settled), stage: settled.stage }, 'outbound transaction settled');
    return settled;
  }
}

function validate(
  chain: ChainHandle,
  req: EnqueueRequest,
): Pick<store.NewOutbound, 'to' | 'value' | 'data' | 'gasLimit' | 'maxFeePerGas' | 'maxPriorityFeePerGas'> {
  const to = chain.adapter.normalizeAddress(req.to);
  if (!to) throw new ValidationError(`'${req.to}' is not a valid ${chain.key} address`);
  if (!Number.isInteger(req.fromIndex) || req.fromIndex < 0 || req.fromIndex >= 0x80000000) {
    throw new ValidationError('fromIndex must be an integer from 0 to 2^31-1');
  }
  if (typeof req.value !== 'bigint' || req.value < 0n) throw new ValidationError('value must be a non-negative bigint');
  if (req.data !== undefined && !DATA_RE.test(req.data)) throw new ValidationError('data must be 0x-prefixed hex bytes');
  if (req.gasLimit !== undefined && req.gasLimit < TRANSFER_GAS) throw new ValidationError(`gasLimit must be at least ${TRANSFER_GAS}`);
  const fees = [req.maxFeePerGas, req.maxPriorityFeePerGas];
  if (fees.filter((f) => f === undefined).length === 1) throw new ValidationError('give both fee fields or neither');
  if (req.maxFeePerGas !== undefined && req.maxPriorityFeePerGas !== undefined) {
    if (req.maxPriorityFeePerGas < 0n || req.maxFeePerGas < req.maxPriorityFeePerGas) {
      throw new ValidationError('maxPriorityFeePerGas must be between 0 and maxFeePerGas');
    }
  }
  if (!req.purpose) throw new ValidationError('purpose is required');
  return {
    to,
    value: req.value,
    data: req.data && req.data !== '0x' ? req.data.toLowerCase() : null,
    gasLimit: req.gasLimit ?? null,
    maxFeePerGas: req.maxFeePerGas ?? null,
    maxPriorityFeePerGas: req.maxPriorityFeePerGas ?? null,
  };
}

/** The adapter's CHAIN_REJECTED errors carry why the node refused (chains/evm/send.ts). */
function rejectionOf(err: unknown): string | null {
  const e = err as { code?: unknown; reason?: unknown };
  return e.code === 'CHAIN_REJECTED' && typeof e.reason === 'string' ? e.reason : null;
}

function messageOf(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 1000);
}

function safeNonce(nonce: bigint): number {
  if (nonce > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`nonce ${nonce} out of range`);
  return Number(nonce);
}

function logFields(row: OutboundRow) {
  return { outboundId: row.id, purpose: row.purpose, from: row.fromAddress, nonce: row.nonce.toString(), hash: row.hash };
}
