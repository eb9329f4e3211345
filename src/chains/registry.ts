import type { ChainConfig } from '../config/index.js';
import { NotFoundError } from '../lib/errors.js';
import { EvmAdapter } from './evm/adapter.js';
import { derivationFor, familyOf, type ChainFamily } from './families.js';
import { SolanaAdapter } from './solana/adapter.js';
import { TronAdapter } from './tron/adapter.js';
import { TronNode } from './tron/node.js';
import type { ChainAdapter, KeyDerivation, SwapProvider } from './types.js';

export type { ChainAdapter, BalanceQuery } from './types.js';
export { derivationFor, familyOf, type ChainFamily } from './families.js';
export { capability, offers } from './capabilities.js';

/**
 * The family of a configured chain (its `blockchain.family`, 'evm' when absent): its address
 * codec and key derivation (families.ts).
 */
export function familyOfChain(chain: ChainConfig): ChainFamily {
  return familyOf(chain.blockchain.family ?? 'evm');
}

/** What an address of the chain looks like, for the error a refused one gets. */
export function addressFormOf(chain: ChainConfig): string {
  return familyOfChain(chain).addressForm;
}

/** Whether a canonical address is its chain family's all-zero address (funds sent there are lost). */
export function isZeroAddress(chain: ChainConfig, address: string): boolean {
  return familyOfChain(chain).codec.equals(familyOfChain(chain).zeroAddress, address);
}

/** The key derivation of a configured chain: its family's, at the chain's account path. */
export function derivationOfChain(chain: ChainConfig): KeyDerivation {
  return derivationFor(chain.blockchain.family ?? 'evm', chain.blockchain.derivationPath);
}

/**
 * The DEX router of a chain, in the seam's terms (its swaps capability), or null when the
 * chain has none configured (or its family has no swap implementation yet).
 */
export function swapProviderFor(adapter: ChainAdapter): SwapProvider | null {
  return adapter.capabilities.swaps ?? null;
}

/** Picks the adapter of one configured chain; undefined leaves the default (EVM). */
export type AdapterFor = (chain: ChainConfig) => ChainAdapter | undefined;

export function chainKey(slug: string, network: string): string {
  return `${slug}:${network}`;
}

/**
 * The adapter of a chain's family. A Tron chain's token addresses are checked through the
 * family codec here (the chains file checked only their form: config/ knows no codec), so a
 * base58 typo stops the start instead of reading balances of a contract nobody meant.
 */
function adapterOfFamily(chain: ChainConfig): ChainAdapter {
  switch (chain.blockchain.family ?? 'evm') {
    case 'tron': {
      const codec = familyOfChain(chain).codec;
      for (const asset of chain.assets) {
        if (!asset.isNative && codec.normalize(asset.address) !== asset.address) {
          throw new Error(`${asset.symbol} of ${chain.blockchain.name}: ${asset.address} is not a Tron address (base58check T…)`);
        }
      }
      return new TronAdapter(chain, new TronNode(chain.rpcUrl));
    }
    case 'solana': {
      const codec = familyOfChain(chain).codec;
      for (const asset of chain.assets) {
        if (!asset.isNative && codec.normalize(asset.address) !== asset.address) {
          throw new Error(`${asset.symbol} of ${chain.blockchain.name}: ${asset.address} is not a Solana mint address (base58)`);
        }
      }
      return new SolanaAdapter(chain);
    }
    default:
      return new EvmAdapter(chain);
  }
}

/** Adapters of the configured chains, by `slug:network`. */
export class ChainRegistry {
  readonly #byKey = new Map<string, ChainAdapter>();

  /**
   * `adapterFor` may supply a chain's adapter (tests: a test double family, see
   * test/support/ledger-family.ts); undefined from it, or no `adapterFor`, gives the EVM one.
   */
  constructor(chains: ChainConfig[], adapterFor?: AdapterFor) {
    for (const chain of chains) {
      this.#byKey.set(chainKey(chain.blockchain.slug, chain.network), adapterFor?.(chain) ?? adapterOfFamily(chain));
    }
  }

  get(slug: string, network: string): ChainAdapter {
    const adapter = this.#byKey.get(chainKey(slug, network));
    if (!adapter) throw new NotFoundError(`Chain ${slug} (${network})`);
    return adapter;
  }

  find(slug: string, network: string): ChainAdapter | undefined {
    return this.#byKey.get(chainKey(slug, network));
  }

  all(): ChainAdapter[] {
    return [...this.#byKey.values()];
  }

  close(): void {
    for (const adapter of this.#byKey.values()) adapter.close();
  }
}
