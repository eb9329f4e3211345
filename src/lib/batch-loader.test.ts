import { describe, expect, it } from 'vitest';
import { BatchLoader } from './batch-loader.js';

/** A loader whose loads the test releases by hand, recording what each was asked. */
function manual() {
  const loads: { keys: string[]; release(values?: Record<string, number>): void; fail(err: Error): void }[] = [];
  const loader = new BatchLoader<string, number>(
    (keys) =>
      new Promise((resolve, reject) => {
        loads.push({
          keys,
          release: (values = {}) => resolve(new Map(Object.entries(values))),
          fail: reject,
        });
      }),
    { maxInFlight: 1, maxBatch: 3 },
  );
  return { loader, loads };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('BatchLoader', () => {
  it('loads the keys asked for in one turn together, each distinct key once', async () => {
    const { loader, loads } = manual();
    const answers = Promise.all([loader.load('a'), loader.load('b'), loader.load('a')]);
    await turn();
    expect(loads.map((l) => l.keys)).toEqual([['a', 'b']]);
    loads[0]!.release({ a: 1 });
    expect(await answers).toEqual([1, undefined, 1]);
  });

  it('never answers a call with a load that started before it', async () => {
    const { loader, loads } = manual();
    const first = loader.load('k');
    await turn();
    expect(loads).toHaveLength(1);
    // Asked while the first load runs: it must wait for a load of its own.
    const second = loader.load('k');
    await turn();
    expect(loads).toHaveLength(1);
    loads[0]!.release({ k: 1 });
    expect(await first).toBe(1);
    await turn();
    await turn();
    expect(loads).toHaveLength(2);
    loads[1]!.release({ k: 2 });
    expect(await second).toBe(2);
  });

  it('splits large batches and passes a failed load on to its callers only', async () => {
    const { loader, loads } = manual();
    const big = ['a', 'b', 'c', 'd'].map((k) => loader.load(k).catch((err: Error) => err.message));
    await turn();
    expect(loads.map((l) => l.keys)).toEqual([['a', 'b', 'c']]);
    loads[0]!.fail(new Error('database down'));
    await turn();
    await turn();
    expect(loads.map((l) => l.keys)).toEqual([['a', 'b', 'c'], ['d']]);
    loads[1]!.release({ d: 4 });
    expect(await Promise.all(big)).toEqual(['database down', 'database down', 'database down', 4]);
    expect(loader.waiting).toBe(0);
  });
});
