/**
 * Screening providers (docs/aml.md, "Sources"). A provider answers, for addresses of one
 * chain, whether each is on its list, or throws when it cannot answer. Besides the offline
 * lists (lists.ts, in memory), the service runs:
 *
 * - the issuers' blacklists, read on chain: one provider per issuer ('tether', 'circle')
 *   over the chain's assets whose `blacklist` names it;
 * - the sanctions oracle ('sanctions-oracle'), where the chain has one configured;
 * - any number of plugged-in providers (`ScreeningProvider`: an HTTP API such as
 *   Chainalysis's, http-provider.ts), given to createServices.
 *
 * runner.ts puts each (provider, chain) behind a cache, a batcher, a timeout and a health
 * record.
 */
import type { ListRead } from '../../chains/types.js';
import type { ChainHandle } from '../catalogue/service.js';

/** What a provider plugged into the service implements (the HTTP ones: http-provider.ts). */
export interface ScreeningProvider {
  /** Its name in `provider` and `lists` (lower case: 'chainalysis', 'trm', ...). */
  readonly name: string;
  /** Whether it screens addresses of this chain at all. */
  covers(chain: ChainHandle): boolean;
  /**
   * For each address (canonical, the chain's form), in order: whether it is listed. Throws
   * when it cannot answer (the runner times it out and aborts `signal`). Called with up to a
   * few hundred addresses at once: concurrent screenings are batched.
   */
  screen(chain: ChainHandle, addresses: readonly string[], signal: AbortSignal): Promise<boolean[]>;
}

/** Issuer names by blacklist kind: both Tether token generations are Tether's list. */
const ISSUER = { tether: 'tether', 'tether-v2': 'tether', circle: 'circle' } as const;

/** The on-chain providers of a chain: one per issuer with a configured token, and the oracle. */
export function onChainProviders(chain: ChainHandle): ScreeningProvider[] {
  const reads = chain.adapter.screening;
  if (!reads) return [];
  const byIssuer = new Map<string, ListRead[]>();
  for (const a of chain.config.assets) {
    if (a.isNative || !a.blacklist) continue;
    const read: ListRead = { kind: 'issuer', token: a.address, blacklist: a.blacklist };
    if (!reads.supports(read)) continue;
    const issuer = ISSUER[a.blacklist];
    byIssuer.set(issuer, [...(byIssuer.get(issuer) ?? []), read]);
  }
  const out: ScreeningProvider[] = [...byIssuer].map(([name, list]) => onChain(name, list));
  const oracle = chain.config.sanctionsOracle;
  if (oracle && reads.supports({ kind: 'sanctions', oracle })) out.push(onChain('sanctions-oracle', [{ kind: 'sanctions', oracle }]));
  return out;
}

function onChain(name: string, reads: ListRead[]): ScreeningProvider {
  return {
    name,
    covers: () => true,
    async screen(chain, addresses) {
      const answers = await chain.adapter.screening!.read(reads, addresses);
      const out = addresses.map(() => false);
      for (const answer of answers) {
        if (answer instanceof Error) throw answer;
        answer.forEach((listed, i) => (out[i] ||= listed));
      }
      return out;
    },
  };
}
