/**
 * `npm run bench`: the issue-2 benchmarks on one freshly assembled world (see world.ts).
 *
 *   BENCH_DURATION  seconds per measured run (default 10; e.g. 2 for a smoke run)
 *   BENCH_RUNS      measured runs per benchmark (default 3, minimum 3)
 *   BENCH_LOADGEN   worker (default) | inline | child: where autocannon runs (loadgen.ts)
 *   --compare-loadgen  first measure inline vs worker vs child briefly and print them
 *
 * Why `worker` is the default (measured with --compare-loadgen on a quiet machine, other
 * processes' CPU 0-11%, 2 rounds x 3 s per mode and endpoint, req/s and p99):
 *                 inline                 worker                 child process
 *   addresses     348 / 677, p99 641/210  642 / 603, p99 157/131  599 / 612, p99 158/172
 *   balances      370 / 507, p99 565/376  514 / 527, p99 140/129  518 / 562, p99 134/123
 *   bare Fastify  6,382 / 7,036           11,607 / 12,952         12,164 / 10,270
 * Inline, autocannon's request writing, response parsing and timers run on the server's
 * event loop (it showed 98-100% busy): the server gets a fraction of its thread, the
 * ceiling halves, and the latency autocannon reports includes waiting behind itself (p99
 * 3-4x). A worker thread keeps the server loop for the server, as an external client
 * would, and measured the same as a forked child process; it is simpler, so it is the
 * default. Every mode still shares the 2 cores with PostgreSQL and anvil (the honest
 * setting for "this 2-core machine"). For the bare-Fastify ceiling the load generator is
 * the bottleneck (as a child process it used more CPU than the server: ~80% vs ~75% of a
 * core), so the ceiling is the most this machine pushes through Fastify with this client,
 * not Fastify's own limit.
 *
 * Prints one summary line per figure (median of the runs, the runs, target, pass/fail)
 * and writes the same as JSON to bench/results/latest.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { startWorld, type World } from './world.js';
import { benchAddresses, type AddressesReport } from './addresses.js';
import { benchBalances, balanceSpecs, startCeiling, type BalancesReport } from './balances.js';
import { LOADGEN_MODES, runLoad, type LoadgenMode } from './loadgen.js';
import { fmt, fmtSummary, load1, summarize, type Summary } from './stats.js';
import { execFileSync } from 'node:child_process';
import { fmtCpu, withCpu } from './cpu.js';

const CONNECTIONS = 50;
const duration = Number(process.env.BENCH_DURATION ?? 10);
const runs = Math.max(3, Number(process.env.BENCH_RUNS ?? 3));
const mode = (process.env.BENCH_LOADGEN ?? 'worker') as LoadgenMode;
const compare = process.argv.includes('--compare-loadgen');
if (!(duration > 0)) throw new Error('BENCH_DURATION must be a positive number of seconds');
if (!LOADGEN_MODES.includes(mode)) throw new Error(`BENCH_LOADGEN must be one of ${LOADGEN_MODES.join(', ')}`);

const log = (line: string) => console.log(line);

interface Figure {
  name: string;
  unit: string;
  median: number;
  runs: number[];
  spreadPct: number | null;
  target: string;
  pass: boolean | null;
  /** Decimals when printed. */
  digits?: number;
}

function figure(name: string, unit: string, s: Summary, target = '-', passes?: (median: number) => boolean, digits?: number): Figure {
  return {
    name,
    unit,
    median: s.median,
    runs: s.runs,
    spreadPct: s.spreadPct,
    target,
    pass: passes ? passes(s.median) : null,
    ...(digits !== undefined ? { digits } : {}),
  };
}

function count(name: string, unit: string, n: number, target: string, pass: boolean): Figure {
  return { name, unit, median: n, runs: [n], spreadPct: null, target, pass, digits: 0 };
}

async function compareLoadgen(world: World): Promise<Record<string, unknown>[]> {
  const seconds = Math.min(3, duration);
  log(`\n== load generator placement: inline vs worker vs child, ${seconds} s each (separate wallet, not counted) ==`);
  const spare = await world.newWallet('Bench loadgen comparison');
  const ceiling = await startCeiling();
  const rows: Record<string, unknown>[] = [];
  try {
    const specs = balanceSpecs(world, ceiling.url, { connections: CONNECTIONS, duration: seconds });
    const issue = {
      url: `${world.baseUrl}/v1/wallets/${spare.walletId}/addresses`,
      method: 'POST' as const,
      headers: { 'x-api-key': spare.apiKey, 'content-type': 'application/json' },
      body: '{}',
      connections: CONNECTIONS,
      duration: seconds,
    };
    for (const round of [1, 2]) {
      for (const m of LOADGEN_MODES) {
        for (const [name, spec] of [
          ['addresses', issue],
          ['balances', specs.balances],
          ['ceiling', specs.ceiling],
        ] as const) {
          const { result: r, cpu } = await withCpu(() => runLoad(spec, m));
          await world.quiesce();
          rows.push({ round, mode: m, endpoint: name, rate: r.rate200, p50: r.p50, p99: r.p99, non2xx: r.non2xx, cpu });
          log(
            `  round ${round} ${m.padEnd(6)} ${name.padEnd(9)} ${fmt(r.rate200, 0).padStart(7)} /s  p50 ${r.p50} ms  p99 ${r.p99} ms  non-2xx ${r.non2xx}  ${fmtCpu(cpu)}`,
          );
        }
      }
    }
  } finally {
    await ceiling.app.close();
  }
  return rows;
}

function printTable(figures: Figure[]): void {
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

async function main(): Promise<void> {
  const code = codeState();
  const event = process.env.npm_lifecycle_event;
  const invoked = event ? `npm run ${event}${compare ? ' --' : ''}` : 'npx tsx bench/run.ts';
  const command = `BENCH_DURATION=${duration} BENCH_RUNS=${runs} BENCH_LOADGEN=${mode} ${invoked}${compare ? ' --compare-loadgen' : ''}`;
  const loadBefore = loadavg();
  log(`issue-2 benchmarks: ${command}`);
  log(`code: ${code}`);
  log(
    `machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), Node ${process.version}, load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')}`,
  );
  log(
    `settings: ${CONNECTIONS} connections, ${duration} s per run, ${runs} runs, autocannon in ${mode === 'inline' ? 'the server thread' : mode === 'worker' ? 'a worker thread' : 'a child process'}`,
  );
  if (load1() > 1) log('note: the 1-minute load is above 1 on 2 cores: other work (e.g. tests) is competing; figures are pessimistic');

  const started = Date.now();
  const world = await startWorld();
  let stopping: Promise<void> | null = null;
  const stopWorld = () => (stopping ??= world.stop());
  const onSignal = (signal: NodeJS.Signals) => {
    log(`\n${signal}: tearing down`);
    void stopWorld().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    log(
      `world ready in ${((Date.now() - started) / 1000).toFixed(1)} s: app ${world.baseUrl}, wallet ${world.walletId} on devnet-eth with ${world.assets.join(' + ')}`,
    );
    const s = world.pgSettings;
    log(
      `PostgreSQL (embedded, durable: true): fsync=${s.fsync}, synchronous_commit=${s.synchronous_commit}, full_page_writes=${s.full_page_writes}, wal_sync_method=${s.wal_sync_method}`,
    );

    const comparison = compare ? await compareLoadgen(world) : null;

    log(`\n== 1. address issuance: POST /v1/wallets/{walletId}/addresses, ${CONNECTIONS} connections, ${duration} s x ${runs} ==`);
    const a: AddressesReport = await benchAddresses(world, { runs, duration, connections: CONNECTIONS, mode, log });
    log(`  API issuance:        ${fmtSummary(a.rate, 'addr/s', 0)}`);
    log(`  viem baseline:       ${fmtSummary(a.viem, 'addr/s', 1)}`);
    log(`  AddressDeriver bare: ${fmtSummary(a.deriver, 'addr/s', 0)} (${a.derivationBackend})`);
    log(`  API / viem:          ${fmtSummary(a.ratioApiToViem, 'x', 1)}`);

    log(
      `\n== 2. balance reads: GET /v1/wallets/{walletId}/balances (${world.assets.length} assets) vs bare Fastify, ${CONNECTIONS} connections, ${duration} s x ${runs} ==`,
    );
    const b: BalancesReport = await benchBalances(world, { runs, duration, connections: CONNECTIONS, mode, log });
    log(`  balances:  ${fmtSummary(b.rate, 'req/s', 0)}`);
    log(`  ceiling:   ${fmtSummary(b.ceilingRate, 'req/s', 0)}`);
    log(`  ratio:     ${fmtSummary(b.ratio, '', 3)}`);

    const figures: Figure[] = [
      figure('addresses: issuance rate (200s)', 'addr/s', a.rate, '>= 1,000', (m) => m >= 1000),
      figure('addresses: p50 latency', 'ms', a.p50, '-', undefined, 0),
      figure('addresses: p99 latency', 'ms', a.p99, '-', undefined, 0),
      count('addresses: non-2xx + errors (all runs)', '', a.non2xx, '= 0', a.non2xx === 0),
      count('addresses: DB rows gap-free, all accounted', 'rows', a.check.rows, 'consecutive', a.check.ok),
      figure('addresses: baseline viem mnemonicToAccount', 'addr/s', a.viem, '-', undefined, 1),
      figure(`addresses: bare AddressDeriver (${a.derivationBackend})`, 'addr/s', a.deriver),
      figure('addresses: ratio API / viem', 'x', a.ratioApiToViem, '-', undefined, 1),
      figure('balances: rate', 'req/s', b.rate, '>= 2,000', (m) => m >= 2000),
      figure('balances: p50 latency', 'ms', b.p50, '-', undefined, 0),
      figure('balances: p99 latency', 'ms', b.p99, '< 50 ms', (m) => m < 50, 0),
      count('balances: non-2xx + errors (all runs)', '', b.non2xx, '= 0', b.non2xx === 0),
      figure('balances: ceiling bare Fastify GET', 'req/s', b.ceilingRate),
      // Issue 29: the authenticated read path at >= 0.40 of bare Fastify in the same run.
      figure('balances: ratio balances / ceiling', '', b.ratio, '>= 0.40', (m) => m >= 0.4, 3),
      figure(
        "noise: other processes' CPU per measured run",
        '% of a core',
        summarize([...a.cpu.map((c) => c.foreign), ...b.cpu.flatMap((c) => [c.balances.foreign, c.ceiling.foreign])]),
        '-',
        undefined,
        0,
      ),
    ];

    const loadAfter = loadavg();
    log(
      `\n== summary (median of ${runs} runs; load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' ')}) ==`,
    );
    printTable(figures);
    const failed = figures.filter((f) => f.pass === false).map((f) => f.name);
    log(failed.length ? `\nmissed: ${failed.join('; ')}` : '\nall targets met');
    // The load average counts this benchmark's own processes; the per-run CPU accounting
    // (cpu.ts) tells other people's work apart.
    const noise = figures[figures.length - 1]!;
    if (noise.median > 25)
      log(
        `note: other processes used a median ${fmt(noise.median, 0)}% of a core during the measured runs: figures are pessimistic; rerun on a quiet machine`,
      );

    const out = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'latest.json');
    await mkdir(path.dirname(out), { recursive: true });
    await writeFile(
      out,
      `${JSON.stringify(
        {
          generatedAt: new Date().toISOString(),
          command,
          code,
          machine: { cores: cpus().length, cpu: cpus()[0]?.model, node: process.version, loadBefore, loadAfter },
          settings: {
            connections: CONNECTIONS,
            durationS: duration,
            runs,
            loadgen: mode,
            postgres: world.pgSettings,
            derivationBackend: a.derivationBackend,
          },
          figures,
          addressCheck: { ...a.check },
          details: {
            addresses: a.api,
            balances: b.balances,
            ceiling: b.ceiling,
            balanceSample: b.sample,
            load1DuringAddresses: a.loadDuring,
            load1DuringBalances: b.loadDuring,
            cpuAddresses: a.cpu,
            cpuBalances: b.cpu,
          },
          ...(comparison ? { loadgenComparison: comparison } : {}),
        },
        null,
        2,
      )}\n`,
    );
    log(`written: ${path.relative(process.cwd(), out)}`);
    // Correctness (non-2xx, the DB check) fails the command; speed targets are reported in
    // the table, since on a shared 2-core machine they also depend on the neighbours.
    const broken = !a.check.ok || a.non2xx > 0 || b.non2xx > 0;
    process.exitCode = broken ? 1 : 0;
  } finally {
    await stopWorld();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 2;
});
