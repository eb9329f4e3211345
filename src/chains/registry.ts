import type { ChainConfig } from '../config/index.js';
import { NotFoundError } from '../lib/errors.js';
import { addSecretUrl } from '../lib/redact.js';
import { DEFAULT_FAMILY, derivationFor, familyOf, type ChainFamily } from './family-lookup.js';
import type { ChainAdapter, KeyDerivation, SwapProvider } from './types.js';

export type { ChainAdapter, BalanceQuery } from './types.js';
export { CATALOGUE, derivationFor, familyOf, type ChainFamily } from './family-lookup.js';
export { capability, offers } from './capabilities.js';

/**
 * The family of a configured chain (its `blockchain.family`; the default family when absent):
 * its address codec, key derivation and adapter (family-lookup.ts).
 */
export function familyOfChain(chain: ChainConfig): ChainFamily {
  return chain.blockchain.family === undefined ? DEFAULT_FAMILY : familyOf(chain.blockchain.family);
}

/** What an address of the chain looks like, for the error a refused one gets. */
export function addressFormOf(chain: ChainConfig): string {
  return familyOfChain(chain).addressForm;
}

/** Whether a canonical address is its chain family's all-zero address (funds sent there are lost). */
export function isZeroAddress(chain: ChainConfig, address: string): boolean {
  return familyOfChain(chain).codec.equals(familyOfChain(chain).zeroAddress, address);
}

/** Why funds sent to `address` (canonical) on the chain are lost: the zero address, or what its family reserves; null when none. */
export function lostDestination(chain: ChainConfig, address: string): string | null {
  if (isZeroAddress(chain, address)) return 'is the zero address; funds sent there are lost';
  return familyOfChain(chain).lostAt?.(address) ?? null;
}

/**
 * Whether two chains derive the same addresses from one seed (the same family and account
 * path): funds sent to a wallet's address on the other one are the wallet's to recover.
 */
export function sharesKeys(a: ChainConfig, b: ChainConfig): boolean {
  const x = derivationOfChain(a);
  const y = derivationOfChain(b);
  return x.family === y.family && x.accountPath === y.accountPath;
}

/** The key derivation of a configured chain: its family's, at the chain's account path. */
export function derivationOfChain(chain: ChainConfig): KeyDerivation {
  return derivationFor(familyOfChain(chain).name, chain.blockchain.derivationPath);
}

/**
 * The DEX router of a chain, in the seam's terms (its swaps capability), or null when the
 * chain has none configured (or its family has no swap implementation yet).
 */
export function swapProviderFor(adapter: ChainAdapter): SwapProvider | null {
  return adapter.capabilities.swaps ?? null;
}

/** Picks the adapter of one configured chain; undefined leaves its family's. */
export type AdapterFor = (chain: ChainConfig) => ChainAdapter | undefined;

export function chainKey(slug: string, network: string): string {
  return `${slug}:${network}`;
}

/** Adapters of the configured chains, by `slug:network`. */
export class ChainRegistry {
  readonly #byKey = new Map<string, ChainAdapter>();

  /**
   * `adapterFor` may supply a chain's adapter (tests: a test double family, see
   * test/support/ledger-family.ts); undefined from it, or no `adapterFor`, gives its family's
   * (ChainFamily.adapter).
   */
  constructor(chains: ChainConfig[], adapterFor?: AdapterFor) {
    for (const chain of chains) {
      // Its path or query may hold the provider's key, and node errors name the URL (lib/redact.ts).
      addSecretUrl(chain.rpcUrl);
      this.#byKey.set(chainKey(chain.blockchain.slug, chain.network), adapterFor?.(chain) ?? familyOfChain(chain).adapter(chain));
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
