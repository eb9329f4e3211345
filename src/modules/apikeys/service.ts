/**
 * API keys: long random strings shown once. Stored as a SHA-256 hash (lookup) and an
 * AES-256-GCM copy, because a wallet's key is also the HMAC secret of its webhooks.
 *
 * Authentication is on every request, so each process remembers the keys it found good
 * (`apiKeysLive`, by hash, never the key) for LIVE_KEY_TTL_MS at most, counted from when the
 * database read began (docs/architecture.md, "Caching"). A revocation empties that cache in
 * every process: the revoking transaction publishes an `apikeys-revoked` change (and a
 * trigger on api_keys does for any other write that revokes, rescopes or deletes a key,
 * migration 037), applied by the revoking process at COMMIT, before it answers, and by the
 * others when the notification arrives, milliseconds later. Should a notification be late or
 * lost, the entry's lifetime bounds the window: no process accepts a key later than
 * LIVE_KEY_TTL_MS after a revocation committed. The lookups that miss are batched (the
 * requests that arrive together share one query, BatchLoader).
 *
 * The opposite is cached too: that a key is unknown (`apiKeysUnknown`), so a client
 * repeating a bad key costs no database round trip after the first. That cache is bounded
 * (a flood of distinct random keys only evicts its own entries), and emptied in every
 * process when any key is created (an `apikeys` change, published in the creating
 * transaction), so a new key is never refused for having been tried before it existed.
 * Both caches are off while the change listener is down.
 */
import * as crypto from 'node:crypto';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { DbConn, Db } from '../../db/pool.js';
import type { Changes } from '../../db/changes.js';
import { TtlCache } from '../../lib/ttl-cache.js';
import { BatchLoader } from '../../lib/batch-loader.js';
import type { KeyVault } from '../../keys/vault.js';
import type { Logger } from '../../lib/logger.js';
import { uuidv7 } from '../../lib/ids.js';
import { pageMeta, type PageMeta } from '../../lib/schema.js';
import { ForbiddenError, NotFoundError } from '../../lib/errors.js';
import type { AuditService } from '../audit/service.js';
import { API_KEY_SCOPES, assertMayRevokeKeys, scopesOfNewKey, type ApiKeyScope, type Scoped } from './scopes.js';
import { UsageRecorder } from './usage.js';
import * as store from './store.js';

export {
  assertMayExportKeys,
  assertMayWrite,
  hasGrant,
  isReadOnly,
  OPERATOR,
  scopesOfNewKey,
  type ApiKeyScope,
  type Scoped,
} from './scopes.js';

/** Who is calling: a wallet key reaches one wallet, a business key all of its wallets. */
export interface AuthContext {
  keyId: string;
  businessId: string;
  /** null for a business-level key (and a dashboard session). */
  walletId: string | null;
  /** Restrictions of this key (scopes.ts); absent or empty: none. */
  scopes?: readonly ApiKeyScope[];
  /** This key's own request rate (per second and instance); null or absent: the default. */
  rateLimit?: number | null;
  /** A dashboard session: its user, role, and whether it signed in with a second factor. */
  user?: { id: string; email: string; role: string; twoFactor: boolean };
  /** The installation's operator (the CLI); never an API request. */
  operator?: boolean;
}

export interface IssuedKey {
  id: string;
  apiKey: string;
  prefix: string;
  /** The new key's restrictions: those asked for plus every one of its creator's (scopesOfNewKey). */
  scopes: ApiKeyScope[];
}

/** Request limits (config: API_KEY_RATE_LIMIT, AUTH_FAILURE_LIMIT, AUTH_FAILURE_WINDOW, AUTH_FAILURE_BUDGET). */
export interface ApiKeyLimits {
  /** Requests per second per key and instance, unless the key has its own; 0 = unlimited. */
  keyRate: number;
  /** Failed authentications per client address and window before 429; 0 = unlimited. */
  authFailures: number;
  authFailureWindowS: number;
  /** How long a refusal for failed authentications is held before it is sent (default 1 s). */
  authFailureDelayMs?: number;
  /**
   * Failed lookups (unknown keys that cost a database round trip) per second this process
   * takes from all clients together; past it, keys that did not authenticate here lately
   * are refused without a lookup for the rest of the second (the installation's default:
   * 100, AUTH_FAILURE_BUDGET; 0 or absent: no budget).
   */
  authFailureBudget?: number;
}

export const DEFAULT_API_KEY_LIMITS: ApiKeyLimits = {
  keyRate: 1000,
  authFailures: 20,
  authFailureWindowS: 60,
  authFailureDelayMs: 1000,
  authFailureBudget: 100,
};

/** A business key as it is listed: never the key, its hash or its sealed copy. */
export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  scopes: ApiKeyScope[];
  rateLimit: number | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface NewBusinessKey {
  name?: string;
  scopes?: readonly ApiKeyScope[];
  rateLimit?: number | null;
}

export interface ApiKeyServiceOptions {
  limits?: ApiKeyLimits;
  audit?: AuditService;
  logger?: Logger;
  /** How often "last used" is written (default 30 s). */
  usageFlushMs?: number;
  /** Lifetime of a good key in this process's cache (default LIVE_KEY_TTL_MS; tests). */
  liveKeyTtlMs?: number;
}

const PREFIX_LENGTH = 12;
/** Published when a key is created: every process empties its unknown-key cache. */
export const API_KEYS_CHANGED = 'apikeys';
/**
 * Published when a key is revoked (and by migration 037's trigger on any write that changes a
 * key's standing): every process empties its cache of good keys.
 */
export const API_KEYS_REVOKED = 'apikeys-revoked';
/**
 * How long a process may go on accepting a key it found good, should the notification of its
 * revocation be late or lost: the bound on the revocation window of every other process
 * (issue 29: 100 ms; 90, for the millisecond clocks that measure it). A key in use costs one
 * lookup per this long and process.
 */
export const LIVE_KEY_TTL_MS = 90;

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

/**
 * The shape of our keys: a kind's prefix (`newSecret`: 32 random bytes, 43 base64url
 * characters, after it). Anything else is refused before it is hashed or looked up, so a
 * flood of arbitrary strings costs a regular expression each.
 */
const KEY_SHAPE = /^sk_(?:test|live|biz)_[A-Za-z0-9_-]{20,200}$/;
const plausible = (apiKey: string | undefined): apiKey is string => apiKey !== undefined && KEY_SHAPE.test(apiKey);

/**
 * An authentication's outcome: the key's context, or why it was refused. `lookedUp` says
 * whether the refusal cost a database lookup; `shed`: the caller's `mayLookUp` said no.
 */
export type KeyCheck =
  | { auth: AuthContext }
  | { auth: null; reason: 'missing' | 'malformed' | 'shed'; lookedUp: false }
  | { auth: null; reason: 'unknown'; lookedUp: boolean };

export class ApiKeyService {
  readonly limits: ApiKeyLimits;
  /** Key hash (base64) -> true: keys found to be unknown (or revoked). */
  readonly #unknown: TtlCache<string, true>;
  /** Key hash (base64) -> the key's context: keys found good, for LIVE_KEY_TTL_MS at most. */
  readonly #live: TtlCache<string, AuthContext>;
  /**
   * Key hashes that authenticated in this process lately. Never used to authenticate: only
   * to let such a key through while its client address is refused for failed attempts
   * (another client behind the same proxy), and it is checked in the database even then.
   */
  readonly #vouched = new TtlCache<string, true>({ ttlMs: 10 * 60_000, maxEntries: 10_000 });
  readonly #lookups: BatchLoader<string, store.LiveKeyRow>;
  readonly #usage: UsageRecorder;
  readonly #audit: AuditService | undefined;

  constructor(
    private readonly db: Db,
    private readonly vault: KeyVault,
    private readonly changes: Changes,
    opts: ApiKeyServiceOptions = {},
  ) {
    this.limits = opts.limits ?? DEFAULT_API_KEY_LIMITS;
    this.#audit = opts.audit;
    this.#unknown = changes.cache('apiKeysUnknown');
    changes.on(API_KEYS_CHANGED, () => this.#unknown.clear());
    this.#live = changes.cache('apiKeysLive', { ttlMs: opts.liveKeyTtlMs ?? LIVE_KEY_TTL_MS });
    changes.on(API_KEYS_REVOKED, () => this.#live.clear());
    this.#lookups = new BatchLoader(async (digests) => {
      const rows = await store.findLiveKeysByHashes(
        this.db,
        digests.map((d) => Buffer.from(d, 'base64')),
      );
      return new Map(rows.map((r) => [r.key_hash.toString('base64'), r]));
    });
    this.#usage = new UsageRecorder((uses) => store.recordLastUse(this.db, uses), {
      flushMs: opts.usageFlushMs ?? 30_000,
      ...(opts.logger ? { logger: opts.logger } : {}),
    });
  }

  /**
   * Issues a wallet's key for `creator` (the key, session or operator asking), revoking any
   * live one in the same transaction; the key inherits the creator's restrictions
   * (scopesOfNewKey). Run it in `changes.transaction` (as WalletService does) so the change
   * applies locally at COMMIT.
   */
  async issueWalletKey(tx: DbConn, creator: Scoped, businessId: string, walletId: string, network: string): Promise<IssuedKey> {
    const scopes = scopesOfNewKey(creator);
    if ((await store.revokeWalletKeys(tx, walletId)) > 0) await this.changes.publish(tx, API_KEYS_REVOKED);
    return this.issue(tx, { businessId, walletId, scopes }, network === 'mainnet' ? 'sk_live_' : 'sk_test_');
  }

  /** Issues a business key for `creator`: the scopes asked for plus the creator's own (scopesOfNewKey). */
  async issueBusinessKey(tx: DbConn, creator: Scoped, businessId: string, opts: NewBusinessKey = {}): Promise<IssuedKey> {
    const scopes = scopesOfNewKey(creator, opts.scopes);
    return this.issue(tx, { businessId, walletId: null, ...opts, scopes }, 'sk_biz_');
  }

  /** A new secret: 32 random bytes after the kind's prefix. */
  protected newSecret(kind: string): string {
    return `${kind}${randomBytes(32).toString('base64url')}`;
  }

  private async issue(
    tx: DbConn,
    key: Omit<store.NewApiKey, 'id' | 'prefix' | 'hash' | 'ciphertext'> & { scopes: ApiKeyScope[] },
    kind: string,
  ): Promise<IssuedKey> {
    const id = uuidv7();
    const apiKey = this.newSecret(kind);
    const prefix = apiKey.slice(0, PREFIX_LENGTH);
    await store.insertKey(tx, {
      ...key,
      id,
      prefix,
      hash: hashKey(apiKey),
      ciphertext: await this.vault.seal(Buffer.from(apiKey, 'utf8'), id),
    });
    // The new key may have been tried (and cached as unknown) somewhere before it existed.
    await this.changes.publish(tx, API_KEYS_CHANGED);
    return { id, apiKey, prefix, scopes: key.scopes };
  }

  async authenticate(apiKey: string | undefined): Promise<AuthContext | null> {
    return (await this.check(apiKey)).auth;
  }

  /**
   * Authenticates a key, cheapest refusals first: no key, then a key not shaped like ours
   * (no hash, no lookup), then a key known to be unknown (the cache: no database round
   * trip), and only then the batched lookup, if `mayLookUp` allows it (the HTTP layer's
   * failed-auth budget; absent: always).
   */
  async check(apiKey: string | undefined, mayLookUp?: () => boolean): Promise<KeyCheck> {
    if (!apiKey) return { auth: null, reason: 'missing', lookedUp: false };
    if (!plausible(apiKey)) return { auth: null, reason: 'malformed', lookedUp: false };
    const digest = keyDigest(apiKey);
    // Keyed by the hash, never the key: no key in clear sits in memory.
    // A key found good lately (and not revoked since): no lookup, so no call on the budget.
    const known = this.#live.get(digest);
    if (known) {
      this.#vouched.set(digest, true);
      this.#usage.touch(known.keyId);
      return { auth: known };
    }
    if (this.#unknown.get(digest)) return { auth: null, reason: 'unknown', lookedUp: false };
    if (mayLookUp && !mayLookUp()) return { auth: null, reason: 'shed', lookedUp: false };
    const generation = this.#unknown.generation;
    const liveGeneration = this.#live.generation;
    // The lookup is a query that starts after this moment: the entry it makes lives
    // LIVE_KEY_TTL_MS from here, so from before any revocation it could have missed.
    const asked = Date.now();
    const row = await this.#lookups.load(digest);
    // The lookup is by hash; the explicit constant-time comparison keeps the check itself
    // independent of how the database and the map compare bytes.
    const hash = Buffer.from(digest, 'base64');
    if (!row || row.key_hash.length !== hash.length || !timingSafeEqual(row.key_hash, hash)) {
      // Not stored if a key was created meanwhile (the generation moved on).
      this.#unknown.set(digest, true, generation);
      return { auth: null, reason: 'unknown', lookedUp: true };
    }
    this.#vouched.set(digest, true);
    this.#usage.touch(row.id);
    const auth: AuthContext = Object.freeze({
      keyId: row.id,
      businessId: row.business_id,
      walletId: row.wallet_id,
      scopes: Object.freeze(knownScopes(row.scopes)),
      rateLimit: row.rate_limit,
    });
    // Not stored if a revocation was applied meanwhile (the generation moved on).
    this.#live.set(digest, auth, liveGeneration, asked);
    return { auth };
  }

  /** Whether this key authenticated in this process lately (see #vouched). */
  vouches(apiKey: string | undefined): boolean {
    return plausible(apiKey) && this.#vouched.get(keyDigest(apiKey)) === true;
  }

  /** Writes the "last used" times noted so far (they are also written every 30 s). */
  flushUsage(): Promise<void> {
    return this.#usage.flush();
  }

  close(): Promise<void> {
    return this.#usage.close();
  }

  /** The wallet's live key in clear (the webhook signing secret), or null when it has none. */
  async revealWalletKey(walletId: string, db: DbConn = this.db): Promise<string | null> {
    const row = await store.findLiveWalletKey(db, walletId);
    if (!row) return null;
    return (await this.vault.open(row.key_ciphertext, row.id)).toString('utf8');
  }

  /** The business's newest live key without restrictions, in clear (the embedded default's credentials file). */
  async revealBusinessKey(businessId: string): Promise<string | null> {
    const row = await store.findLiveBusinessKey(this.db, businessId);
    if (!row) return null;
    return (await this.vault.open(row.key_ciphertext, row.id)).toString('utf8');
  }

  async walletKeyPrefix(walletId: string): Promise<string | null> {
    return (await store.findLiveWalletKey(this.db, walletId))?.prefix ?? null;
  }

  /** The wallet's live key as the dashboard shows it: prefix, restrictions and last use. */
  async walletKeyInfo(walletId: string): Promise<{ prefix: string; scopes: ApiKeyScope[]; lastUsedAt: string | null } | null> {
    const row = await store.findLiveWalletKey(this.db, walletId);
    return row ? { prefix: row.prefix, scopes: knownScopes(row.scopes), lastUsedAt: row.last_used_at?.toISOString() ?? null } : null;
  }

  /**
   * A new business key (several may be live at once); the key is in this answer only. It
   * carries the scopes asked for plus every restriction of the key creating it.
   */
  async createBusinessKey(auth: AuthContext, input: NewBusinessKey): Promise<ApiKeyView & { apiKey: string }> {
    const issued = await this.changes.transaction(async (tx) => {
      const key = await this.issueBusinessKey(tx, auth, auth.businessId, input);
      await this.#audit?.record(
        {
          businessId: auth.businessId,
          walletId: null,
          actor: actorOf(auth),
          action: 'api_key.created',
          targetType: 'api_key',
          targetId: key.id,
          details: { prefix: key.prefix, scopes: key.scopes, rateLimit: input.rateLimit ?? null },
        },
        tx,
      );
      return key;
    });
    return { ...(await this.getBusinessKey(auth, issued.id)), apiKey: issued.apiKey };
  }

  async listBusinessKeys(
    auth: AuthContext,
    q: { page: number; limit: number; includeRevoked?: boolean },
  ): Promise<{ items: ApiKeyView[]; meta: PageMeta }> {
    requireBusiness(auth);
    const { rows, total } = await store.listBusinessKeys(this.db, auth.businessId, {
      includeRevoked: q.includeRevoked ?? false,
      offset: (q.page - 1) * q.limit,
      limit: q.limit,
    });
    return { items: rows.map(present), meta: pageMeta(q.page, q.limit, rows.length, total) };
  }

  async getBusinessKey(auth: AuthContext, id: string): Promise<ApiKeyView> {
    requireBusiness(auth);
    const row = await store.findBusinessKey(this.db, auth.businessId, id);
    if (!row) throw new NotFoundError('API key');
    return present(row);
  }

  /**
   * Revokes a business key: refused from the next request on in this process, and in every
   * other within LIVE_KEY_TTL_MS (the module comment). Revoking a revoked key changes nothing.
   */
  async revokeBusinessKey(auth: AuthContext, id: string): Promise<ApiKeyView> {
    assertMayRevokeKeys(auth);
    const row = await this.changes.transaction(async (tx) => {
      const revoked = await store.revokeBusinessKey(tx, auth.businessId, id);
      if (!revoked) throw new NotFoundError('API key');
      await this.changes.publish(tx, API_KEYS_REVOKED);
      await this.#audit?.record(
        {
          businessId: auth.businessId,
          walletId: null,
          actor: actorOf(auth),
          action: 'api_key.revoked',
          targetType: 'api_key',
          targetId: id,
          details: { prefix: revoked.prefix },
        },
        tx,
      );
      return revoked;
    });
    return present(row);
  }
}

const knownScopes = (scopes: string[]): ApiKeyScope[] =>
  scopes.filter((s): s is ApiKeyScope => (API_KEY_SCOPES as readonly string[]).includes(s));

function requireBusiness(auth: AuthContext): void {
  if (auth.walletId !== null) throw new ForbiddenError('A wallet API key cannot list API keys; use a business API key');
}

/** Who did it, for the audit trail: a key, or a dashboard user or the CLI (their own ids). */
const actorOf = (auth: AuthContext) => (auth.keyId.includes(':') ? auth.keyId : `api-key:${auth.keyId}`);

function present(row: NonNullable<store.BusinessKeyRow>): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: knownScopes(row.scopes),
    rateLimit: row.rate_limit,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
  };
}
