import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { DbConn } from './db/pool.js';
import { Events, PURPOSES, isPurpose, type Handler, type OutboundEventName, type PurposeTable, type Subscribers } from './events.js';
import type { OutboundRow } from './modules/outbound/service.js';

const src = path.dirname(fileURLToPath(import.meta.url));
const tx = { isTransaction: true } as unknown as DbConn;
const row = (purpose: string, id = purpose) => ({ id, purpose }) as OutboundRow;

/** A table with no subscriber for any purpose but those given. */
function table<E extends OutboundEventName>(handlers: Partial<PurposeTable<E>>): PurposeTable<E> {
  return Object.fromEntries(PURPOSES.map((p) => [p, handlers[p] ?? null])) as unknown as PurposeTable<E>;
}

function recording() {
  const calls: string[] = [];
  const note =
    (label: string) =>
    async (_tx: DbConn, p: { row?: OutboundRow; depositIds?: string[] }): Promise<void> =>
      void calls.push(`${label} ${p.row?.id ?? p.depositIds?.join(',')}`);
  const subscribers: Subscribers = {
    'outbound.signed': table({ withdraw: note('signed withdraw') }),
    'outbound.settled': table({ withdraw: note('settled withdraw'), sweep: note('settled sweep') }),
    'outbound.confirmed': table({ 'autosettle-swap': note('confirmed swap') }),
    'deposit.recorded': [note('recorded')],
    'deposit.confirmed': [note('first'), note('second')],
    'deposit.failed': [],
    'sweep.completed': [note('swept')],
    'approval.decided': [],
  };
  return { calls, subscribers };
}

describe('event registry', () => {
  it('dispatches an outbound event to the subscriber of the row purpose only', async () => {
    const { calls, subscribers } = recording();
    const events = new Events();
    events.wire(subscribers);
    await events.emit('outbound.settled', tx, { row: row('withdraw', 'w1') });
    await events.emit('outbound.settled', tx, { row: row('sweep', 's1') });
    await events.emit('outbound.signed', tx, { row: row('sweep', 's2') }); // sweeps do not listen to signed
    await events.emit('outbound.settled', tx, { row: row('nonce-filler') }); // explicitly nobody
    await events.emit('outbound.settled', tx, { row: row('made-up') }); // not a purpose: nobody, as before
    await events.emit('outbound.confirmed', tx, { row: row('autosettle-swap', 'a1'), change: { kind: 'depth', depth: 1, final: true } });
    expect(calls).toEqual(['settled withdraw w1', 'settled sweep s1', 'confirmed swap a1']);
  });

  it('runs the list events in order, and a throw stops the rest and reaches the caller (who rolls back)', async () => {
    const { calls, subscribers } = recording();
    const events = new Events();
    events.wire({
      ...subscribers,
      'deposit.confirmed': [subscribers['deposit.confirmed'][0]!, failing, subscribers['deposit.confirmed'][1]!],
    });
    await events.emit('sweep.completed', tx, { sweepId: 's', depositIds: ['d1', 'd2'] });
    await expect(events.emit('deposit.confirmed', tx, { depositIds: ['d3'] })).rejects.toThrow('boom');
    expect(calls).toEqual(['swept d1,d2', 'first d3']);
    async function failing(): Promise<void> {
      throw new Error('boom');
    }
  });

  it('follows confirmations only of purposes with an outbound.confirmed subscriber', () => {
    const events = new Events();
    events.wire(recording().subscribers);
    expect(events.followsConfirmations('autosettle-swap')).toBe(true);
    expect(events.followsConfirmations('withdraw')).toBe(false);
    expect(events.followsConfirmations('made-up')).toBe(false);
  });

  it('is wired once, before anything is emitted', async () => {
    const events = new Events();
    await expect(events.emit('deposit.confirmed', tx, { depositIds: ['d'] })).rejects.toThrow(/before the subscribers were wired/);
    events.wire(recording().subscribers);
    expect(() => events.wire(recording().subscribers)).toThrow(/already wired/);
  });

  it('observers (tests) see every payload after the subscribers, any purpose, until removed', async () => {
    const { calls, subscribers } = recording();
    const events = new Events();
    events.wire(subscribers);
    const stop = events.observe('outbound.settled', async (_tx, { row: r }) => void calls.push(`observed ${r.purpose}`));
    await events.emit('outbound.settled', tx, { row: row('withdraw', 'w') });
    await events.emit('outbound.settled', tx, { row: row('made-up') });
    stop();
    await events.emit('outbound.settled', tx, { row: row('made-up') });
    expect(calls).toEqual(['settled withdraw w', 'observed withdraw', 'observed made-up']);
  });

  it('checks the tables and payloads at compile time', () => {
    const none = null;
    // @ts-expect-error a purpose without its entry (here 'nonce-filler') does not compile
    const missing: PurposeTable<'outbound.settled'> = {
      withdraw: none,
      'withdraw-cancel': none,
      'sweep-topup': none,
      sweep: none,
      contract: none,
      'autosettle-topup': none,
      'autosettle-approve': none,
      'autosettle-swap': none,
      'autosettle-transfer': none,
    };
    // @ts-expect-error deposit.confirmed carries deposit ids, not a row
    const wrong: Handler<'deposit.confirmed'> = async (_tx, { row: r }: { row: OutboundRow }) => void r;
    const events = new Events();
    // @ts-expect-error a payload of another event
    void events.observe('sweep.completed', async (_tx, _p: { depositIds: string[]; row: OutboundRow }) => {});
    expect([missing, wrong].length).toBe(2);
    expect(isPurpose('withdraw')).toBe(true);
    expect(isPurpose('withdraw ')).toBe(false);
  });
});

describe('the source', () => {
  const files = readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => path.join(e.parentPath, e.name));

  it('sends outbound rows only with purposes of the union', () => {
    const used = new Set<string>();
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      // `purpose: 'x'`, `X_PURPOSE = 'x'` and the auto-settlement legs' `PURPOSE = { leg: 'x' }`.
      for (const m of text.matchAll(/purpose:\s*'([^']+)'|_PURPOSE(?::\s*\w+)?\s*=\s*'([^']+)'/g)) used.add(m[1] ?? m[2]!);
      const legs = /const PURPOSE = \{([^}]*)\}/.exec(text);
      if (legs) for (const m of legs[1]!.matchAll(/'([^']+)'/g)) used.add(m[1]!);
    }
    expect(used.size).toBeGreaterThanOrEqual(8);
    expect([...used].filter((p) => !isPurpose(p))).toEqual([]);
  });

  it('registers subscribers only in subscriptions.ts: no module calls wire() or observe()', () => {
    const offenders = files.filter((f) => {
      const rel = path.relative(src, f);
      if (rel === 'events.ts' || rel === 'services.ts') return false;
      return /\bevents\.(wire|observe)\(|\.observe\('(outbound|deposit|sweep)\./.test(readFileSync(f, 'utf8'));
    });
    expect(offenders).toEqual([]);
  });
});
