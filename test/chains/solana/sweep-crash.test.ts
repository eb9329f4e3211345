/**
 * Kill -9 mid-sweep on Solana: the worker process dies right after the node accepted the
 * sweep's transaction (the master paying its fee), before the broadcast is recorded. A
 * restarted worker finds the transaction landed and settles the sweep: one transaction on
 * chain (one fee from the master, never signed again), the deposit swept exactly once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../support/fixtures.js';
import {
  OPEN,
  TOKEN_ACCOUNT_RENT,
  confirmed,
  feeOf,
  lamportsOf,
  newChild,
  newWallet,
  sendUsdc,
  startSweepWorld,
  swept,
  sweepRows,
  usdcOf,
  type SweepWorld,
} from './sweep-world.js';

let w: SweepWorld;
const children: ChildProcess[] = [];

beforeAll(async () => {
  w = await startSweepWorld({ worker: false });
}, 60_000);
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await w?.stop();
});

function startWorkerProcess(crashAt?: 'broadcast') {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.resolve('test/chains/solana/sweep-worker-process.ts')], {
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

describe('worker killed mid-sweep (Solana)', () => {
  it(
    'after the broadcast, before it was recorded: restarted, one transaction on chain, the deposit swept once',
    { timeout: 120_000 },
    async () => {
      const wallet = await newWallet(w, OPEN);
      const child = await newChild(w, wallet);
      const masterBefore = await lamportsOf(w, wallet.address);
      const crashing = await startWorkerProcess('broadcast');
      const id = await confirmed(w, OPEN, await sendUsdc(w, child.address, 6_000_000n));
      expect(await crashing.exited).toBe('SIGKILL');
      // Signed and sent, but the process died before recording the broadcast.
      const before = await sweepRows(w, id);
      expect(before.map((r) => [r.purpose, r.stage])).toEqual([['sweep', 'signed']]);
      // The transaction landed meanwhile, paid by the master.
      await eventually(
        () => usdcOf(w, wallet.address),
        (v) => v === 6_000_000n,
        20_000,
      );

      const restarted = await startWorkerProcess();
      try {
        const done = await swept(w, wallet, id, 60_000);
        expect(done.assetSwept, JSON.stringify(done.assetSweptResponse)).toBe(true);
        const rows = await sweepRows(w, id);
        expect(rows.map((r) => [r.purpose, r.stage, r.hash])).toEqual([['sweep', 'mined', before[0]!.hash]]);
        expect(done.assetSweptHash).toBe(before[0]!.hash);
        // Once: the deposit reached the master once, and the master paid one fee (and the rent of its new token account).
        expect(await usdcOf(w, wallet.address)).toBe(6_000_000n);
        expect(await usdcOf(w, child.address)).toBe(0n);
        expect(await lamportsOf(w, child.address)).toBe(0n);
        const { fee } = await feeOf(w, rows[0]!.hash!);
        expect(masterBefore - (await lamportsOf(w, wallet.address))).toBe(fee + TOKEN_ACCOUNT_RENT);
      } finally {
        restarted.proc.kill('SIGKILL');
        await restarted.exited;
      }
    },
  );
});
