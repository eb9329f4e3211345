import Fastify from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { describe, expect, it } from 'vitest';
import { SnapshotStore } from './rate-store.js';

describe('SnapshotStore', () => {
  it('answers each count as it was when counted, even when counted in one turn of the event loop', () => {
    const store = new SnapshotStore({ cache: 10 });
    const seen: number[] = [];
    for (let i = 0; i < 5; i++) store.incr('k', (_e, res) => seen.push(res!.current), 1_000, 2);
    return Promise.resolve().then(() => expect(seen).toEqual([1, 2, 3, 4, 5]));
  });

  it('under the plugin, a burst of five against a limit of two lets exactly two through', async () => {
    const app = Fastify();
    await app.register(rateLimit, { global: false, store: SnapshotStore as never });
    const limit = app.createRateLimit({ keyGenerator: () => 'one-key', max: 2, timeWindow: 60_000 } as never);
    app.get('/', async (req, reply) => {
      const counted = await limit(req);
      return reply.code(!counted.isAllowed && counted.isExceeded ? 429 : 200).send({});
    });
    const codes = await Promise.all(Array.from({ length: 5 }, () => app.inject('/').then((r) => r.statusCode)));
    expect(codes.filter((c) => c === 200)).toHaveLength(2);
    expect(codes.filter((c) => c === 429)).toHaveLength(3);
    await app.close();
  });
});
