/** SQL of the webhook signing secrets (`webhook_secrets`, migration 015). */
import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';

export interface SecretRow {
  id: string;
  created_at: Date;
  retires_at: Date | null;
  api_key_signs_until: Date | null;
}

/** Queues rotations of one wallet behind each other (the wallet row lock); false when it does not exist. */
export async function lockWallet(db: DbConn, walletId: string): Promise<boolean> {
  const { rows } = await sql<{ id: string }>`SELECT id FROM wallets WHERE id = ${walletId} FOR UPDATE`.execute(db);
  return rows.length > 0;
}

/** Every secret of a wallet that matters for signing: the current one and those still in overlap. */
export async function liveSecrets(db: DbConn, walletId: string, now: Date): Promise<SecretRow[]> {
  const { rows } = await sql<SecretRow>`
    SELECT id, created_at, retires_at, api_key_signs_until FROM webhook_secrets
     WHERE wallet_id = ${walletId} AND (retires_at IS NULL OR retires_at > ${now})
     ORDER BY created_at DESC, id DESC`.execute(db);
  return rows;
}

export async function hasAnySecret(db: DbConn, walletId: string): Promise<boolean> {
  const { rows } = await sql`SELECT 1 FROM webhook_secrets WHERE wallet_id = ${walletId} LIMIT 1`.execute(db);
  return rows.length > 0;
}

/**
 * Rotation: the current secret retires at `retiresAt` (the overlap's end), any older one
 * still overlapping stops now (at most two secrets sign at a time), and so does an API-key
 * overlap of an earlier first rotation.
 */
export async function retireSecrets(db: DbConn, walletId: string, now: Date, retiresAt: Date): Promise<void> {
  await sql`
    UPDATE webhook_secrets
       SET retires_at = CASE WHEN retires_at IS NULL THEN ${retiresAt}::timestamptz ELSE ${now}::timestamptz END,
           api_key_signs_until = CASE WHEN api_key_signs_until > ${now} THEN ${now}::timestamptz ELSE api_key_signs_until END
     WHERE wallet_id = ${walletId} AND (retires_at IS NULL OR retires_at > ${now})`.execute(db);
}

export async function insertSecret(
  db: DbConn,
  s: { id: string; walletId: string; ciphertext: Buffer; now: Date; apiKeySignsUntil: Date | null },
): Promise<void> {
  await sql`INSERT INTO webhook_secrets (id, wallet_id, secret_ciphertext, created_at, api_key_signs_until)
            VALUES (${s.id}, ${s.walletId}, ${s.ciphertext}, ${s.now}, ${s.apiKeySignsUntil})`.execute(db);
}

/** The sealed secrets, by id (the signer opens them once and keeps them). */
export async function sealedSecrets(db: DbConn, ids: string[]): Promise<{ id: string; secret_ciphertext: Buffer }[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<{ id: string; secret_ciphertext: Buffer }>`
    SELECT id, secret_ciphertext FROM webhook_secrets WHERE id = ANY(${ids}::uuid[])`.execute(db);
  return rows;
}
