/**
 * API keys: long random strings shown once. Stored as a SHA-256 hash (lookup) and an
 * AES-256-GCM copy, because a wallet's key is also the HMAC secret of its webhooks.
 *
 * Authentication results are cached in memory for a few seconds (every request
 * authenticates), keyed by the key's hash. Revoking a key publishes an `apikeys` change in
 * the revoking transaction, which empties this cache in every process (db/changes.ts), so
 * an old key stops working at once. Unknown keys are never cached.
 */
import * as crypto from 'node:crypto';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { DbConn, Db } from '../../db/pool.js';
import type { Changes } from '../../db/changes.js';
import type { TtlCache } from '../../lib/ttl-cache.js';
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
/** Published when any key is revoked; every process drops its cached authentications. */
export const API_KEYS_CHANGED = 'apikeys';

// One-shot crypto.hash (Node >= 20.12) is several times cheaper than a Hash object, and
// every request hashes its key.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'base64') => string }).hash;

/** SHA-256 of the key, base64: the cache key, and (decoded) the stored lookup hash. */
function keyDigest(apiKey: string): string {
  return oneShot ? oneShot('sha256', apiKey, 'base64') : createHash('sha256').update(apiKey, 'utf8').digest('base64');
}

export function hashKey(apiKey: string): Buffer {
  return Buffer.from(keyDigest(apiKey), 'base64');
}

export class ApiKeyService {
  /** Key hash (base64) -> who it authenticates. */
  readonly #auth: TtlCache<string, AuthContext>;

  constructor(
    private readonly db: Db,
    private readonly vault: KeyVault,
    private readonly changes: Changes,
  ) {
    this.#auth = changes.cache('apiKeys');
    changes.on(API_KEYS_CHANGED, () => this.#auth.clear());
  }

  /**
   * Issues a wallet's key, revoking any live one in the same transaction. Run it in
   * `changes.transaction` (as WalletService does) so the revocation applies locally at COMMIT.
   */
  async issueWalletKey(tx: DbConn, businessId: string, walletId: string, network: string): Promise<IssuedKey> {
    if ((await store.revokeWalletKeys(tx, walletId)) > 0) await this.changes.publish(tx, API_KEYS_CHANGED);
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
    const digest = keyDigest(apiKey);
    // Keyed by the hash, never the key itself: no key in clear sits in memory for the
    // TTL. A map hit means SHA-256 equality, which a guesser cannot steer byte by byte.
    return (await this.#auth.getOrLoad(digest, () => this.#lookup(Buffer.from(digest, 'base64')))) ?? null;
  }

  async #lookup(hash: Buffer): Promise<AuthContext | undefined> {
    const row = await store.findLiveKeyByHash(this.db, hash);
    // The lookup is by hash; the explicit constant-time comparison keeps the check itself
    // independent of how the database compares bytes.
    if (!row || row.key_hash.length !== hash.length || !timingSafeEqual(row.key_hash, hash)) return undefined;
    // Shared by every request the cache serves: frozen, so none can alter another's.
    return Object.freeze({ keyId: row.id, businessId: row.business_id, walletId: row.wallet_id });
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
