/** EVM keys: secp256k1, BIP32 m/44'/60'/0'/0/i (the catalogue's default account path). */
import { bip32Derivation } from '../bip32-derivation.js';
import type { KeyDerivation } from '../types.js';
import { evmCodec } from './codec.js';

export const EVM_ACCOUNT_PATH = "m/44'/60'/0'/0";

/** A chain may name another account path in its catalogue entry (blockchain.derivationPath). */
export function evmDerivation(accountPath: string = EVM_ACCOUNT_PATH): KeyDerivation {
  return bip32Derivation('evm', accountPath, evmCodec);
}
