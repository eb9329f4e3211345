/**
 * Authentication by API key, on every request (the key's life cycle: service.ts).
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
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Db } from '../../db/pool.js';
import type { Changes } from '../../db/changes.js';
import { TtlCache } from '../../lib/ttl-cache.js';
import { BatchLoader } from '../../lib/batch-loader.js';
import type { Logger } from '../../lib/logger.js';
import { knownScopes, type ApiKeyScope } from './scopes.js';
import { UsageRecorder } from './usage.js';
import * as store from './store.js';

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
  /** The service acting on its own schedule (a settlement run); never an API request. Policies see initiator `system`. */
  system?: boolean;
}

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
 * A key as `probe` found it: refused by its shape, or its hash and when it was last noted as
 * authenticated here (#vouched; null: not lately).
 */
export type KeyProbe = { refusal: 'missing' | 'malformed' } | { refusal: null; digest: string; vouchedAt: number | null };

/** How long a key that authenticated here stays vouched for (the module comment, `#vouched`). */
const VOUCHED_MS = 10 * 60_000;

/**
 * An authentication's outcome: the key's context, or why it was refused. `lookedUp` says
 * whether the refusal cost a database lookup; `shed`: the caller's `mayLookUp` said no.
 */
export type KeyCheck =
  | { auth: AuthContext }
  | { auth: null; reason: 'missing' | 'malformed' | 'shed'; lookedUp: false }
  | { auth: null; reason: 'unknown'; lookedUp: boolean };

export interface KeyAuthenticatorOptions {
  logger?: Logger;
  /** How often "last used" is written (default 30 s). */
  usageFlushMs?: number;
  /** Lifetime of a good key in this process's cache (default LIVE_KEY_TTL_MS; tests). */
  liveKeyTtlMs?: number;
}

/** Checks keys against the database through the two caches (the module comment). */
export class KeyAuthenticator {
  /** Key hash (base64) -> true: keys found to be unknown (or revoked). */
  readonly #unknown: TtlCache<string, true>;
  /** Key hash (base64) -> the key's context: keys found good, for LIVE_KEY_TTL_MS at most. */
  readonly #live: TtlCache<string, AuthContext>;
  /**
   * Key hashes that authenticated in this process lately. Never used to authenticate: only
   * to let such a key through while its client address is refused for failed attempts
   * (another client behind the same proxy), and it is checked in the database even then.
   */
  readonly #vouched = new TtlCache<string, number>({ ttlMs: VOUCHED_MS, maxEntries: 10_000 });
  readonly #lookups: BatchLoader<string, store.LiveKeyRow>;
  /**
   * Key hash -> its check under way and when it began: the same key asked again meanwhile (a
   * new key's first burst of requests) waits on that one lookup, without a call on the
   * budget: one lookup spends one slot, whatever number of requests it answers. Only for
   * #liveTtlMs after it began, as its answer would be kept in `#live`: joining a lookup is
   * taking what the database said when it began, and a slow one (a slow database or network
   * path, whose notifications come late as well) otherwise answered requests sent long after
   * a revocation committed, past the bound every process keeps.
   */
  readonly #checking = new Map<string, { check: Promise<KeyCheck>; asked: number }>();
  readonly #liveTtlMs: number;
  readonly #usage: UsageRecorder;

  constructor(
    private readonly db: Db,
    changes: Changes,
    opts: KeyAuthenticatorOptions = {},
  ) {
    this.#unknown = changes.cache('apiKeysUnknown');
    changes.on(API_KEYS_CHANGED, () => this.#unknown.clear());
    this.#liveTtlMs = opts.liveKeyTtlMs ?? LIVE_KEY_TTL_MS;
    this.#live = changes.cache('apiKeysLive', { ttlMs: this.#liveTtlMs });
    changes.on(API_KEYS_REVOKED, () => {
      this.#live.clear();
      // A lookup under way may have read the key before the revocation: requests from now on
      // start their own instead of waiting on it.
      this.#checking.clear();
    });
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
   * Authenticates a key as `probe` found it, cheapest refusals first: no key, then a key not shaped like ours
   * (no hash, no lookup), then a key known to be unknown (the cache: no database round
   * trip), and only then the batched lookup, if `mayLookUp` allows it (the HTTP layer's
   * failed-auth budget; absent: always).
   */
  async check(probe: KeyProbe, mayLookUp?: () => boolean): Promise<KeyCheck> {
    if (probe.refusal) return { auth: null, reason: probe.refusal, lookedUp: false };
    const { digest } = probe;
    // Keyed by the hash, never the key: no key in clear sits in memory.
    // A key found good lately (and not revoked since): no lookup, so no call on the budget.
    const known = this.#live.get(digest);
    if (known) {
      this.#vouch(digest, probe.vouchedAt);
      this.#usage.touch(known.keyId);
      return { auth: known };
    }
    if (this.#unknown.get(digest)) return { auth: null, reason: 'unknown', lookedUp: false };
    const under = this.#checking.get(digest);
    // A lookup older than a good key's lifetime is not joined (#checking): a new one starts.
    if (under && Date.now() - under.asked < this.#liveTtlMs) return under.check;
    if (mayLookUp && !mayLookUp()) return { auth: null, reason: 'shed', lookedUp: false };
    // The lookup is a query that starts after this moment: the entry it makes (and the
    // requests that join it) count LIVE_KEY_TTL_MS from here, so from before any revocation
    // it could have missed.
    const asked = Date.now();
    const check: Promise<KeyCheck> = this.#lookUp(digest, asked).finally(() => {
      // Only its own entry: a revocation (or its age) may have let a newer lookup take its place.
      if (this.#checking.get(digest)?.check === check) this.#checking.delete(digest);
    });
    this.#checking.set(digest, { check, asked });
    return check;
  }

  /** The lookup of a key neither cache knows (begun at `asked`), and the caches written from its answer. */
  async #lookUp(digest: string, asked: number): Promise<KeyCheck> {
    const generation = this.#unknown.generation;
    const liveGeneration = this.#live.generation;
    const row = await this.#lookups.load(digest);
    // The lookup is by hash; the explicit constant-time comparison keeps the check itself
    // independent of how the database and the map compare bytes.
    const hash = Buffer.from(digest, 'base64');
    if (!row || row.key_hash.length !== hash.length || !timingSafeEqual(row.key_hash, hash)) {
      // Not stored if a key was created meanwhile (the generation moved on).
      this.#unknown.set(digest, true, generation);
      return { auth: null, reason: 'unknown', lookedUp: true };
    }
    this.#vouch(digest, null); // a lookup is rare: always noted
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

  /**
   * The request's key, shaped like ours or not, hashed once (the HTTP layer asks whether it
   * authenticated here lately before it checks it: one hash for both).
   */
  probe(apiKey: string | undefined): KeyProbe {
    if (!apiKey) return { refusal: 'missing' };
    if (!plausible(apiKey)) return { refusal: 'malformed' };
    const digest = keyDigest(apiKey);
    return { refusal: null, digest, vouchedAt: this.#vouched.get(digest) ?? null };
  }

  /**
   * Notes that the key authenticated. Rewritten only once half its time has passed, so a key
   * stays vouched for five to ten minutes after its last use, and one in steady use costs no
   * write to the map on each of its requests (that write was ~4% of a cached balance read's
   * CPU).
   */
  #vouch(digest: string, vouchedAt: number | null): void {
    const now = Date.now();
    if (vouchedAt === null || now - vouchedAt >= VOUCHED_MS / 2) this.#vouched.set(digest, now);
  }

  /** Writes the "last used" times noted so far (they are also written every 30 s). */
  flushUsage(): Promise<void> {
    return this.#usage.flush();
  }

  close(): Promise<void> {
    return this.#usage.close();
  }
}
