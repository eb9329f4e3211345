import type { ChainConfig } from '../config/index.js';
import { BusinessRuleError, NotFoundError } from '../lib/errors.js';
import { DEFAULT_FAMILY, derivationFor, familyOf, type ChainFamily } from './families.js';
import type { ForeignLookup } from './family.js';
import { createSwapProvider } from './evm/swap-v2.js';
import type { ChainAdapter, KeyDerivation, Staking, SwapProvider } from './types.js';

export type { ChainAdapter, BalanceQuery } from './types.js';
export { CATALOGUE, derivationFor, familyOf, type ChainFamily } from './families.js';

/**
 * The family of a configured chain (its `blockchain.family`; the default family when absent):
 * its address codec, key derivation and adapter (families.ts).
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

/** The key derivation of a configured chain: its family's, at the chain's account path. */
export function derivationOfChain(chain: ChainConfig): KeyDerivation {
  return derivationFor(familyOfChain(chain).name, chain.blockchain.derivationPath);
}

/**
 * The DEX router of a chain, in the seam's terms, or null when the chain has none
 * configured (or its family has no swap implementation yet).
 */
export function swapProviderFor(adapter: ChainAdapter): SwapProvider | null {
  return createSwapProvider(adapter);
}

/**
 * The optional capabilities a route needs, checked in one place before anything is written
 * or a key is opened: the chain's capability, or a 422 naming the chain (NOT_SUPPORTED; a
 * missing swap router is SWAP_NOT_AVAILABLE, the code auto-settlement rules already answer).
 */
export function stakingOf(adapter: ChainAdapter): Staking {
  if (adapter.staking) return adapter.staking;
  throw new BusinessRuleError('NOT_SUPPORTED', `Staking is not available on ${adapter.config.blockchain.name}`);
}

export function swapsOf(adapter: ChainAdapter): SwapProvider {
  const provider = swapProviderFor(adapter);
  if (provider) return provider;
  throw new BusinessRuleError(
    'SWAP_NOT_AVAILABLE',
    `Swaps are not available on ${adapter.config.blockchain.name}: no swap router is configured`,
  );
}

/**
 * The adapter of a chain of `like`'s family that this installation does not configure, at
 * `url`, for one request (ChainFamily.foreign; EVM only); 422 NOT_SUPPORTED for a family
 * without it. The URL is the client's: one that does not answer as a chain is a 422
 * (RPC_URL_UNREACHABLE), not the 503 of a configured chain's outage.
 */
export async function openForeignChain(like: ChainConfig, url: string, lookup: ForeignLookup): Promise<ChainAdapter> {
  const family = familyOfChain(like);
  if (!family.foreign)
    throw new BusinessRuleError('NOT_SUPPORTED', `A chain named by an RPC URL is not available for ${like.blockchain.name} wallets`);
  try {
    return await family.foreign(url, lookup, like);
  } catch (err) {
    throw new BusinessRuleError('RPC_URL_UNREACHABLE', `rpcUrl did not answer as a chain: ${(err as Error).message.slice(0, 200)}`, [
      { field: 'rpcUrl', message: 'no chain answered there' },
    ]);
  }
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
