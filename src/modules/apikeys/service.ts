/**
 * API keys: long random strings shown once. Stored as a SHA-256 hash (lookup) and an
 * AES-256-GCM copy, because a wallet's key is also the HMAC secret of its webhooks. Their
 * life cycle (issue, reveal, list, revoke) is here; checking a request's key, with the
 * caches that spare the database, is authentication.ts.
 */
import { randomBytes } from 'node:crypto';
import type { DbConn, Db } from '../../db/pool.js';
import type { Changes } from '../../db/changes.js';
import type { KeyVault } from '../../keys/vault.js';
import { uuidv7 } from '../../lib/ids.js';
import { pageMeta, type PageMeta } from '../../lib/schema.js';
import { ForbiddenError, NotFoundError } from '../../lib/errors.js';
import type { AuditService } from '../audit/service.js';
import { assertMayRevokeKeys, knownScopes, rateLimitOfNewKey, scopesOfNewKey, type ApiKeyScope, type Scoped } from './scopes.js';
import {
  API_KEYS_CHANGED,
  API_KEYS_REVOKED,
  hashKey,
  KeyAuthenticator,
  type AuthContext,
  type KeyAuthenticatorOptions,
  type KeyCheck,
  type KeyProbe,
} from './authentication.js';
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
export {
  API_KEYS_CHANGED,
  API_KEYS_REVOKED,
  hashKey,
  LIVE_KEY_TTL_MS,
  type AuthContext,
  type KeyCheck,
  type KeyProbe,
} from './authentication.js';

export interface IssuedKey {
  id: string;
  apiKey: string;
  prefix: string;
  /** The new key's restrictions: those asked for plus every one of its creator's (scopesOfNewKey). */
  scopes: ApiKeyScope[];
  /** Its own request rate as given (rateLimitOfNewKey: a throttled creator's when none was asked); null: the default. */
  rateLimit: number | null;
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

export interface ApiKeyServiceOptions extends KeyAuthenticatorOptions {
  limits?: ApiKeyLimits;
  audit?: AuditService;
}

const PREFIX_LENGTH = 12;

export class ApiKeyService {
  readonly limits: ApiKeyLimits;
  readonly #auth: KeyAuthenticator;
  readonly #audit: AuditService | undefined;

  constructor(
    private readonly db: Db,
    private readonly vault: KeyVault,
    private readonly changes: Changes,
    opts: ApiKeyServiceOptions = {},
  ) {
    this.limits = opts.limits ?? DEFAULT_API_KEY_LIMITS;
    this.#audit = opts.audit;
    this.#auth = new KeyAuthenticator(db, changes, opts);
  }

  /**
   * Issues a wallet's key for `creator` (the key, session or operator asking), revoking any
   * live one in the same transaction; the key inherits the creator's restrictions
   * (scopesOfNewKey). Run it in `changes.transaction` (as WalletService does) so the change
   * applies locally at COMMIT.
   */
  async issueWalletKey(
    tx: DbConn,
    creator: Scoped & { keyId?: string },
    businessId: string,
    walletId: string,
    network: string,
  ): Promise<IssuedKey> {
    const scopes = scopesOfNewKey(creator);
    const rateLimit = rateLimitOfNewKey(creator, undefined);
    const revoked = await store.revokeWalletKeys(tx, walletId);
    if (revoked.length > 0) await this.changes.publish(tx, API_KEYS_REVOKED);
    const key = await this.issue(
      tx,
      { businessId, walletId, scopes, ...(rateLimit !== undefined ? { rateLimit } : {}) },
      network === 'mainnet' ? 'sk_live_' : 'sk_test_',
    );
    // On the audit trail as business keys are (by prefix, never the key): the replaced key, then the new one.
    const actor = creator.keyId !== undefined ? actorOf({ keyId: creator.keyId }) : 'operator';
    const entry = (action: string, id: string, details: Record<string, unknown>) => ({
      businessId,
      walletId,
      actor,
      action,
      targetType: 'api_key',
      targetId: id,
      details,
    });
    await this.#audit?.recordMany(
      [
        ...revoked.map((r) => entry('api_key.revoked', r.id, { prefix: r.prefix, replacedBy: key.id })),
        entry('api_key.created', key.id, { prefix: key.prefix, scopes: key.scopes }),
      ],
      tx,
    );
    return key;
  }

  /** Issues a business key for `creator`: the scopes asked for plus the creator's own (scopesOfNewKey). */
  async issueBusinessKey(tx: DbConn, creator: Scoped, businessId: string, opts: NewBusinessKey = {}): Promise<IssuedKey> {
    const scopes = scopesOfNewKey(creator, opts.scopes);
    const rateLimit = rateLimitOfNewKey(creator, opts.rateLimit);
    return this.issue(tx, { businessId, walletId: null, ...opts, scopes, ...(rateLimit !== undefined ? { rateLimit } : {}) }, 'sk_biz_');
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
      ciphertext: await this.vault.seal(Buffer.from(apiKey, 'utf8'), id, tx),
    });
    // The new key may have been tried (and cached as unknown) somewhere before it existed.
    await this.changes.publish(tx, API_KEYS_CHANGED);
    return { id, apiKey, prefix, scopes: key.scopes, rateLimit: key.rateLimit ?? null };
  }

  async authenticate(apiKey: string | undefined): Promise<AuthContext | null> {
    return (await this.#auth.check(this.#auth.probe(apiKey))).auth;
  }

  /** Authenticates a key (authentication.ts, KeyAuthenticator.check). */
  check(probe: KeyProbe, mayLookUp?: () => boolean): Promise<KeyCheck> {
    return this.#auth.check(probe, mayLookUp);
  }

  /** The key hashed once, and whether it authenticated here lately (KeyAuthenticator.probe). */
  probe(apiKey: string | undefined): KeyProbe {
    return this.#auth.probe(apiKey);
  }

  /** Writes the "last used" times noted so far (they are also written every 30 s). */
  flushUsage(): Promise<void> {
    return this.#auth.flushUsage();
  }

  close(): Promise<void> {
    return this.#auth.close();
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
          details: { prefix: key.prefix, scopes: key.scopes, rateLimit: key.rateLimit },
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

function requireBusiness(auth: AuthContext): void {
  if (auth.walletId !== null) throw new ForbiddenError('A wallet API key cannot list API keys; use a business API key');
}

/** Who did it, for the audit trail: a key, or a dashboard user or the CLI (their own ids). */
const actorOf = (auth: Pick<AuthContext, 'keyId'>) => (auth.keyId.includes(':') ? auth.keyId : `api-key:${auth.keyId}`);

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
