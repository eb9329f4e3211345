import { describe, expect, it } from 'vitest';
import { FreshCoalescer } from './coalesce.js';

/** A read whose calls are counted and which the test ends by hand. */
function manualRead() {
  const calls: { startedAt: number; resolve: (v: number) => void; reject: (e: unknown) => void }[] = [];
  let clock = 0;
  const read = () => new Promise<number>((resolve, reject) => calls.push({ startedAt: ++clock, resolve, reject }));
  return { calls, read, tick: () => ++clock };
}

describe('FreshCoalescer', () => {
  it('callers arriving during a read share the next read, which starts after they asked', async () => {
    const c = new FreshCoalescer<number>();
    const m = manualRead();
    const first = c.load('k', m.read);
    expect(m.calls).toHaveLength(1);
    const askedAt = m.tick();
    const later = [c.load('k', m.read), c.load('k', m.read), c.load('k', m.read)];
    expect(m.calls).toHaveLength(1); // they wait: the running read began before they asked
    m.calls[0]!.resolve(1);
    expect(await first).toBe(1);
    await Promise.resolve();
    expect(m.calls).toHaveLength(2);
    expect(m.calls[1]!.startedAt).toBeGreaterThan(askedAt);
    m.calls[1]!.resolve(2);
    expect(await Promise.all(later)).toEqual([2, 2, 2]);
  });

  it('keys are independent; a failure reaches exactly the callers of that read; the key is usable afterwards', async () => {
    const c = new FreshCoalescer<number>();
    const m = manualRead();
    const a = c.load('a', m.read);
    const b = c.load('b', m.read);
    expect(m.calls).toHaveLength(2);
    m.calls[0]!.reject(new Error('boom'));
    await expect(a).rejects.toThrow('boom');
    m.calls[1]!.resolve(7);
    expect(await b).toBe(7);
    const again = c.load('a', m.read);
    expect(m.calls).toHaveLength(3);
    m.calls[2]!.resolve(8);
    expect(await again).toBe(8);
  });

  it('a read that throws synchronously rejects its callers and frees the key', async () => {
    const c = new FreshCoalescer<number>();
    await expect(
      c.load('k', () => {
        throw new Error('sync');
      }),
    ).rejects.toThrow('sync');
    expect(await c.load('k', async () => 3)).toBe(3);
  });
});
