/** Liveness and readiness for orchestrators and load balancers. */
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Services } from '../services.js';

const CHECK_TIMEOUT_MS = 3_000;

export function installOps(app: FastifyInstance, services: Services): void {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    const checks: Record<string, string> = {};
    const run = async (name: string, check: () => Promise<unknown>) => {
      try {
        await withTimeout(check(), CHECK_TIMEOUT_MS);
        checks[name] = 'ok';
      } catch (err) {
        checks[name] = (err as Error).message.slice(0, 200);
      }
    };
    await Promise.all([
      run('database', () => sql`select 1`.execute(services.db)),
      ...services.catalogue.chains().map((c) => run(`rpc:${c.key}`, () => c.adapter.getBlockNumber())),
    ]);
    const ready = Object.values(checks).every((v) => v === 'ok');
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', checks });
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    promise.then(
      (v) => (clearTimeout(timer), resolve(v)),
      (e) => (clearTimeout(timer), reject(e)),
    );
  });
}
