/**
 * Benchmark 1: child address issuance through POST /v1/wallets/{walletId}/addresses, with
 * two bare derivation rates beside it (interleaved with the API runs, never concurrent):
 * - viem `mnemonicToAccount(mnemonic, { addressIndex: i })`, the issue's baseline: what a
 *   naive implementation pays per address (PBKDF2 of the mnemonic on every call);
 * - our `AddressDeriver` from the cached account xpub: the ceiling of the derivation step.
 * Afterwards the database must hold the issued addresses with consecutive indexes.
 */
import { mnemonicToAccount } from 'viem/accounts';
import { accountFromMnemonic, derivationBackend } from '../src/keys/hd.js';
import { familyOf } from '../src/chains/family-lookup.js';
import { runLoad, type LoadgenMode, type LoadResult } from './loadgen.js';
import { load1, rateOf, summarize, type Summary } from './stats.js';
import { fmtCpu, withCpu, type CpuShare } from './cpu.js';
import type { World } from './world.js';

export interface AddressesOptions {
  runs: number;
  duration: number;
  connections: number;
  mode: LoadgenMode;
  log: (line: string) => void;
}

export interface AddressesReport {
  api: LoadResult[];
  rate: Summary;
  p50: Summary;
  p99: Summary;
  non2xx: number;
  viem: Summary;
  deriver: Summary;
  derivationBackend: string;
  ratioApiToViem: Summary;
  check: IssuanceCheck;
  loadDuring: number[];
  cpu: CpuShare[];
}

export interface IssuanceCheck {
  ok: boolean;
  rows: number;
  distinctIndexes: number;
  minIndex: number | null;
  maxIndex: number | null;
  nextIndex: number;
  /** 200 responses autocannon read, over the warm-up and all runs. */
  client200: number;
  /** Requests autocannon had written but not read when it stopped (sockets destroyed). */
  cutInFlight: number;
  /** Creations the server completed (successful service calls). */
  serverCreated: number;
  /** Rows checked against viem's derivation of the same index. */
  sampled: number;
  sampleMismatches: number;
  lines: string[];
}

const VIEM_MS = 2_000;
const DERIVER_MS = 1_000;

export async function benchAddresses(world: World, opts: AddressesOptions): Promise<AddressesReport> {
  const { log } = opts;
  const mnemonic = await world.services.wallets.openMnemonic(world.walletId);
  const accountPath = "m/44'/60'/0'/0";
  // The EVM family's deriver over the account xpub (keys/hd.ts's PublicKeyDeriver and the codec), as issuance uses it.
  const deriver = familyOf('evm').derivation.openAccount!(accountFromMnemonic(mnemonic, accountPath).xpub);
  for (const i of [0, 1, 2]) {
    const viemAddress = mnemonicToAccount(mnemonic, { addressIndex: i }).address;
    if (deriver.address(i) !== viemAddress) throw new Error(`AddressDeriver disagrees with viem at index ${i}`);
  }

  const spec = {
    url: `${world.baseUrl}/v1/wallets/${world.walletId}/addresses`,
    method: 'POST' as const,
    headers: { 'x-api-key': world.apiKey, 'content-type': 'application/json' },
    body: '{}',
    connections: opts.connections,
    duration: opts.duration,
  };

  // Count only this benchmark's creations (a --compare-loadgen pass may have run before).
  await settle(world);
  Object.assign(world.issuance, { created: 0, failed: 0 });
  let client200 = 0;
  let cutInFlight = 0;
  const account = async (r: LoadResult) => {
    client200 += r.ok200;
    cutInFlight += r.sent - r.completed;
    await settle(world);
  };

  // Warm-up: JIT, pool connections, the wallet's cached deriver. Counted in the DB check.
  const warm = await runLoad({ ...spec, duration: Math.min(2, opts.duration) }, opts.mode);
  await account(warm);
  log(`  warm-up: ${warm.ok200} x 200, non-2xx ${warm.non2xx}`);

  const api: LoadResult[] = [];
  const viem: number[] = [];
  const bare: number[] = [];
  const loadDuring: number[] = [];
  const cpu: CpuShare[] = [];
  let viemIndex = 0;
  let deriverIndex = 0;
  for (let run = 1; run <= opts.runs; run++) {
    const { result: r, cpu: c } = await withCpu(() => runLoad(spec, opts.mode));
    loadDuring.push(load1());
    cpu.push(c);
    api.push(r);
    await account(r);
    const v = rateOf(VIEM_MS, () => mnemonicToAccount(mnemonic, { addressIndex: viemIndex++ }));
    viem.push(v.perSecond);
    const d = rateOf(DERIVER_MS, () => deriver.address(deriverIndex++));
    bare.push(d.perSecond);
    log(
      `  run ${run}/${opts.runs}: API ${r.rate200.toFixed(0)} addr/s (${r.ok200} x 200 in ${r.durationS}s, non-2xx ${r.non2xx}, errors ${r.errors}, p50 ${r.p50} ms, p99 ${r.p99} ms)` +
        ` | viem ${v.perSecond.toFixed(1)}/s (${v.count}) | AddressDeriver ${d.perSecond.toFixed(0)}/s | ${fmtCpu(c)}`,
    );
  }

  const check = await verify(world, mnemonic, client200, cutInFlight);
  for (const line of check.lines) log(`  ${line}`);

  return {
    api,
    rate: summarize(api.map((r) => r.rate200)),
    p50: summarize(api.map((r) => r.p50)),
    p99: summarize(api.map((r) => r.p99)),
    non2xx: [warm, ...api].reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0),
    viem: summarize(viem),
    deriver: summarize(bare),
    derivationBackend,
    ratioApiToViem: summarize(api.map((r, i) => r.rate200 / viem[i]!)),
    check,
    loadDuring,
    cpu,
  };
}

/** Waits until the server has finished every creation it received. */
const settle = (world: World) => world.quiesce();

async function verify(world: World, mnemonic: string, client200: number, cutInFlight: number): Promise<IssuanceCheck> {
  const pool = world.database.pool;
  const { rows } = await pool.query<{ n: string; distinct_n: string; min_i: number | null; max_i: number | null }>(
    'SELECT count(*) AS n, count(DISTINCT derivation_index) AS distinct_n, min(derivation_index) AS min_i, max(derivation_index) AS max_i FROM addresses WHERE wallet_id = $1',
    [world.walletId],
  );
  const stat = rows[0]!;
  const n = Number(stat.n);
  const distinct = Number(stat.distinct_n);
  const nextIndex = (await pool.query<{ next_index: number }>('SELECT next_index FROM wallets WHERE id = $1', [world.walletId])).rows[0]!
    .next_index;
  const serverCreated = world.issuance.created;

  // A few rows, spread over the whole range, re-derived with viem from the same mnemonic.
  const sample = await pool.query<{ derivation_index: number; address: string }>(
    'SELECT derivation_index, address FROM addresses WHERE wallet_id = $1 ORDER BY random() LIMIT 5',
    [world.walletId],
  );
  let sampleMismatches = 0;
  for (const row of sample.rows) {
    if (mnemonicToAccount(mnemonic, { addressIndex: row.derivation_index }).address !== row.address) sampleMismatches++;
  }

  // Index 0 is the wallet's own (master) address; children start at 1.
  const consecutive = n > 0 && distinct === n && stat.min_i === 1 && stat.max_i === n && nextIndex === n + 1;
  // autocannon stops a timed run by destroying its sockets; requests already written are
  // still served (and their addresses committed) but their 200s are never read. So the
  // exact identity is rows = client-seen 200s + the cut-off requests the server completed.
  const cutServed = serverCreated - client200;
  const accounted = n === serverCreated && cutServed >= 0 && cutServed <= cutInFlight && world.issuance.failed === 0;
  const ok = consecutive && accounted && sampleMismatches === 0;
  const lines = [
    `DB check: ${n} address rows; derivation indexes ${stat.min_i}..${stat.max_i}, ${distinct} distinct, wallet.next_index ${nextIndex} -> ${consecutive ? 'consecutive, no gap, no duplicate' : 'GAP OR DUPLICATE'}`,
    `DB check: rows ${n} = 200s read by the client ${client200} + requests cut in flight by autocannon's stop and completed by the server ${cutServed} (of ${cutInFlight} cut) -> ${accounted ? 'every row accounted for' : 'MISMATCH'} (server-side creations ${serverCreated}, failures ${world.issuance.failed})`,
    `DB check: ${sample.rows.length} random rows re-derived with viem mnemonicToAccount: ${sampleMismatches === 0 ? 'all equal' : `${sampleMismatches} MISMATCH(ES)`}`,
  ];
  return {
    ok,
    rows: n,
    distinctIndexes: distinct,
    minIndex: stat.min_i,
    maxIndex: stat.max_i,
    nextIndex,
    client200,
    cutInFlight,
    serverCreated,
    sampled: sample.rows.length,
    sampleMismatches,
    lines,
  };
}
