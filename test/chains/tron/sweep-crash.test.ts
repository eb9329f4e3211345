/**
 * Kill -9 mid-sweep on Tron, with energy lent from the master's stake: the worker process
 * dies right after a node accepted the delegation (nothing recorded yet), or right after the
 * sweep's transfer was recorded mined (the give-back queued but not sent). A restarted
 * worker finishes the sweep: one activation, one delegation, one sweep transfer and one
 * give-back on chain, the energy back with the master, the deposit swept exactly once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, post, tokenBalance } from '../../../src/devnet/tron/testkit.js';
import { deposit, hex, newChild, stakeForEnergy, startSweepWorld, swept, sweepRows, type SweepWorld } from './sweep-world.js';

let w: SweepWorld;
const children: ChildProcess[] = [];

beforeAll(async () => {
  w = await startSweepWorld({ worker: false });
  await stakeForEnergy(w, w.lending, 10_000_000_000);
}, 90_000);
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await w?.stop();
});

function startWorkerProcess(crashAt?: 'lend-broadcast' | 'transfer-settled') {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.resolve('test/chains/tron/sweep-worker-process.ts')], {
    env: {
      ...process.env,
      DATABASE_URL: w.h.databaseUrl,
      KEK: w.h.kek.toString('hex'),
      CHAINS: JSON.stringify(w.chains),
      ...(crashAt ? { CRASH_AT: crashAt } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(proc);
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => proc.on('exit', (_code, signal) => resolve(signal)));
  return new Promise<{ proc: ChildProcess; exited: Promise<NodeJS.Signals | null> }>((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => d.toString().includes('worker ready') && resolve({ proc, exited }));
    proc.on('exit', (code, signal) => reject(new Error(`worker process exited early (${code ?? signal}): ${stderr}`)));
  });
}

/** Crash at `at`, restart, and check the sweep happened once with its energy lent and taken back once. */
async function crashAndFinish(at: 'lend-broadcast' | 'transfer-settled', amount: bigint) {
  const wallet = w.lending;
  const masterUsdt = await tokenBalance(w.s, w.usdt, wallet.address);
  const frozenBefore = (await account(w.s, hex(wallet.address))).frozenV2;
  const crashing = await startWorkerProcess(at);
  const child = await newChild(w, wallet);
  const id = await deposit(w, wallet, child.address, amount);
  expect(await crashing.exited).toBe('SIGKILL');
  const before = await sweepRows(w, id);
  if (at === 'lend-broadcast') expect(before.map((r) => [r.purpose, r.stage])).toContainEqual(['sweep-lend', 'signed']);
  else expect(before.map((r) => [r.purpose, r.stage])).toContainEqual(['sweep-give-back', 'created']);

  const restarted = await startWorkerProcess();
  try {
    const done = await swept(w, wallet, id, 90_000);
    expect(done.assetSwept, JSON.stringify(done.assetSweptResponse)).toBe(true);
    const rows = await sweepRows(w, id);
    expect(rows.map((r) => [r.purpose, r.stage])).toEqual([
      ['sweep-topup', 'mined'],
      ['sweep-lend', 'mined'],
      ['sweep', 'mined'],
      ['sweep-give-back', 'mined'],
    ]);
    for (const r of rows) expect((await post(w.s, 'wallet/gettransactioninfobyid', { value: r.hash })).blockNumber).toBeGreaterThan(0);
    // Once each: the deposit reached the master once, and the stake is whole again (a second
    // delegation would still be lent, a second give-back would have been refused).
    expect(await tokenBalance(w.s, w.usdt, wallet.address)).toBe(masterUsdt + amount);
    expect(await post(w.s, 'wallet/getdelegatedresourcev2', { fromAddress: hex(wallet.address), toAddress: hex(child.address) })).toEqual(
      {},
    );
    const master = await account(w.s, hex(wallet.address));
    expect(master.account_resource?.delegated_frozenV2_balance_for_energy ?? 0).toBe(0);
    expect(master.frozenV2).toEqual(frozenBefore);
  } finally {
    restarted.proc.kill('SIGKILL');
    await restarted.exited;
  }
}

describe('worker killed mid-sweep (Tron, energy lent)', () => {
  it('after the delegation was broadcast: restarted, one delegation, one sweep, one give-back', { timeout: 150_000 }, () =>
    crashAndFinish('lend-broadcast', 4_000_000n),
  );
  it('after the transfer settled, before the give-back was sent: restarted, the energy taken back once', { timeout: 150_000 }, () =>
    crashAndFinish('transfer-settled', 5_000_000n),
  );
});
