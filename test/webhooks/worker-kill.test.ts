/**
 * The worker is killed (SIGKILL) in the middle of an attempt, in the middle of the retry
 * schedule. Another worker picks the schedule up where it stood: the interrupted attempt
 * counts as made, the next one comes exactly on time, and no attempt is ever doubled.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FileClock } from '../../src/lib/clock.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { attemptTimes, deliveriesOf, deliveryState, eventually, recordDeposit } from '../support/fixtures.js';

const MIN = 60_000;
const dir = mkdtempSync(path.join(os.tmpdir(), 'wallet-clock-'));
const clockFile = path.join(dir, 'now');
const setClock = (ms: number) => writeFileSync(clockFile, String(ms));
const t0 = Math.floor(Date.now() / 1000) * 1000;
setClock(t0);

let h: Harness;
let receiver: Receiver;
let child: ChildProcess | undefined;

beforeAll(async () => {
  h = await startHarness({ clock: new FileClock(clockFile), specs: undefined });
  receiver = await startReceiver();
});
afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await receiver?.close();
  await h?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function startWorkerProcess(): Promise<ChildProcess> {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.resolve('test/support/worker-process.ts')], {
    env: {
      ...process.env,
      DATABASE_URL: h.databaseUrl,
      KEK: h.kek.toString('hex'),
      CHAINS: JSON.stringify(h.devnet.chains.map((c) => c.config)),
      CLOCK_FILE: clockFile,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => d.toString().includes('worker ready') && resolve(proc));
    proc.on('exit', (code) => reject(new Error(`worker process exited (${code}): ${stderr}`)));
  });
}

it('a killed worker leaves the schedule intact and no attempt is made twice', { timeout: 60_000 }, async () => {
  const wallet = h.wallets['devnet-eth']!;
  expect((await h.api('PATCH', `/v1/wallets/${wallet.id}`, { body: { webhookUrl: receiver.url } })).status).toBe(200);
  receiver.script({ kind: 'status', status: 500 }, { kind: 'status', status: 500 }, { kind: 'hang' });
  child = await startWorkerProcess();

  const tx = await recordDeposit(h, 'devnet-eth');
  const [id] = await deliveriesOf(h, tx.id);
  await eventually(
    () => attemptTimes(h, id!),
    (a) => a.length === 1 && a[0]!.finished_at !== null,
    20_000,
  );
  setClock(t0 + 5 * MIN);
  await h.services.webhooks.sweep();
  await eventually(
    () => attemptTimes(h, id!),
    (a) => a.length === 2 && a[1]!.finished_at !== null,
  );

  // Attempt 3 hangs at the receiver; the worker dies while waiting for the answer.
  setClock(t0 + 15 * MIN);
  await h.services.webhooks.sweep();
  await receiver.waitForRequests(3);
  child.kill('SIGKILL');
  await new Promise((resolve) => child!.once('exit', resolve));

  const interrupted = await attemptTimes(h, id!);
  expect(interrupted).toHaveLength(3);
  expect(interrupted[2]!.finished_at).toBeNull();
  const state = await deliveryState(h, id!);
  expect(state).toMatchObject({ status: 'pending', attempts: 3 });
  expect(state.next_attempt_at!.getTime()).toBe(t0 + 35 * MIN);

  // A fresh worker: nothing happens before the slot, attempt 4 happens at it.
  await h.startWorker();
  setClock(t0 + 35 * MIN - 1000);
  await h.services.webhooks.sweep();
  await new Promise((r) => setTimeout(r, 300));
  expect(await attemptTimes(h, id!)).toHaveLength(3);
  setClock(t0 + 35 * MIN);
  await h.services.webhooks.sweep();
  await h.services.webhooks.sweep(); // a duplicate trigger must not double the attempt
  await eventually(
    () => deliveryState(h, id!),
    (s) => s.status === 'success',
  );

  const attempts = await attemptTimes(h, id!);
  expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4]);
  expect(attempts.map((a) => a.attempted_at.getTime() - t0)).toEqual([0, 5, 15, 35].map((m) => m * MIN));
  expect(attempts.map((a) => a.status_code)).toEqual([500, 500, null, 200]);
  expect(receiver.requests).toHaveLength(4);
  // Every request of one delivery carries the same webhook-id; none was sent twice.
  expect(new Set(receiver.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([id]));
});
