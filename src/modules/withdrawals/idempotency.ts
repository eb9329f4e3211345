/**
 * Idempotency-Key (Stripe semantics, scoped per wallet): the first request with a key runs
 * and its response is stored in the same database transaction as its writes; a later
 * request with the key and the same operation and body gets that response again; with
 * anything else, 422. A request that fails stores nothing, so it can be retried with its key.
 */
import { createHash } from 'node:crypto';
import type { DbConn } from '../../db/pool.js';
import { BusinessRuleError } from '../../lib/errors.js';
import * as store from './store.js';

export interface IdempotencyKey {
  walletId: string;
  key: string;
  fingerprint: string;
}

/** The operation (endpoint and path ids) and the body, key order not mattering. */
export function fingerprint(operation: string, body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([operation, canonical(body)]))
    .digest('hex');
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

/** Thrown inside the creating transaction when a concurrent request committed the key first. */
export class KeyTaken extends Error {}

/** The stored response for the key, if the key was used already; 422 when for another request. */
export async function replay(db: DbConn, k: IdempotencyKey): Promise<{ response: unknown } | null> {
  const found = await store.findKey(db, k.walletId, k.key);
  if (!found) return null;
  if (found.fingerprint !== k.fingerprint) {
    throw new BusinessRuleError(
      'IDEMPOTENCY_KEY_REUSED',
      'This Idempotency-Key was already used with a different request; use a new key for a new request',
      [{ field: 'idempotency-key', message: 'used with another request' }],
    );
  }
  return { response: found.response };
}

/** Claims the key in the creating transaction (first thing, so a concurrent twin waits here). */
export async function claim(tx: DbConn, k: IdempotencyKey): Promise<void> {
  if (!(await store.claimKey(tx, k.walletId, k.key, k.fingerprint))) throw new KeyTaken();
}

export function remember(tx: DbConn, k: IdempotencyKey, response: unknown): Promise<void> {
  return store.storeResponse(tx, k.walletId, k.key, response);
}
