/**
 * What a key may do beyond its kind (wallet or business): restrictions a business puts on
 * a key when it creates it. A key without scopes may do everything its kind may.
 */
import { ForbiddenError } from '../../lib/errors.js';

export const API_KEY_SCOPES = ['READ_ONLY', 'NO_KEY_EXPORT'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** The part of an authentication the scope rules need. */
export interface Scoped {
  walletId: string | null;
  scopes?: readonly ApiKeyScope[];
}

const has = (auth: Scoped, scope: ApiKeyScope) => auth.scopes?.includes(scope) ?? false;

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
 * Creating and revoking business keys takes a business key without restrictions: a
 * restricted key could otherwise make itself an unrestricted one, or revoke the owner's.
 */
export function assertMayManageKeys(auth: Scoped): void {
  if (auth.walletId !== null) throw new ForbiddenError('A wallet API key cannot manage API keys; use a business API key');
  if (auth.scopes?.length)
    throw new ForbiddenError('Only a business API key without restrictions can create or revoke API keys', 'KEY_RESTRICTED');
}
