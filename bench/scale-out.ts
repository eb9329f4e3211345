/**
 * `npm run bench:scale` (also part of `npm run bench`): the scale-out proof of
 * test/embedded/scale-out.test.ts, longer and on both devnet chains. One PostgreSQL; two
 * API processes behind a round-robin client; two workers; two indexers (each follows every
 * chain); all separate processes running the built CLI (built first if needed). Under a
 * mixed load of deposits and withdrawals on every chain: kill -9 of the active indexer, kill
 * -9 of a worker mid-job, a PostgreSQL restart. Then every deposit is checked credited once
 * with one deposit.success, every accepted withdrawal on chain once, nonces without gaps.
 *
 *   BENCH_SCALE_LOAD_S       seconds of load at least (default 60)
 *   BENCH_SCALE_DEPOSIT_MS   pause between deposits per chain (default 150)
 *   BENCH_SCALE_WITHDRAW_MS  pause between withdrawals per chain (default 250)
 *   BENCH_SCALE_PG_DOWN_S    seconds PostgreSQL stays down (default 5)
 *
 * Prints the figures and writes them to bench/results/scale-out.json; exits 1 if a check failed.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { DEVNET_CHAINS } from '../src/devnet/devnet.js';
import { ensureBuilt } from '../test/support/build.js';
import { runScaleOut } from '../test/support/scale-out.js';

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

await ensureBuilt();
const started = Date.now();
const report = await runScaleOut({
  specs: DEVNET_CHAINS,
  addresses: 20,
  depositEveryMs: num('BENCH_SCALE_DEPOSIT_MS', 150),
  withdrawEveryMs: num('BENCH_SCALE_WITHDRAW_MS', 250),
  minLoadMs: num('BENCH_SCALE_LOAD_S', 60) * 1000,
  postgresDownMs: num('BENCH_SCALE_PG_DOWN_S', 5) * 1000,
  settleMs: 180_000,
  log: (line) => console.log(`scale-out: ${line}`),
});
console.log('\nscale-out figures');
for (const [name, value] of Object.entries(report.figures)) console.log(`  ${name.padEnd(52)} ${value}`);
console.log(report.problems.length ? `\nPROBLEMS:\n${report.problems.map((p) => `  ${p}`).join('\n')}` : '\nall checks passed');

const commit = (() => {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
})();
await mkdir(path.join(root, 'bench/results'), { recursive: true });
await writeFile(
  path.join(root, 'bench/results/scale-out.json'),
  `${JSON.stringify(
    {
      commit,
      at: new Date(started).toISOString(),
      seconds: Math.round((Date.now() - started) / 1000),
      host: { cpus: cpus().length, load1: loadavg()[0] },
      figures: report.figures,
      problems: report.problems,
    },
    null,
    2,
  )}\n`,
);
process.exit(report.problems.length ? 1 : 0);
