/**
 * Child address issuance. Concurrent requests for one wallet are coalesced: one database
 * transaction reserves a run of consecutive indexes under the wallet's row lock, derives
 * the addresses and inserts them together. Indexes come from the row (not from memory),
 * so several processes stay gap- and duplicate-free; batching amortises the commit.
 */
import type { Db, DbConn } from '../../db/pool.js';
import { BusinessRuleError, NotFoundError } from '../../lib/errors.js';
import { uuidv7 } from '../../lib/ids.js';
import * as store from './store.js';

export interface AllocationRequest {
  name: string | null;
  metadata: Record<string, unknown> | null;
  configurations: Record<string, unknown>;
}

interface WalletSlot {
  walletId: string;
  chainId: string;
  /** The derivation path of child `index`. */
  path(index: number): string;
  /**
   * The addresses of the batch's indexes, in order; called once per batch, after the
   * indexes are reserved (a seed family opens the seed here, once per batch).
   */
  /** On `tx`, the issuing transaction (it must ask nothing of the pool while it is open). */
  derive(indexes: readonly number[], tx: DbConn): Promise<string[]>;
  /**
   * Throws unless the wallet, as read under its row lock in the issuing transaction, may
   * issue addresses: the request checked it when it arrived, but a deactivation (or
   * issuance switched off) may have committed since, while this waited for the row.
   */
  admit(wallet: { is_active: boolean; configurations: unknown }): void;
}

interface Pending {
  request: AllocationRequest;
  resolve(row: store.AddressRow): void;
  reject(err: unknown): void;
}

const MAX_BATCH = 256;

export class AddressAllocator {
  readonly #queues = new Map<string, { pending: Pending[]; running: boolean }>();

  constructor(private readonly db: Db) {}

  /** Resolves with the new address row, as stored. */
  allocate(slot: WalletSlot, request: AllocationRequest): Promise<store.AddressRow> {
    let queue = this.#queues.get(slot.walletId);
    if (!queue) {
      queue = { pending: [], running: false };
      this.#queues.set(slot.walletId, queue);
    }
    const promise = new Promise<store.AddressRow>((resolve, reject) => queue.pending.push({ request, resolve, reject }));
    if (!queue.running) void this.drain(slot, queue);
    return promise;
  }

  private async drain(slot: WalletSlot, queue: { pending: Pending[]; running: boolean }): Promise<void> {
    queue.running = true;
    try {
      while (queue.pending.length > 0) {
        const batch = queue.pending.splice(0, MAX_BATCH);
        await this.flush(slot, batch);
      }
    } finally {
      queue.running = false;
      if (queue.pending.length === 0) this.#queues.delete(slot.walletId);
    }
  }

  private async flush(slot: WalletSlot, batch: Pending[]): Promise<void> {
    try {
      const stored = await this.db.transaction().execute(async (tx) => {
        const reserved = await store.reserveIndexes(tx, slot.walletId, batch.length, (w) => slot.admit(w));
        if (!reserved) throw new NotFoundError('Wallet');
        const indexes = Array.from({ length: reserved.granted }, (_, i) => reserved.first + i);
        const addresses = indexes.length > 0 ? await slot.derive(indexes, tx) : [];
        const rows: store.NewAddress[] = [];
        for (let i = 0; i < reserved.granted; i++) {
          const index = indexes[i]!;
          const { request } = batch[i]!;
          rows.push({
            id: uuidv7(),
            walletId: slot.walletId,
            chainId: slot.chainId,
            index,
            address: addresses[i]!,
            name: request.name,
            metadata: request.metadata,
            type: 'INTERNAL',
            derivationPath: slot.path(index),
            configurations: request.configurations,
          });
        }
        const inserted = await store.insertAddresses(tx, rows);
        // RETURNING order is not guaranteed: hand each request its own row by id.
        const byId = new Map(inserted.map((r) => [r.id, r]));
        return rows.map((r) => byId.get(r.id)!);
      });
      batch.forEach((p, i) => {
        const row = stored[i];
        if (row) p.resolve(row);
        else p.reject(new BusinessRuleError('ADDRESS_LIMIT_REACHED', 'This wallet has reached its address limit'));
      });
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  }
}
