/**
 * The order test files start in: longest first, so the forks finish together instead of
 * one of them running a five-minute file alone at the end. Vitest orders by the durations it
 * cached in node_modules/.vite from the previous run, and a fresh clone (CI) has none: there
 * its fallback, larger files first, started the slowest file (a short one that runs 25 child
 * processes) last. Files without a cached duration take the rough figures below (seconds of
 * tests and hooks, every file of 5 s or more in a fresh clone's whole run on Node 26, on 2
 * quiet cores; only their order matters: a slow file left out would start late, by its size,
 * and end alone), and the rest follow by size.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const ESTIMATES_S: Record<string, number> = {
  'test/embedded/doc-commands.test.ts': 124,
  'test/embedded/shutdown.test.ts': 69,
  'test/embedded/scale-out.test.ts': 55,
  'test/embedded/lifecycle.test.ts': 46,
  'test/checkout/browser.test.ts': 45,
  'test/dashboard/throttle.test.ts': 43,
  'test/embedded/deploy.test.ts': 38,
  'test/embedded/production.test.ts': 37,
  'test/api/fuzz.test.ts': 36,
  'test/chains/tron/sweep-crash.test.ts': 35,
  'test/sdk/doc-commands.test.ts': 35,
  'test/embedded/quickstart.test.ts': 34,
  'test/outbound/pipeline.test.ts': 31,
  'test/chains/solana/withdrawals-sbatch.test.ts': 21,
  'test/chains/solana/sweep.test.ts': 20,
  'test/deposits/sweep.test.ts': 20,
  'test/autosettlements/settle.test.ts': 20,
  'test/aml/evm.test.ts': 20,
  'test/api/api-keys-cli.test.ts': 18,
  'test/dashboard/cli.test.ts': 18,
  'test/api/revocation.test.ts': 17,
  'test/sdk/cli.test.ts': 17,
  'test/chains/tron/sweep.test.ts': 16,
  'test/dashboard/operations.test.ts': 15,
  'test/keys/key-file-permissions.test.ts': 15,
  'test/aml/tron.test.ts': 13,
  'test/chains/solana/withdrawals.test.ts': 12,
  'test/chains/solana/deposits.test.ts': 12,
  'test/withdrawals/concurrency.test.ts': 12,
  'test/chains/tron/treasury.test.ts': 12,
  'test/keys/rotation.test.ts': 12,
  'test/aml/solana.test.ts': 12,
  'test/api/rates.test.ts': 11,
  'test/autosettlements/reorg.test.ts': 11,
  'test/withdrawals/crash.test.ts': 10,
  'test/chains/solana/sweep-crash.test.ts': 10,
  'test/dashboard/browser.test.ts': 9,
  'test/chains/tron/withdrawals.test.ts': 9,
  'test/chains/tron/e2e.test.ts': 9,
  'test/deposits/events.test.ts': 9,
  'test/chains/tron/deposits.test.ts': 8,
  'test/compat/wallet.test.ts': 8,
  'test/withdrawals/lifecycle.test.ts': 8,
  'test/eventfeed/stream.test.ts': 8,
  'test/chains/tron/staking.test.ts': 8,
  'test/contracts/reservations.test.ts': 8,
  'test/sdk/package.test.ts': 8,
  'test/sdk/retries.test.ts': 8,
  'test/withdrawals/happy.test.ts': 7,
  'test/contracts/rules.test.ts': 7,
  'test/dashboard/http.test.ts': 7,
  'test/withdrawals/stuck.test.ts': 7,
  'test/api/addresses.test.ts': 6,
  'test/withdrawals/validation.test.ts': 6,
  'test/keys/pkcs11.test.ts': 6,
  'test/keys/custody.test.ts': 6,
  'test/swaps/api.test.ts': 6,
  'test/api/auth-limits.test.ts': 6,
  'test/jobs/worker-postgres-restart.test.ts': 6,
  'test/architecture/family-fourth.test.ts': 6,
  'test/deposits/indexer.test.ts': 5,
  'test/webhooks/delivery.test.ts': 5,
  'test/beneficiaries/scheduled.test.ts': 5,
  'test/architecture/family-expiry.test.ts': 5,
  'test/architecture/family-stub.test.ts': 5,
  'test/beneficiaries/instant.test.ts': 5,
  'test/webhooks/worker-kill.test.ts': 5,
  'test/chains/tron/salvage.test.ts': 5,
  'test/sdk/generated-types.test.ts': 5,
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
