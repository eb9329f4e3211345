/**
 * The order test files start in: longest first, so the two forks finish together instead of
 * one of them running a five-minute file alone at the end. Vitest orders by the durations it
 * cached in node_modules/.vite from the previous run, and a fresh clone (CI) has none: there
 * its fallback, larger files first, started the slowest file (a short one that runs 25 child
 * processes) last. Files without a cached duration take the rough figures below (seconds,
 * tests and hooks, from the timings reporter on a quiet machine; only their order matters),
 * and the rest follow by size.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const ESTIMATES_S: Record<string, number> = {
  'test/embedded/doc-commands.test.ts': 300,
  'test/api/fuzz.test.ts': 220,
  'test/chains/tron/sweep-crash.test.ts': 115,
  'test/embedded/lifecycle.test.ts': 110,
  'test/chains/tron/deposits.test.ts': 95,
  'test/api/api-keys-cli.test.ts': 90,
  'test/embedded/scale-out.test.ts': 90,
  'test/embedded/deploy.test.ts': 90,
  'test/dashboard/cli.test.ts': 82,
  'test/chains/solana/sweep.test.ts': 80,
  'test/chains/solana/withdrawals-sbatch.test.ts': 75,
  'test/embedded/shutdown.test.ts': 70,
  'test/chains/tron/withdrawals.test.ts': 60,
  'test/embedded/production.test.ts': 55,
  'test/dashboard/throttle.test.ts': 51,
  'test/withdrawals/crash.test.ts': 46,
  'test/keys/rotation.test.ts': 44,
  'test/contracts/rules.test.ts': 42,
  'test/withdrawals/validation.test.ts': 37,
  'test/withdrawals/concurrency.test.ts': 36,
  'test/chains/tron/treasury.test.ts': 35,
  'test/chains/tron/sweep.test.ts': 33,
  'test/beneficiaries/scheduled.test.ts': 33,
  'test/dashboard/http.test.ts': 32,
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
