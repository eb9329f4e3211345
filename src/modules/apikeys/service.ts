/**
 * API keys: long random strings shown once. Stored as a SHA-256 hash (lookup) and an
 * AES-256-GCM copy, because a wallet's key is also the HMAC secret of its webhooks.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { DbConn, Db } from '../../db/pool.js';
import type { KeyVault } from '../../keys/vault.js';
import { uuidv7 } from '../../lib/ids.js';
import * as store from './store.js';

/** Who is calling: a wallet key reaches one wallet, a business key all of its wallets. */
export interface AuthContext {
  keyId: string;
  businessId: string;
  /** null for a business-level key. */
  walletId: string | null;
}

export interface IssuedKey {
  id: string;
  apiKey: string;
  prefix: string;
}

const PREFIX_LENGTH = 12;

export function hashKey(apiKey: string): Buffer {
  return createHash('sha256').update(apiKey, 'utf8').digest();
}

export class ApiKeyService {
  constructor(
    private readonly db: Db,
    private readonly vault: KeyVault,
  ) {}

  /** Issues a wallet's key, revoking any live one in the same transaction. */
  async issueWalletKey(tx: DbConn, businessId: string, walletId: string, network: string): Promise<IssuedKey> {
    await store.revokeWalletKeys(tx, walletId);
    return this.issue(tx, businessId, walletId, network === 'mainnet' ? 'sk_live_' : 'sk_test_');
  }

  async issueBusinessKey(tx: DbConn, businessId: string): Promise<IssuedKey> {
    return this.issue(tx, businessId, null, 'sk_biz_');
  }

  private async issue(tx: DbConn, businessId: string, walletId: string | null, kind: string): Promise<IssuedKey> {
    const id = uuidv7();
    const apiKey = `${kind}${randomBytes(32).toString('base64url')}`;
    const prefix = apiKey.slice(0, PREFIX_LENGTH);
    await store.insertKey(tx, {
      id,
      businessId,
      walletId,
      prefix,
      hash: hashKey(apiKey),
      ciphertext: await this.vault.seal(Buffer.from(apiKey, 'utf8'), id),
    });
    return { id, apiKey, prefix };
  }

  async authenticate(apiKey: string | undefined): Promise<AuthContext | null> {
    // Real keys are ~51 characters; refusing absurd lengths early keeps hashing cheap.
    if (!apiKey || apiKey.length < 16 || apiKey.length > 256) return null;
    const hash = hashKey(apiKey);
    const row = await store.findLiveKeyByHash(this.db, hash);
    // The lookup is by hash; the explicit constant-time comparison keeps the check itself
    // independent of how the database compares bytes.
    if (!row || row.key_hash.length !== hash.length || !timingSafeEqual(row.key_hash, hash)) return null;
    return { keyId: row.id, businessId: row.business_id, walletId: row.wallet_id };
  }

  /** The wallet's live key in clear (the webhook signing secret), or null when it has none. */
  async revealWalletKey(walletId: string, db: DbConn = this.db): Promise<string | null> {
    const row = await store.findLiveWalletKey(db, walletId);
    if (!row) return null;
    return (await this.vault.open(row.key_ciphertext, row.id)).toString('utf8');
  }

  /** The business's newest live key in clear (the embedded default's credentials file). */
  async revealBusinessKey(businessId: string): Promise<string | null> {
    const row = await store.findLiveBusinessKey(this.db, businessId);
    if (!row) return null;
    return (await this.vault.open(row.key_ciphertext, row.id)).toString('utf8');
  }

  async walletKeyPrefix(walletId: string): Promise<string | null> {
    return (await store.findLiveWalletKey(this.db, walletId))?.prefix ?? null;
  }
}
