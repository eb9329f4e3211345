/**
 * The family table: for each chain family, its address codec and its key derivation (with
 * the family's standard account path). registry.ts and the wallet and address modules ask
 * here instead of importing a family folder; a chain's catalogue entry may still name
 * another account path (`derivationFor`).
 */
import { evmCodec } from './evm/codec.js';
import { EVM_ACCOUNT_PATH, evmDerivation } from './evm/derivation.js';
import { solanaCodec } from './solana/codec.js';
import { SOLANA_ACCOUNT_PATH, solanaDerivation } from './solana/derivation.js';
import { tronCodec } from './tron/codec.js';
import { TRON_ACCOUNT_PATH, tronDerivation } from './tron/derivation.js';
import type { AddressCodec, ChainFamilyName, KeyDerivation } from './types.js';

export interface ChainFamily {
  readonly name: ChainFamilyName;
  readonly codec: AddressCodec;
  /** The derivation at the family's standard account path. */
  readonly derivation: KeyDerivation;
  /** The all-zero address in canonical form: no key controls it, funds sent there are lost. */
  readonly zeroAddress: string;
  /** What an address of the family looks like, for a client whose address was refused. */
  readonly addressForm: string;
}

const FAMILIES: Record<ChainFamilyName, ChainFamily> = {
  evm: {
    name: 'evm',
    codec: evmCodec,
    derivation: evmDerivation(),
    zeroAddress: `0x${'0'.repeat(40)}`,
    addressForm: '0x and 40 hex digits; mixed case must carry a valid EIP-55 checksum',
  },
  // 0x41 and 20 zero bytes.
  tron: {
    name: 'tron',
    codec: tronCodec,
    derivation: tronDerivation(),
    zeroAddress: 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb',
    addressForm: "base58check T… with a valid checksum, or java-tron's hex 41…; an Ethereum 0x address is not a Tron address",
  },
  // 32 zero bytes (also the System Program's id).
  solana: {
    name: 'solana',
    codec: solanaCodec,
    derivation: solanaDerivation,
    zeroAddress: '11111111111111111111111111111111',
    addressForm: 'base58, 32 bytes',
  },
};

export const CHAIN_FAMILIES: readonly ChainFamilyName[] = ['evm', 'tron', 'solana'];

export function isChainFamilyName(name: unknown): name is ChainFamilyName {
  return typeof name === 'string' && Object.hasOwn(FAMILIES, name);
}

export function familyOf(name: ChainFamilyName): ChainFamily {
  const family = FAMILIES[name];
  if (!family) throw new Error(`unknown chain family ${String(name)}`);
  return family;
}

/**
 * The derivation of a family at `accountPath` (a catalogue entry's derivationPath); the
 * family's standard one when absent or equal to it. Solana's layout is fixed (its children
 * are not `accountPath/i`), so another path there is refused rather than silently ignored.
 */
export function derivationFor(name: ChainFamilyName, accountPath?: string): KeyDerivation {
  const family = familyOf(name);
  if (accountPath === undefined || accountPath === family.derivation.accountPath) return family.derivation;
  switch (name) {
    case 'evm':
      return evmDerivation(accountPath);
    case 'tron':
      return tronDerivation(accountPath);
    case 'solana':
      throw new Error(`Solana derives m/44'/501'/i'/0'; account path ${accountPath} is not supported`);
  }
}

export const STANDARD_ACCOUNT_PATHS: Record<ChainFamilyName, string> = {
  evm: EVM_ACCOUNT_PATH,
  tron: TRON_ACCOUNT_PATH,
  solana: SOLANA_ACCOUNT_PATH,
};
