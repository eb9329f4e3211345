/**
 * The worker process is killed (SIGKILL) after a withdrawal's signature is stored but
 * before it is broadcast, and after a node accepted it but before anything was recorded.
 * After a restart every withdrawal ends up as exactly one transaction on chain: the stored
 * bytes are broadcast (again), never signed anew.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address, Hash } from 'viem';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import {
  assetOf,
  chainOf,
  getTx,
  outboundOf,
  randomAddress,
  settledTx,
  startWorld,
  withdraw,
  type TestChain,
  type World,
} from './world.js';

let w: World;
let eth: TestChain;
const ETH = 'devnet-eth';
const children: ChildProcess[] = [];

beforeAll(async () => {
  w = await startWorld({ specs: [DEVNET_CHAINS[0]!], worker: false });
  eth = chainOf(w.h, ETH);
  await eth.sendToken('USDC', master(), '1000');
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await w?.stop();
});

const master = () => w.h.wallets[ETH]!.address as Address;

function startWorkerProcess(crashAt?: 'signed' | 'broadcast'): Promise<{ proc: ChildProcess; exited: Promise<NodeJS.Signals | null> }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.resolve('test/withdrawals/worker-process.ts')], {
    env: {
      ...process.env,
      DATABASE_URL: w.h.databaseUrl,
      KEK: w.h.kek.toString('hex'),
      CHAINS: JSON.stringify(w.h.devnet.chains.map((c) => c.config)),
      ...(crashAt ? { CRASH_AT: crashAt } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(proc);
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => proc.on('exit', (_code, signal) => resolve(signal)));
  return new Promise((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => d.toString().includes('worker ready') && resolve({ proc, exited }));
    proc.on('exit', (code, signal) => reject(new Error(`worker process exited early (${code ?? signal}): ${stderr}`)));
  });
}

async function batch(n: number) {
  const usdc = assetOf(w.h, ETH, 'USDC');
  const to = Array.from({ length: n }, () => randomAddress());
  const res = await withdraw(w.h, ETH, { assets: to.map((address, i) => ({ id: usdc.id, amount: String(i + 1), address })) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { ids: (res.body.data as { id: string }[]).map((t) => t.id), to };
}

/** Every withdrawal SUCCESS, one outbound row and one mined transaction each, paid exactly. */
async function expectPaidOnce(ids: string[], to: Address[], nonceBefore: number) {
  const done = await Promise.all(ids.map((id) => settledTx(w.h, ETH, id, undefined, 60_000)));
  expect(done.map((t) => t.status)).toEqual(ids.map(() => 'SUCCESS'));
  for (const [i, id] of ids.entries()) {
    const rows = await outboundOf(w.h, id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ stage: 'mined', hash: done[i]!.hash });
    expect((await eth.pub.getTransactionReceipt({ hash: done[i]!.hash as Hash })).status).toBe('success');
    expect(await eth.balanceOf('USDC', to[i]!)).toBe(BigInt(i + 1) * 1_000_000n);
  }
  expect(await eth.pub.getTransactionCount({ address: master() })).toBe(nonceBefore + ids.length);
}

describe('worker killed mid-send', () => {
  it('after signing, before broadcast: the restarted worker broadcasts the stored bytes, once', { timeout: 90_000 }, async () => {
    const nonceBefore = await eth.pub.getTransactionCount({ address: master() });
    const crashing = await startWorkerProcess('signed');
    const { ids, to } = await batch(3);
    expect(await crashing.exited).toBe('SIGKILL');
    // Signed and stored, nothing on chain yet.
    const signed = (await Promise.all(ids.map((id) => outboundOf(w.h, id)))).flat().filter((r) => r.stage === 'signed');
    expect(signed.length).toBeGreaterThanOrEqual(1);
    expect(await eth.pub.getTransactionCount({ address: master(), blockTag: 'pending' })).toBe(nonceBefore);
    const hashes = new Map(signed.map((r) => [r.id, r.hash]));
    const tx = await getTx(w.h, ETH, ids[0]!);
    expect(tx.status).toBe('PENDING');

    const restarted = await startWorkerProcess();
    try {
      await expectPaidOnce(ids, to, nonceBefore);
      for (const rows of await Promise.all(ids.map((id) => outboundOf(w.h, id)))) {
        if (hashes.has(rows[0]!.id)) expect(rows[0]!.hash).toBe(hashes.get(rows[0]!.id)); // the same bytes, not re-signed
      }
    } finally {
      restarted.proc.kill('SIGKILL');
      await restarted.exited;
    }
  });

  it(
    'after broadcast, before the receipt is recorded: the restarted worker records it, nothing is sent twice',
    { timeout: 90_000 },
    async () => {
      const nonceBefore = await eth.pub.getTransactionCount({ address: master() });
      const crashing = await startWorkerProcess('broadcast');
      const { ids, to } = await batch(3);
      expect(await crashing.exited).toBe('SIGKILL');
      // A node has at least one of them while the database only knows they were signed.
      const rows = (await Promise.all(ids.map((id) => outboundOf(w.h, id)))).flat();
      expect(rows.every((r) => r.stage === 'created' || r.stage === 'signed')).toBe(true);
      const known = await Promise.all(
        rows.map((r) =>
          r.hash
            ? eth.pub.getTransaction({ hash: r.hash as Hash }).then(
                () => true,
                () => false,
              )
            : false,
        ),
      );
      expect(known.filter(Boolean).length).toBeGreaterThanOrEqual(1);

      const restarted = await startWorkerProcess();
      try {
        await expectPaidOnce(ids, to, nonceBefore);
      } finally {
        restarted.proc.kill('SIGKILL');
        await restarted.exited;
      }
    },
  );
});
