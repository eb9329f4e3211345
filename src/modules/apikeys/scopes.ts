/**
 * What a key may do beyond its kind (wallet or business). Two sorts of scopes:
 * - restrictions a business puts on a key when it creates it (READ_ONLY, NO_KEY_EXPORT): a
 *   key without them may do everything its kind may;
 * - grants (APPROVE: vote on approvals; MANAGE_POLICIES: change transaction policies) that
 *   a business key has only when the operator gave them (the CLI): holding a business key
 *   must not be enough to approve a payout or lift the rules that hold it.
 */
import { ForbiddenError, ValidationError } from '../../lib/errors.js';

export const KEY_RESTRICTIONS = ['READ_ONLY', 'NO_KEY_EXPORT'] as const;
export const KEY_GRANTS = ['APPROVE', 'MANAGE_POLICIES'] as const;
export const API_KEY_SCOPES = [...KEY_RESTRICTIONS, ...KEY_GRANTS] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];
export type KeyGrant = (typeof KEY_GRANTS)[number];

/** The part of an authentication the scope rules need. */
export interface Scoped {
  walletId: string | null;
  scopes?: readonly ApiKeyScope[];
  /** The installation's operator (CLI, seeding): may give grants. Never set for an API request. */
  operator?: boolean;
  /** The key's own request rate (per second and instance); null, 0 or absent: none of its own. */
  rateLimit?: number | null;
}

/**
 * The request rate of a key `creator` makes. A key given a rate of its own (its holder held
 * to N requests a second) makes none faster: what it asks for is at most its own rate, and
 * asking for none (the default) or for 0 (unlimited) is its own rate too, or a refusal. Without
 * this a throttled key minted an unthrottled one. The operator, and a key without a rate of its
 * own, give any rate.
 */
export function rateLimitOfNewKey(creator: Scoped, requested: number | null | undefined): number | null | undefined {
  const own = creator.rateLimit;
  if (creator.operator || own === null || own === undefined || own === 0) return requested;
  if (requested === null || requested === undefined) return own;
  if (requested === 0 || requested > own) {
    throw new ValidationError(`A key limited to ${own} requests per second cannot create a key allowed more`, [
      { field: 'rateLimit', message: `at most ${own} (this key's own limit)` },
    ]);
  }
  return requested;
}

/**
 * The installation itself as the creator of a key: the `create-business` command and the
 * embedded default's seeding, which act for no key. Unrestricted, as the business's first key is.
 */
export const OPERATOR: Scoped = Object.freeze({ walletId: null, scopes: Object.freeze([]), operator: true });

const has = (auth: Scoped, scope: ApiKeyScope) => auth.scopes?.includes(scope) ?? false;

/** A business key's grant (a wallet key has none). */
export function hasGrant(auth: Scoped, grant: KeyGrant): boolean {
  return auth.walletId === null && has(auth, grant);
}

export function isReadOnly(auth: Scoped): boolean {
  return has(auth, 'READ_ONLY');
}

/** Before anything that changes state: a read-only key may only read. */
export function assertMayWrite(auth: Scoped): void {
  if (isReadOnly(auth)) throw new ForbiddenError('This API key is read-only: it may only send GET requests', 'KEY_READ_ONLY');
}

/** Before a private key leaves the service. A read-only key may not export either. */
export function assertMayExportKeys(auth: Scoped): void {
  if (has(auth, 'NO_KEY_EXPORT') || isReadOnly(auth)) {
    throw new ForbiddenError('This API key may not export private keys', 'KEY_EXPORT_NOT_ALLOWED');
  }
}

/**
 * The one rule for every key that is minted or replaced (a business key, a new wallet's
 * key, a regenerated wallet key; over the API, the dashboard or the CLI): the scopes the new
 * key carries. A key can only create keys with at most its own reach, so the new key keeps
 * every restriction of its creator besides those asked for; a read-only key and a wallet
 * key create none. Without this a NO_KEY_EXPORT key could mint (or regenerate) a key that
 * exports private keys.
 */
export function scopesOfNewKey(creator: Scoped, requested: readonly ApiKeyScope[] = []): ApiKeyScope[] {
  if (creator.walletId !== null) throw new ForbiddenError('A wallet API key cannot create API keys; use a business API key');
  if (isReadOnly(creator)) throw new ForbiddenError('This API key is read-only: it cannot create API keys', 'KEY_READ_ONLY');
  // A key that approves payouts makes no key that asks for them (a business key, a wallet's
  // key): its holder would pay out with the new key and approve the payout itself.
  if (hasGrant(creator, 'APPROVE') && !creator.operator) {
    throw new ForbiddenError(
      'A key that may approve payouts cannot create API keys or wallets: it would approve what its own keys pay out',
      'APPROVER_KEY',
    );
  }
  const grants = KEY_GRANTS.filter((g) => requested.includes(g));
  if (grants.length > 0 && !creator.operator) {
    throw new ForbiddenError(`Only the operator can give ${grants.join(' and ')} (the api-key command)`, 'KEY_GRANT_NOT_ALLOWED');
  }
  return [...KEY_RESTRICTIONS.filter((s) => requested.includes(s) || has(creator, s)), ...grants];
}

/**
 * Revoking business keys takes a business key without restrictions: a restricted key
 * could otherwise revoke the owner's keys.
 */
export function assertMayRevokeKeys(auth: Scoped): void {
  if (auth.walletId !== null) throw new ForbiddenError('A wallet API key cannot manage API keys; use a business API key');
  if (KEY_RESTRICTIONS.some((s) => has(auth, s))) {
    throw new ForbiddenError('Only a business API key without restrictions can revoke API keys', 'KEY_RESTRICTED');
  }
}

/** A stored key's scopes that this version knows (an unknown one, from a newer version, is left out). */
export const knownScopes = (scopes: string[]): ApiKeyScope[] =>
  scopes.filter((s): s is ApiKeyScope => (API_KEY_SCOPES as readonly string[]).includes(s));
