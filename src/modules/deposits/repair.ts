/**
 * Deposits recorded for the wrong wallet before migration 012: another wallet had
 * registered one of the service's own addresses as external, and the indexer credited it
 * instead of the wallet holding the key. The migration failed those records and queued them
 * (deposit_repairs); the chain's indexer works through the queue here, before its first range.
 */
import type { Db } from '../../db/pool.js';
import { AppError } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import type { WebhookService } from '../webhooks/service.js';
import * as store from './store.js';

/** The deposit finder for a wallet (no access checks): its deposits in a chain transaction. */
export type Finder = (walletId: string, hash: string) => Promise<string[]>;

/**
 * For each queued record: the key holder's deposit is recorded with the deposit finder
 * (read again from the chain; idempotent, so a crash half-way only repeats it), then the
 * wallet that had it wrongly is sent `deposit.failed` for its record, in the transaction that
 * closes the repair, so exactly once.
 */
export async function runRepairs(db: Db, chainId: string, webhooks: WebhookService, logger: Logger, find: Finder): Promise<void> {
  for (const r of await store.dueRepairs(db, chainId)) {
    let note: string;
    try {
      const ids = await find(r.owner_wallet_id, r.hash);
      note = ids.length
        ? `recorded for the wallet holding the key: ${ids.join(', ')}`
        : 'the wallet holding the key has no deposit of an enabled asset in this transaction';
    } catch (err) {
      // The node no longer knows the transaction (e.g. a reset devnet): nothing to credit.
      if (!(err instanceof AppError) || err.code !== 'TRANSACTION_NOT_FOUND') throw err;
      note = 'the chain does not know this transaction';
    }
    const closed = await db.transaction().execute(async (tx) => {
      if (!(await store.closeRepair(tx, r.id, note))) return false;
      await webhooks.emitForTransaction(tx, r.transaction_id, 'deposit.failed');
      return true;
    });
    if (closed)
      logger.warn({ deposit: r.transaction_id, owner: r.owner_wallet_id, note }, 'deposit recorded for the wrong wallet repaired');
  }
}
