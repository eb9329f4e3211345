/**
 * What a caller may change in a wallet's configurations, and what only a business key may do:
 * the checks WalletService.update runs on a patch before merging it (configurations.ts says
 * what relaxes a setting).
 */
import { ForbiddenError, ValidationError } from '../../lib/errors.js';
import type { AuthContext } from '../apikeys/service.js';
import type { ChainHandle } from '../catalogue/service.js';
import { relaxesAml, relaxesContractWrites, type WalletConfigurations, type WalletConfigurationsPatch } from './configurations.js';

/**
 * The allow-list in canonical form (each entry a valid address of the wallet's chain, no
 * duplicates; 400 naming the entry otherwise); relaxing the setting needs a business key.
 */
export function checkContractWrites(
  auth: AuthContext,
  chain: ChainHandle,
  current: WalletConfigurations,
  patch: WalletConfigurationsPatch,
): WalletConfigurationsPatch {
  const given = patch.contractWrites;
  if (!given) return patch;
  let allowedContracts = given.allowedContracts;
  if (allowedContracts) {
    const canonical = allowedContracts.map((a, i) => {
      const c = chain.adapter.normalizeAddress(a);
      if (c) return c;
      const field = `configurations.contractWrites.allowedContracts.${i}`;
      throw new ValidationError(`${field} is not a valid ${chain.key} address`, [{ field, message: 'not a valid address' }]);
    });
    allowedContracts = [...new Set(canonical)];
  }
  const next = { ...current.contractWrites, ...given, ...(allowedContracts ? { allowedContracts } : {}) };
  if (relaxesContractWrites(current.contractWrites, next)) requireBusinessKey(auth, 'switch contract writes on or widen their allow-list');
  return { ...patch, contractWrites: { ...given, ...(allowedContracts ? { allowedContracts } : {}) } };
}

/** AML settings may be made stricter by any key; less strict only by a business key. */
export function checkAml(auth: AuthContext, current: WalletConfigurations, patch: WalletConfigurationsPatch): WalletConfigurationsPatch {
  if (patch.aml && relaxesAml(current.aml, { ...current.aml, ...patch.aml }))
    requireBusinessKey(auth, 'relax AML screening (onDepositHit FLAG, onProviderFailure ALLOW)');
  return patch;
}

export function requireBusinessKey(auth: AuthContext, what: string): void {
  if (auth.walletId !== null) throw new ForbiddenError(`A wallet API key cannot ${what}; use the business API key`);
}
