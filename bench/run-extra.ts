/**
 * The issue-3 (webhooks), issue-4 (deposits), issue-5 (withdrawals) and issue-11 (auth
 * flood) benchmarks, each on worlds of its own (see startExtraWorld in webhooks.ts:
 * embedded PostgreSQL with fsync on, an anvil devnet, the real service graph and app).
 *
 *   tsx bench/run-extra.ts [webhooks|deposits|backfill|withdrawals|auth|revocation|tron|tron-sweeps|solana|all] [--diagnose]
 *
 *   BENCH_RUNS               measured runs per benchmark (default 3, minimum 3)
 *   webhooks:
 *   BENCH_LATENCY_EVENTS     events per latency run (default 200), emitted at
 *   BENCH_LATENCY_RATE       events per second, open loop (default 50)
 *   BENCH_WEBHOOK_EVENTS     events per throughput run (default 5,000), written in
 *   BENCH_WEBHOOK_TXS        parallel transactions committed together (default 5)
 *   deposits, detection:
 *   BENCH_POLL_MS            indexer pause at the head (default 250; production 500)
 *   BENCH_DEPOSITS           deposits per run (default 30), spread over
 *   BENCH_SPREAD_S           seconds (default 12)
 *   deposits, backfill:
 *   BENCH_WATCHED            watched child addresses (default 100,000)
 *   BENCH_TRANSFERS          token transfers to distinct ones (default 10,000)
 *   BENCH_SPAN_BLOCKS        blocks they are spread over (default 1,000)
 *   BENCH_BATCHES            indexer range sizes, comma-separated (default "100", the production
 *                            INDEXER_BATCH_BLOCKS; e.g. "100,500"); the first gets BENCH_RUNS
 *                            runs, the others
 *   BENCH_EXTRA_BATCH_RUNS   runs each (default 1)
 *   BENCH_CPU_PROF=1         CPU-profile the first webhook drain and the first backfill run
 *                            (main thread; files in the temp dir); print the top entries
 *   withdrawals:
 *   BENCH_WITHDRAWALS        withdrawals posted at once per run (default 500)
 *   BENCH_WD_BLOCK_TIME      anvil block time in seconds (default 1; 0 = automine)
 *   tron (tron-deposits.ts, issue 15):
 *   BENCH_TRON_DEPOSITS      USDT deposits per run (default 10), spread over
 *   BENCH_TRON_SPREAD_S      seconds (default 9)
 *   BENCH_TRON_BLOCK_MS      the stand-in's block time (default 3000, mainnet's)
 *   BENCH_TRON_ISSUANCE_S    seconds per issuance run, Tron then EVM (default 5)
 *   tron-sweeps (tron-sweeps.ts, issue 15: sweep cost with energy lent vs TRX burned):
 *   BENCH_TRON_SWEEPS        rounds (default 5): a new child each way, two deposits to it
 *   (BENCH_TRON_BLOCK_MS     also sets the sweep part's block time; its default there: 100)
 *   BENCH_TRON_BANDWIDTH_TRX TRX both masters stake for bandwidth (default 0)
 *   solana (solana.ts, issue 16: detection at finalized, issuance vs EVM, withdrawals vs bare kit):
 *   BENCH_SOL_DEPOSITS       USDC deposits per run (default 10), spread over
 *   BENCH_SOL_SPREAD_S       seconds (default 5)
 *   BENCH_SOL_SLOT_MS        the stand-in's slot time (default 400, the cluster's)
 *   BENCH_SOL_ISSUANCE_S     seconds per issuance run, Solana then EVM (default 5)
 *   BENCH_SOL_WITHDRAWALS    USDC withdrawals posted at once per run, and bare kit sends (default 100)
 *   auth (auth-flood.ts):
 *   BENCH_AUTH_DURATION      seconds per measured run, alone and under the flood (default 10)
 *   BENCH_AUTH_FLOODS        which floods: single (one other address), distributed (a new
 *                            address per request), or both comma-separated (default both)
 *   BENCH_AUTH_FLOOD_RATE    requests per second of the distributed flood (default 810)
 *   revocation (revocation.ts, issue 29: another replica's window after a key is revoked):
 *   BENCH_REVOCATIONS        revocations per run (default 100)
 *   --diagnose               extra runs, reported but not in the targets: the auth flood with
 *                            refusals sent at once; webhook throughput
 *                            with concurrency 50 and a 60-connection pool, with synchronous_commit
 *                            off, and both; a backfill run without TOAST compression of the
 *                            two big per-event columns
 *
 * Prints one line per figure (median of the runs, the runs, spread, target, pass/fail) and
 * writes the same as JSON to bench/results/extra.json. A run of one part keeps the other
 * parts' figures and details already in the file (each figure's name starts with its part).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, load1 } from './stats.js';
import { activeWorlds, benchWebhooks, type ExtraFigure, type WebhookBenchReport } from './webhooks.js';
import { benchBackfill, benchDetection, type BackfillReport, type DetectionReport } from './deposits.js';
import { benchWithdrawals } from './withdrawals.js';
import { benchAuthFlood, floodWorlds } from './auth-flood.js';
import { benchTronDeposits } from './tron-deposits.js';
import { benchTronSweeps } from './tron-sweeps.js';
import { benchSolana } from './solana.js';
import { benchRevocation } from './revocation.js';

const log = (line: string) => console.log(line);
const env = (name: string, fallback: number) => {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number`);
  return n;
};

const which = process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 'all';
const PARTS = ['webhooks', 'deposits', 'withdrawals', 'auth', 'revocation', 'tron', 'tron-sweeps', 'solana'];
/** Parts that run a piece of another alone: `backfill` is the second half of `deposits`. */
const SUBPARTS: Record<string, string> = { backfill: 'deposits' };
if (![...PARTS, ...Object.keys(SUBPARTS), 'all'].includes(which)) {
  console.error(
    'usage: tsx bench/run-extra.ts [webhooks|deposits|backfill|withdrawals|auth|revocation|tron|tron-sweeps|solana|all] [--diagnose]',
  );
  process.exit(2);
}
const diagnose = process.argv.includes('--diagnose');
const runs = Math.max(3, env('BENCH_RUNS', 3));
const settings = {
  runs,
  latencyEvents: env('BENCH_LATENCY_EVENTS', 200),
  latencyRate: env('BENCH_LATENCY_RATE', 50),
  webhookEvents: env('BENCH_WEBHOOK_EVENTS', 5_000),
  webhookTxs: Math.max(1, env('BENCH_WEBHOOK_TXS', 5)),
  pollMs: env('BENCH_POLL_MS', 250),
  deposits: env('BENCH_DEPOSITS', 30),
  spreadS: env('BENCH_SPREAD_S', 12),
  watched: env('BENCH_WATCHED', 100_000),
  transfers: env('BENCH_TRANSFERS', 10_000),
  spanBlocks: env('BENCH_SPAN_BLOCKS', 1_000),
  batches: (process.env.BENCH_BATCHES ?? '100').split(',').map((s) => Number(s.trim())),
  extraBatchRuns: env('BENCH_EXTRA_BATCH_RUNS', 1),
  cpuProfile: process.env.BENCH_CPU_PROF === '1',
  withdrawals: env('BENCH_WITHDRAWALS', 500),
  withdrawalBlockTime: env('BENCH_WD_BLOCK_TIME', 1),
  authDuration: env('BENCH_AUTH_DURATION', 10),
  authFloods: (process.env.BENCH_AUTH_FLOODS || 'single,distributed').split(',').map((s) => s.trim()),
  authFloodRate: env('BENCH_AUTH_FLOOD_RATE', 810),
  revocations: env('BENCH_REVOCATIONS', 100),
  tronDeposits: env('BENCH_TRON_DEPOSITS', 10),
  tronSpreadS: env('BENCH_TRON_SPREAD_S', 9),
  tronBlockMs: env('BENCH_TRON_BLOCK_MS', 3000),
  tronIssuanceS: env('BENCH_TRON_ISSUANCE_S', 5),
  solDeposits: env('BENCH_SOL_DEPOSITS', 10),
  solSpreadS: env('BENCH_SOL_SPREAD_S', 5),
  solSlotMs: env('BENCH_SOL_SLOT_MS', 400),
  solIssuanceS: env('BENCH_SOL_ISSUANCE_S', 5),
  solWithdrawals: env('BENCH_SOL_WITHDRAWALS', 100),
};
if (settings.batches.some((b) => !Number.isInteger(b) || b < 1)) throw new Error('BENCH_BATCHES must be positive integers');
if (settings.authFloods.some((f) => f !== 'single' && f !== 'distributed'))
  throw new Error('BENCH_AUTH_FLOODS must list single and/or distributed');

function printTable(figures: ExtraFigure[]): void {
  const head = ['figure', 'median', 'runs', 'spread', 'target', 'result'];
  const body = figures.map((f) => [
    f.name,
    `${fmt(f.median, f.digits)} ${f.unit}`.trim(),
    f.runs.map((r) => fmt(r, f.digits)).join(' / '),
    f.spreadPct === null ? '-' : `${fmt(f.spreadPct, 1)}%`,
    f.target,
    f.pass === null ? 'info' : f.pass ? 'PASS' : 'FAIL',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 1 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ');
  log(line(head));
  log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of body) log(line(r));
}

/** Which code was measured: the commit, and whether src/ had uncommitted changes. */
function codeState(): string {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = git('status', '--porcelain', '--', 'src').split('\n').filter(Boolean).length;
    return `${git('rev-parse', '--short', 'HEAD')}${dirty ? ` + ${dirty} uncommitted change(s) in src/` : ' (clean src/)'}`;
  } catch {
    return 'unknown (no git)';
  }
}

const loadStr = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');

async function main(): Promise<void> {
  const code = codeState();
  const command = `tsx bench/run-extra.ts ${which}${diagnose ? ' --diagnose' : ''}`;
  const loadBefore = loadavg();
  const started = Date.now();
  log(`issue-3/4/5/11 benchmarks: ${command} (BENCH_RUNS=${runs})`);
  log(`code: ${code}`);
  log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), Node ${process.version}, load average ${loadStr(loadBefore)}`);
  if (load1() > 1) log('note: the 1-minute load is above 1 on 2 cores: other work (e.g. tests) is competing; figures are pessimistic');

  const figures: ExtraFigure[] = [];
  const details: Record<string, unknown> = {};
  const loads: Record<string, number[]> = {};

  if (which === 'webhooks' || which === 'all') {
    log(`\n== webhooks (issue 3): latency and sustained deliveries, ${runs} runs ==`);
    const w: WebhookBenchReport = await benchWebhooks({
      runs,
      latencyEvents: settings.latencyEvents,
      latencyRate: settings.latencyRate,
      throughputEvents: settings.webhookEvents,
      enqueueTransactions: settings.webhookTxs,
      throughputRuns: runs,
      cpuProfile: settings.cpuProfile,
      log,
    });
    figures.push(...w.figures);
    details.webhooks = w.details;
    loads.webhooks = loadavg();
    log(
      `  pooled latency over ${w.details.latencyPooled.n} events: p50 ${fmt(w.details.latencyPooled.p50, 1)} ms, p99 ${fmt(w.details.latencyPooled.p99, 1)} ms; signing both signatures: ${fmt(w.details.signingPerSecond, 0)}/s`,
    );
    if (diagnose) {
      const variants: { name: string; opts: Partial<Parameters<typeof benchWebhooks>[0]> }[] = [
        { name: 'concurrency 50, service pool 60', opts: { concurrency: 50, poolMax: 60 } },
        { name: 'synchronous_commit = off (diagnostic only)', opts: { asyncCommit: true } },
        { name: 'concurrency 50, pool 60, synchronous_commit = off', opts: { concurrency: 50, poolMax: 60, asyncCommit: true } },
      ];
      const rows: Record<string, unknown>[] = [];
      for (const v of variants) {
        log(`\n== webhooks diagnostic: ${v.name}, 1 throughput run ==`);
        const r = await benchWebhooks({
          runs,
          latencyEvents: 0,
          latencyRate: 1,
          throughputEvents: settings.webhookEvents,
          enqueueTransactions: settings.webhookTxs,
          throughputRuns: 1,
          log,
          ...v.opts,
        });
        rows.push({ variant: v.name, ...r.details.throughput[0], settings: r.details.settings });
      }
      details.webhookDiagnostics = rows;
    }
  }

  if (which === 'deposits' || which === 'all') {
    log(`\n== deposits (issue 4a): detection latency, ${runs} runs ==`);
    const d: DetectionReport = await benchDetection({
      runs,
      depositsPerRun: settings.deposits,
      spreadSeconds: settings.spreadS,
      pollMs: settings.pollMs,
      log,
    });
    figures.push(...d.figures);
    details.detection = d.details;
    loads.detection = loadavg();
    log(
      `  pooled over ${d.details.pooled.n} deposits: p50 ${fmt(d.details.pooled.p50, 0)} ms, p99 ${fmt(d.details.pooled.p99, 0)} ms, max ${fmt(d.details.pooled.max, 0)} ms`,
    );
  }

  if (which === 'deposits' || which === 'backfill' || which === 'all') {
    log(
      `\n== deposits (issue 4b): backfill of ${settings.transfers.toLocaleString('en-US')} transfers among ${settings.watched.toLocaleString('en-US')} watched addresses, batch sizes ${settings.batches.join(', ')} ==`,
    );
    const b: BackfillReport = await benchBackfill({
      runs,
      watched: settings.watched,
      transfers: settings.transfers,
      perTx: 250,
      spanBlocks: settings.spanBlocks,
      batchSizes: settings.batches,
      extraBatchRuns: Math.max(1, settings.extraBatchRuns),
      cpuProfile: settings.cpuProfile,
      diagnose,
      log,
    });
    figures.push(...b.figures);
    details.backfill = b.details;
    loads.backfill = loadavg();
  }

  if (which === 'withdrawals' || which === 'all') {
    log(`\n== withdrawals (issue 5): ${settings.withdrawals} posted at once to one master wallet, ${runs} runs ==`);
    const r = await benchWithdrawals({
      runs,
      count: settings.withdrawals,
      blockTime: settings.withdrawalBlockTime,
      cpuProfile: settings.cpuProfile,
      log,
    });
    figures.push(...r.figures);
    details.withdrawals = r.details;
    loads.withdrawals = loadavg();
  }

  if (which === 'auth' || which === 'all') {
    log(
      `\n== auth (issues 11, 24): a legitimate client alone, then under a random-key flood (${settings.authFloods.join(', ')}), ${settings.authDuration} s x ${runs} ==`,
    );
    const r = await benchAuthFlood({
      runs,
      duration: settings.authDuration,
      floods: settings.authFloods as ('single' | 'distributed')[],
      distributedRate: settings.authFloodRate,
      diagnose,
      log,
    });
    figures.push(...r.figures);
    details.auth = r.details;
    loads.auth = loadavg();
  }

  if (which === 'revocation' || which === 'all') {
    log(
      `\n== revocation (issue 29): another api process's window after a key is revoked, ${settings.revocations} revocations x ${runs} ==`,
    );
    const r = await benchRevocation({ runs, revocations: settings.revocations, log });
    figures.push(...r.figures);
    details.revocation = r.details;
    loads.revocation = loadavg();
  }

  if (which === 'tron' || which === 'all') {
    log(`\n== tron (issue 15): deposit detection at solidification and address issuance vs EVM, ${runs} runs ==`);
    const r = await benchTronDeposits({
      runs,
      depositsPerRun: settings.tronDeposits,
      spreadSeconds: settings.tronSpreadS,
      blockTimeMs: settings.tronBlockMs,
      pollMs: settings.pollMs,
      issuanceSeconds: settings.tronIssuanceS,
      issuanceConnections: 8,
      log,
    });
    figures.push(...r.figures);
    details.tron = r.details;
    loads.tron = loadavg();
  }
  if (which === 'tron-sweeps' || which === 'all') {
    log(`\n== tron-sweeps (issue 15): sweep cost per deposit, energy lent vs TRX burned ==`);
    const r = await benchTronSweeps({
      deposits: env('BENCH_TRON_SWEEPS', 5),
      blockMs: env('BENCH_TRON_BLOCK_MS', 100),
      bandwidthTrx: env('BENCH_TRON_BANDWIDTH_TRX', 0),
      log,
    });
    figures.push(...r.figures);
    details.tronSweeps = r.details;
    loads.tronSweeps = loadavg();
  }

  if (which === 'solana' || which === 'all') {
    log(`\n== solana (issue 16): deposit detection at finalized, issuance vs EVM, withdrawals vs a bare kit loop, ${runs} runs ==`);
    const r = await benchSolana({
      runs,
      depositsPerRun: settings.solDeposits,
      spreadSeconds: settings.solSpreadS,
      slotMs: settings.solSlotMs,
      pollMs: settings.pollMs,
      issuanceSeconds: settings.solIssuanceS,
      issuanceConnections: 8,
      withdrawals: settings.solWithdrawals,
      log,
    });
    figures.push(...r.figures);
    details.solana = r.details;
    loads.solana = loadavg();
  }

  const loadAfter = loadavg();
  const minutes = (Date.now() - started) / 60_000;
  log(
    `\n== summary (median of ${runs} runs; load average before ${loadStr(loadBefore)}, after ${loadStr(loadAfter)}; ${fmt(minutes, 1)} min) ==`,
  );
  printTable(figures);
  const failed = figures.filter((f) => f.pass === false).map((f) => f.name);
  log(failed.length ? `\nmissed: ${failed.join('; ')}` : '\nall targets met');
  if (load1() > 1.5)
    log(
      `note: load average ${load1().toFixed(2)} on ${cpus().length} cores at the end: other processes competed for the CPU during these runs`,
    );

  const out = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'extra.json');
  await mkdir(path.dirname(out), { recursive: true });
  // A run of some parts keeps the others' results, marked with when and how they were made.
  const ran = which === 'all' ? PARTS : [which];
  // A figure or detail this run replaced: of a part that ran, or of the piece of one that ran alone.
  const replaced = (part: string, name: string) =>
    ran.includes(part) || (which === 'backfill' && (name === 'backfill' || name.startsWith('deposits: backfill')));
  const previous = await readFile(out, 'utf8')
    .then((text) => JSON.parse(text) as { figures?: ExtraFigure[]; details?: Record<string, unknown>; parts?: Record<string, unknown> })
    .catch(() => null);
  const partOf = (name: string) => name.slice(0, name.indexOf(':'));
  const kept = (previous?.figures ?? []).filter((f) => !replaced(partOf(f.name), f.name));
  const keptDetails = Object.fromEntries(
    Object.entries(previous?.details ?? {}).filter(
      ([k]) => !replaced(k === 'detection' || k === 'backfill' ? 'deposits' : k === 'webhookDiagnostics' ? 'webhooks' : k, k),
    ),
  );
  const parts: Record<string, unknown> = { ...(previous?.parts ?? {}) };
  for (const p of ran) parts[p] = { generatedAt: new Date().toISOString(), command, code };
  await writeFile(
    out,
    `${JSON.stringify(
      {
        generatedAt: new Date().toISOString(),
        command,
        code,
        parts,
        machine: { cores: cpus().length, cpu: cpus()[0]?.model, node: process.version, loadBefore, loadAfter, loadAfterEach: loads },
        durationMin: minutes,
        settings,
        figures: [...kept, ...figures],
        details: { ...keptDetails, ...details },
      },
      (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v),
      2,
    )}\n`,
  );
  log(`written: ${path.relative(process.cwd(), out)}`);
  // Correctness checks fail the command; speed targets are reported in the table, since on
  // a shared 2-core machine they also depend on the neighbours.
  // (The correctness checks are the figures with an exact target: "= 0", "= 3".)
  const broken = figures.some((f) => f.pass === false && f.target.startsWith('='));
  process.exitCode = broken ? 1 : 0;
}

let stopping: Promise<unknown> | null = null;
const onSignal = (signal: NodeJS.Signals) => {
  log(`\n${signal}: tearing down`);
  stopping ??= Promise.allSettled([...activeWorlds, ...floodWorlds].map((w) => w.stop()));
  void stopping.finally(() => process.exit(130));
};
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);

main().catch(async (err) => {
  console.error(err);
  await Promise.allSettled([...activeWorlds, ...floodWorlds].map((w) => w.stop()));
  process.exitCode = 2;
});
