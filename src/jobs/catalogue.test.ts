import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { JOBS, JobPayloadError, parsePayload, task, type JobName } from './catalogue.js';
import { CRONTAB } from './tasks.js';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The top-level comma-separated parts of `text` (parentheses and quotes respected). */
function splitArgs(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let cur = '';
  for (const ch of text) {
    if (ch === "'") quoted = !quoted;
    if (!quoted && ch === '(') depth++;
    if (!quoted && ch === ')') depth--;
    if (!quoted && depth === 0 && ch === ',') {
      parts.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  parts.push(cur.trim());
  return parts;
}

/** Every job the stores' SQL queues: its task name and the keys of its json_build_object payload. */
function enqueued(): { where: string; name: string; keys: string[] }[] {
  const out: { where: string; name: string; keys: string[] }[] = [];
  const files = readdirSync(src, { recursive: true, withFileTypes: true }).filter(
    (e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'),
  );
  for (const e of files) {
    const file = path.join(e.parentPath, e.name);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/graphile_worker\.add_jobs?\(\s*(?:array_agg\(\s*ROW\()?'(\w+)',\s*json_build_object\(/g)) {
      let depth = 1;
      let i = m.index + m[0].length;
      const start = i;
      for (; depth > 0 && i < text.length; i++) depth += text[i] === '(' ? 1 : text[i] === ')' ? -1 : 0;
      const keys = splitArgs(text.slice(start, i - 1))
        .filter((_, k) => k % 2 === 0)
        .map((k) => k.replace(/^'|'$/g, ''));
      out.push({ where: `${path.relative(src, file)}:${text.slice(0, m.index).split('\n').length}`, name: m[1]!, keys });
    }
  }
  return out;
}

describe('job catalogue', () => {
  it('every job the source queues is catalogued, with the keys its schema names', () => {
    const jobs = enqueued();
    expect(jobs.length).toBeGreaterThanOrEqual(10);
    const names = new Set(jobs.map((j) => j.name));
    expect(names).toEqual(
      new Set([
        'settlement_run',
        'outbound_send',
        'outbound_track',
        'outbound_confirm',
        'auto_settle',
        'deliver_webhook',
        'sweep_address',
        // The work that follows deposit.confirmed and sweep.completed (src/subscriptions.ts).
        'sweep_deposits',
        'auto_settle_deposits',
        'auto_settle_swept',
        'settle_deposits',
        'settle_swept',
        // Deposits whose AML providers did not answer (aml/store.ts).
        'aml_rescreen_deposits',
      ]),
    );
    const wrong = jobs.flatMap((j) => {
      if (!(j.name in JOBS)) return [`${j.where}: ${j.name} is not in the catalogue`];
      const sample = Object.fromEntries(j.keys.map((k) => [k, k === 'poll' ? 0 : k.endsWith('Ids') ? ['x'] : 'x']));
      try {
        parsePayload(j.name as JobName, sample);
        return [];
      } catch (err) {
        return [`${j.where}: ${(err as Error).message}`];
      }
    });
    expect(wrong).toEqual([]);
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
