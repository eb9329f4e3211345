import { describe, expect, it } from 'vitest';
import { TtlCache } from './ttl-cache.js';

function clockAt(start = 1_000) {
  const clock = { t: start, now: () => clock.t };
  return clock;
}

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('TtlCache', () => {
  it('expires entries after the TTL', () => {
    const clock = clockAt();
    const cache = new TtlCache<string, number>({ ttlMs: 100, maxEntries: 10, now: clock.now });
    cache.set('a', 1);
    clock.t += 99;
    expect(cache.get('a')).toBe(1);
    clock.t += 1;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('counts the TTL from when the read began: a slow load is held only for what is left of it', async () => {
    const clock = clockAt();
    const cache = new TtlCache<string, number>({ ttlMs: 100, maxEntries: 10, now: clock.now });
    const gate = deferred<number>();
    const loaded = cache.getOrLoad('k', () => gate.promise);
    clock.t += 60; // the read takes 60 ms
    gate.resolve(1);
    expect(await loaded).toBe(1);
    clock.t += 39;
    expect(cache.get('k')).toBe(1);
    clock.t += 1;
    expect(cache.get('k')).toBeUndefined();
    // A value read longer ago than the TTL is not stored at all.
    expect(cache.set('old', 2, cache.generation, clock.t - 100)).toBe(false);
    expect(cache.get('old')).toBeUndefined();
  });

  it('never holds more than maxEntries, dropping the oldest first', () => {
    const cache = new TtlCache<number, number>({ ttlMs: 10_000, maxEntries: 3 });
    for (let i = 0; i < 1_000; i++) cache.set(i, i);
    expect(cache.size).toBe(3);
    expect([997, 998, 999].map((k) => cache.get(k))).toEqual([997, 998, 999]);
    expect(cache.get(0)).toBeUndefined();
  });

  it('does not cache misses', async () => {
    const cache = new TtlCache<string, number>({ ttlMs: 10_000, maxEntries: 10 });
    let loads = 0;
    for (let i = 0; i < 3; i++) await cache.getOrLoad('unknown', async () => (loads++, undefined));
    expect(loads).toBe(3);
    expect(cache.size).toBe(0);
  });

  it('shares one load among concurrent misses of a key', async () => {
    const cache = new TtlCache<string, number>({ ttlMs: 10_000, maxEntries: 10 });
    const gate = deferred<number>();
    let loads = 0;
    const results = Promise.all([1, 2, 3].map(() => cache.getOrLoad('k', () => (loads++, gate.promise))));
    gate.resolve(7);
    expect(await results).toEqual([7, 7, 7]);
    expect(loads).toBe(1);
    expect(cache.get('k')).toBe(7);
  });

  it('does not store a load that started before an invalidation, nor let later callers join it', async () => {
    const cache = new TtlCache<string, string>({ ttlMs: 10_000, maxEntries: 10 });
    const stale = deferred<string>();
    const before = cache.getOrLoad('key', () => stale.promise);
    cache.clear(); // e.g. the key was revoked while the old row was being read
    const after = cache.getOrLoad('key', async () => 'fresh');
    stale.resolve('stale');
    expect(await before).toBe('stale');
    expect(await after).toBe('fresh');
    expect(cache.get('key')).toBe('fresh');

    const again = deferred<string>();
    const pending = cache.getOrLoad('other', () => again.promise);
    cache.delete('other');
    again.resolve('old');
    await pending;
    expect(cache.get('other')).toBeUndefined();
  });

  it('switched off, it loads every time and stores nothing; switched on, it starts empty', async () => {
    const cache = new TtlCache<string, number>({ ttlMs: 10_000, maxEntries: 10 });
    cache.set('a', 1);
    cache.setEnabled(false);
    expect(cache.get('a')).toBeUndefined();
    let loads = 0;
    await cache.getOrLoad('a', async () => ++loads);
    await cache.getOrLoad('a', async () => ++loads);
    expect(loads).toBe(2);
    expect(cache.set('a', 5)).toBe(false);
    cache.setEnabled(true);
    expect(cache.size).toBe(0);
    expect(cache.set('a', 5)).toBe(true);
  });

  it('a TTL of 0 turns it off', () => {
    const cache = new TtlCache<string, number>({ ttlMs: 0, maxEntries: 10 });
    expect(cache.enabled).toBe(false);
    expect(cache.set('a', 1)).toBe(false);
  });
});
