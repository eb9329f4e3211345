/**
 * The order test files start in: longest first, so the two forks finish together instead of
 * one of them running a five-minute file alone at the end. Vitest orders by the durations it
 * cached in node_modules/.vite from the previous run, and a fresh clone (CI) has none: there
 * its fallback, larger files first, started the slowest file (a short one that runs 25 child
 * processes) last. Files without a cached duration take the rough figures below (seconds,
 * imports, tests and hooks, from the timings reporter: a whole run on Node 26 at load 20 on
 * 2 cores; only their order matters), and the rest follow by size.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const ESTIMATES_S: Record<string, number> = {
  'test/embedded/doc-commands.test.ts': 472,
  'test/api/fuzz.test.ts': 263,
  'test/embedded/lifecycle.test.ts': 146,
  'test/api/api-keys-cli.test.ts': 143,
  'test/embedded/shutdown.test.ts': 141,
  'test/chains/solana/withdrawals.test.ts': 127,
  'test/withdrawals/crash.test.ts': 118,
  'test/embedded/scale-out.test.ts': 117,
  'test/chains/tron/sweep.test.ts': 117,
  'test/chains/tron/sweep-crash.test.ts': 96,
  'test/chains/solana/deposits.test.ts': 95,
  'test/chains/tron/deposits.test.ts': 87,
  'test/dashboard/cli.test.ts': 85,
  'test/chains/solana/withdrawals-sbatch.test.ts': 78,
  'test/outbound/pipeline.test.ts': 76,
  'test/dashboard/throttle.test.ts': 75,
  'test/embedded/deploy.test.ts': 72,
  'test/chains/solana/sweep.test.ts': 70,
  'test/embedded/production.test.ts': 63,
  'test/api/revocation.test.ts': 60,
  'test/deposits/sweep.test.ts': 60,
  'test/chains/solana/sweep-crash.test.ts': 58,
  'test/api/addresses.test.ts': 57,
  'test/withdrawals/concurrency.test.ts': 55,
  'test/autosettlements/settle.test.ts': 48,
  'test/compat/wallet.test.ts': 48,
  'test/withdrawals/validation.test.ts': 45,
  'test/api/rates.test.ts': 42,
  'test/withdrawals/happy.test.ts': 39,
  'test/contracts/rules.test.ts': 38,
  'test/dashboard/http.test.ts': 37,
  'test/chains/tron/treasury.test.ts': 36,
  'test/autosettlements/reorg.test.ts': 32,
  'test/deposits/scan-decode.test.ts': 32,
  'test/dashboard/browser.test.ts': 31,
  'test/keys/rotation.test.ts': 31,
  'test/withdrawals/lifecycle.test.ts': 29,
  'test/keys/pkcs11.test.ts': 27,
  'test/chains/tron/withdrawals.test.ts': 27,
  'test/keys/custody.test.ts': 23,
};

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const weigh = (spec: TestSpecification) => {
      const path = relative(config.root, spec.moduleId);
      const key = `${spec.project.name}:${path}`;
      const cached = cache.getFileTestResults(key);
      return {
        failed: cached?.failed ?? false,
        ms: cached ? cached.duration : (ESTIMATES_S[path] ?? 0) * 1000,
        size: cache.getFileStats(key)?.size ?? 0,
      };
    };
    const weights = new Map(files.map((f) => [f, weigh(f)]));
    return [...files].sort((a, b) => {
      const x = weights.get(a)!;
      const y = weights.get(b)!;
      // Files that failed last time first, as Vitest does, then the longest.
      if (x.failed !== y.failed) return x.failed ? -1 : 1;
      return y.ms - x.ms || y.size - x.size;
    });
  }
}
