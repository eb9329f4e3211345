/**
 * A LocalSigner as services.ts builds one (and an EVM address deriver over keys/hd.ts), for tests that sign without the service graph:
 * it is handed the wallet's family keys (the EVM family's unless `keysOf` says otherwise:
 * the signer knows curves, not families) and the families' message standards.
 */
import { evmAddressOfPublicKey } from '../../src/chains/evm/address.js';
import { familyOf } from '../../src/chains/family-lookup.js';
import { messageSigning } from '../../src/chains/messages.js';
import type { OpenMnemonic } from '../../src/keys/account-cache.js';
import { PublicKeyDeriver } from '../../src/keys/hd.js';
import { LocalSigner, type LocalSignerOptions } from '../../src/keys/signer.js';

/** The EVM family's keys at its standard account path, m/44'/60'/0'/0. */
export const evmKeys: LocalSignerOptions['keysOf'] = async () => familyOf('evm');

export function localSigner(open: OpenMnemonic, opts: Partial<LocalSignerOptions> = {}): LocalSigner {
  return new LocalSigner(open, { keysOf: evmKeys, messages: messageSigning, ...opts });
}

/** keys/hd.ts's PublicKeyDeriver naming each child's EVM address (what tests compare with viem's). */
export class AddressDeriver extends PublicKeyDeriver {
  address(index: number): string {
    return evmAddressOfPublicKey(this.publicKey(index));
  }
}
