/** Tron keys: secp256k1, BIP32 m/44'/195'/0'/0/i (SLIP-44 coin 195, as TronLink derives). */
import { bip32Derivation } from '../bip32-derivation.js';
import type { KeyDerivation } from '../types.js';
import { tronCodec } from './codec.js';

export const TRON_ACCOUNT_PATH = "m/44'/195'/0'/0";

export function tronDerivation(accountPath: string = TRON_ACCOUNT_PATH): KeyDerivation {
  return bip32Derivation('tron', accountPath, tronCodec);
}
