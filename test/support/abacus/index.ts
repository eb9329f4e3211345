/**
 * TEST DOUBLE: the abacus family's registration (src/chains/family.ts), as a real family's
 * chains/<family>/index.ts. Joining the service is this folder plus one line in
 * src/chains/families.ts (test/architecture/family-fourth.test.ts adds it).
 */
import type { ChainConfig, FamilyConfig } from '../../../src/config/index.js';
import { bip32Derivation } from '../../../src/chains/bip32-derivation.js';
import type { ChainFamily } from '../../../src/chains/family.js';
import { NATIVE_ADDRESS } from '../../../src/config/chains.js';
import { AbacusAdapter } from './adapter.js';
import { AbacusChain } from './chain.js';
import { ABACUS_ZERO, abacusCodec } from './codec.js';

/** SLIP-44's coin type 1, every testnet's. */
const ACCOUNT_PATH = "m/44'/1'/0'/0";

const config: FamilyConfig = {
  name: 'abacus',
  article: 'an abacus',
  accountPath: ACCOUNT_PATH,
  nativeDecimals: 8,
  tokenStandard: 'none',
  isEvmCompatible: false,
  addressPattern: 'ab[1-9A-HJ-NP-Za-km-z]{30,36}',
  options: {},
  catalogue: [],
};

export const abacusFamily = {
  name: 'abacus' as const,
  codec: abacusCodec,
  derivation: bip32Derivation('abacus', ACCOUNT_PATH, abacusCodec),
  derivationAt: (accountPath: string) => bip32Derivation('abacus', accountPath, abacusCodec),
  zeroAddress: ABACUS_ZERO,
  addressForm: 'ab…, base58 with a checksum',
  config,
  adapter: (chain: ChainConfig) => new AbacusAdapter(chain, AbacusChain.at(chain.rpcUrl)),
} satisfies ChainFamily;

/** The configuration of an abacus chain served by the AbacusChain running at its rpcUrl. */
export function abacusChainConfig(opts: { chainId: number; rpcUrl: string; confirmations?: number }): ChainConfig {
  return {
    blockchain: {
      slug: `abacus-${opts.chainId}`,
      name: 'Abacus (test double family)',
      symbol: 'ABC',
      nativeDecimals: 8,
      derivationPath: ACCOUNT_PATH,
      tokenStandard: null,
      isEvmCompatible: false,
      isL2: false,
      logoUrl: '',
      family: 'abacus',
    },
    network: 'testnet',
    chainId: opts.chainId,
    rpcUrl: opts.rpcUrl,
    confirmations: opts.confirmations ?? 2,
    startBlock: 0,
    multicall3: null,
    assets: [{ symbol: 'ABC', name: 'Abacus coin', address: NATIVE_ADDRESS, decimals: 8, isNative: true, standard: null, currency: null }],
  };
}
