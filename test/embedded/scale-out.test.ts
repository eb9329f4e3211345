/**
 * Scale-out proof (test/support/scale-out.ts), sized to run in about two minutes: one
 * PostgreSQL, two API processes behind a round-robin client, two workers and two indexers
 * per chain, all separate processes running the built CLI, under a mixed load of deposits
 * and withdrawals while the active indexer and a worker are killed with SIGKILL and
 * PostgreSQL restarts. `npm run bench` runs the same longer (bench/scale-out.ts).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../support/build.js';
import { killAll } from '../support/cli.js';
import { runScaleOut } from '../support/scale-out.js';

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);

afterAll(async () => {
  await killAll();
});

it('scales out and survives kill -9 of the active indexer and of a worker, and a PostgreSQL restart', { timeout: 300_000 }, async () => {
  const report = await runScaleOut({
    specs: [DEVNET_CHAINS[0]!],
    addresses: 8,
    depositEveryMs: 300,
    withdrawEveryMs: 500,
    minLoadMs: 15_000,
    postgresDownMs: 3_000,
    settleMs: 90_000,
    log: (line) => console.log(`[scale-out] ${line}`),
  });
  console.log(
    `[scale-out] figures:\n${Object.entries(report.figures)
      .map(([k, v]) => `  ${k}: ${v}`)
      .join('\n')}`,
  );
  expect(report.problems).toEqual([]);
  expect(report.figures['deposits']).toBeGreaterThan(10);
  expect(report.figures['withdrawals accepted']).toBeGreaterThan(10);
});
