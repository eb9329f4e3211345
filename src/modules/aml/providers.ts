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
import { BatchLoader } from '../../lib/batch-loader.js';
import type { ChainHandle } from '../catalogue/service.js';

/** What a provider plugged into the service implements (the HTTP ones: http-provider.ts). */
export interface ScreeningProvider {
  /** Its name in `provider` and `lists` (lower case: 'chainalysis', 'trm', ...). */
  readonly name: string;
  /** Whether it screens addresses of this chain at all. */
  covers(chain: ChainHandle): boolean;
  /**
   * Most addresses per call (default 500): as many as it answers in about one request's time.
   * The runner's timeout bounds each call, so a provider asked one address per request gives
   * the requests it runs at once: a call of 500 would take 60-odd round trips, and one
   * business's burst of screenings would time out a healthy provider for every business.
   */
  readonly maxBatch?: number;
  /**
   * For each address (canonical, the chain's form), in order: whether it is listed. Throws
   * when it cannot answer (the runner times it out and aborts `signal`). Called with up to a
   * few hundred addresses at once: concurrent screenings are batched.
   */
  screen(chain: ChainHandle, addresses: readonly string[], signal: AbortSignal): Promise<boolean[]>;
}

/** Issuer names by blacklist kind: both Tether token generations are Tether's list. */
const ISSUER = { tether: 'tether', 'tether-v2': 'tether', circle: 'circle' } as const;

/**
 * The on-chain providers of a chain: one per issuer with a configured token, and the oracle.
 * They share one reader: the addresses they are asked for in the same moment (a screening
 * asks them all at once) go to the chain in one batched read (one Multicall3 call for every
 * list, not one per provider).
 */
export function onChainProviders(chain: ChainHandle): ScreeningProvider[] {
  const reads = chain.adapter.capabilities.screening;
  if (!reads) return [];
  const all: ListRead[] = [];
  const byIssuer = new Map<string, number[]>();
  for (const a of chain.config.assets) {
    if (a.isNative || !a.blacklist) continue;
    const read: ListRead = { kind: 'issuer', token: a.address, blacklist: a.blacklist };
    if (!reads.supports(read)) continue;
    const issuer = ISSUER[a.blacklist];
    byIssuer.set(issuer, [...(byIssuer.get(issuer) ?? []), all.push(read) - 1]);
  }
  const oracle = chain.config.sanctionsOracle;
  const oracleAt = oracle && reads.supports({ kind: 'sanctions', oracle }) ? all.push({ kind: 'sanctions', oracle }) - 1 : null;
  if (all.length === 0) return [];
  const shared = new BatchLoader<string, (boolean | Error)[]>(
    async (addresses) => {
      const answers = await reads.read(all, addresses);
      return new Map(addresses.map((a, i) => [a, answers.map((r) => (r instanceof Error ? r : r[i]!))]));
    },
    // Every provider's runner waits on this one (each with its own timeout): as many in flight as they may ask.
    { maxBatch: 1_000, maxInFlight: 16 },
  );
  const provider = (name: string, indexes: number[]): ScreeningProvider => ({
    name,
    covers: () => true,
    async screen(_chain, addresses) {
      const answers = await Promise.all(addresses.map((a) => shared.load(a)));
      return answers.map((row) => {
        let listed = false;
        for (const i of indexes) {
          const v = row![i]!;
          if (v instanceof Error) throw v;
          listed ||= v;
        }
        return listed;
      });
    },
  });
  return [
    ...[...byIssuer].map(([name, indexes]) => provider(name, indexes)),
    ...(oracleAt === null ? [] : [provider('sanctions-oracle', [oracleAt])]),
  ];
}
