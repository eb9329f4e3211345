import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { JOBS, JobPayloadError, parsePayload, task, type JobName } from './catalogue.js';
import { CRONTAB } from './tasks.js';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The source files under src/ (tests left out), with their text. */
function sources(): { file: string; text: string }[] {
  return readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => {
      const file = path.join(e.parentPath, e.name);
      return { file: path.relative(src, file), text: readFileSync(file, 'utf8') };
    });
}

/** Every job the source queues: `jobs.<name>.add(`, `.addSql(` or `.addAllSql(` (jobs/store.ts). */
function enqueued(): { where: string; name: string }[] {
  return sources().flatMap(({ file, text }) =>
    [...text.matchAll(/\bjobs\.(\w+)\.(add|addSql|addAllSql)\(/g)].map((m) => ({
      where: `${file}:${text.slice(0, m.index).split('\n').length}`,
      name: m[1]!,
    })),
  );
}

describe('job catalogue', () => {
  it('every job the source queues is catalogued, and queued through the catalogue only', () => {
    const jobs = enqueued();
    expect(jobs.length).toBeGreaterThanOrEqual(10);
    const names = new Set(jobs.map((j) => j.name));
    expect(names).toEqual(
      new Set([
        'settlement_run',
        'outbound_send',
        'outbound_track',
        'auto_settle',
        'deliver_webhook',
        'sweep_address',
        // The work that follows deposit.confirmed and sweep.completed (src/subscriptions.ts).
        'sweep_deposits',
        'auto_settle_deposits',
        'auto_settle_swept',
        'settle_deposits',
        'settle_swept',
        // Approval requests expire at their time to live (modules/policies/approvals.ts).
        'approval_expire',
        // Deposits to checkout sessions' addresses (deposit.recorded, deposit.confirmed).
        'checkout_payments',
        // Deposits whose AML providers did not answer (aml/store.ts).
        'aml_rescreen_deposits',
        // What follows a mined staking operation (the chain's outcome read back).
        'staking_settle',
        // What follows a final API swap (its output read from the receipt).
        'swap_settle',
      ]),
    );
    expect(jobs.filter((j) => !(j.name in JOBS)).map((j) => j.where)).toEqual([]);
    // The queue's SQL is jobs/store.ts's alone, and no other file spells a job's name (the
    // payloads are typed by the catalogue's schemas through jobs.<name>).
    const files = sources();
    expect(files.filter((f) => /graphile_worker\.add_jobs?\(/.test(f.text) && f.file !== 'jobs/store.ts').map((f) => f.file)).toEqual([]);
    const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    const spelled = files.flatMap(({ file, text }) =>
      file === 'jobs/catalogue.ts'
        ? []
        : Object.keys(JOBS)
            .filter((name) => new RegExp(`['"\`]${name}['"\`]`).test(code(text)))
            .map((name) => `${file}: ${name}`),
    );
    expect(spelled).toEqual([]);
  });

  it('every crontab line names a catalogued task', () => {
    for (const c of CRONTAB) {
      expect(JOBS).toHaveProperty(c.task);
      expect(c.line.split(' ')[5]).toBe(c.task);
    }
  });

  it('a task runs on its checked payload', async () => {
    const seen: unknown[] = [];
    const run = task('outbound_track', async (p) => void seen.push(p));
    await run({ id: 'a', poll: 2 });
    await run({ id: 'b' });
    const batch = task('deliver_webhook', async (p) => void seen.push('batch' in p ? `batch ${p.batch}` : `one ${p.deliveryId}`));
    await batch({ batch: 'k' });
    await batch({ deliveryId: 'd' });
    // Scheduled tasks get graphile-worker's _cron payload.
    await task('settlements_tick', async () => void seen.push('tick'))({ _cron: { ts: 'x', backfilled: false } });
    expect(seen).toEqual([{ id: 'a', poll: 2 }, { id: 'b' }, 'batch k', 'one d', 'tick']);
  });

  it('a malformed payload fails the job with an error naming the task and the field; nothing runs', async () => {
    let ran = 0;
    const run = task('sweep_address', async () => void ran++);
    for (const bad of [{}, { addressId: 'a' }, { addressId: 'a', assetId: 7 }, null, 'text', [1]]) {
      const err = await run(bad).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(JobPayloadError);
      expect((err as JobPayloadError).task).toBe('sweep_address');
      expect((err as Error).message).toMatch(/^Job sweep_address: malformed payload \(.+\)$/);
    }
    await expect(task('outbound_confirm', async () => void ran++)({ id: 'a', poll: -1 })).rejects.toThrow(
      /Job outbound_confirm: malformed payload \(\/poll /,
    );
    await expect(task('deliver_webhook', async () => void ran++)({})).rejects.toThrow(JobPayloadError);
    expect(ran).toBe(0);
  });
});
