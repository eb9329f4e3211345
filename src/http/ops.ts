/**
 * Liveness and readiness, as Kubernetes probes expect them:
 * - `GET /healthz`: 200 while the process runs and its event loop answers. It never looks
 *   at the database or the chains (a liveness probe that did would restart every replica
 *   during a database outage, which restarting cannot fix).
 * - `GET /readyz`: 200 when this process can do its work: PostgreSQL answers, every
 *   migration this version ships is applied, every configured chain's RPC answers, and the
 *   roles it runs are up (the job-queue workers); 503 with the failing checks otherwise,
 *   and from the moment a stop begins. Each check has 3 s. Its `aml` details report each AML
 *   screening provider's last answer or failure (a provider that times out shows there;
 *   it blocks payouts, not readiness: deposits, balances and the rest still work) and the
 *   offline lists imported.
 * Served by the API, and by the probe server (HEALTH_PORT) of processes without it.
 */
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { pendingMigrations } from '../db/migrate.js';
import type { Services } from '../services.js';

/** Check name -> 'ok' or what is wrong. */
export type Checks = Record<string, string>;

export interface OpsOptions {
  services: Services;
  /** The checks of the roles this process runs, and what they report (the indexer's state). */
  roleChecks?: () => { checks: Checks; info: Record<string, unknown> };
}

const CHECK_TIMEOUT_MS = 3_000;

export function installOps(app: FastifyInstance, opts: OpsOptions): void {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    const { services } = opts;
    const checks: Checks = {};
    const run = async (name: string, check: () => Promise<unknown>) => {
      try {
        await withTimeout(check(), CHECK_TIMEOUT_MS);
        checks[name] = 'ok';
      } catch (err) {
        checks[name] = (err as Error).message.slice(0, 200);
      }
    };
    let aml: Awaited<ReturnType<Services['aml']['health']>> | { error: string } = { error: 'not read' };
    await Promise.all([
      services.aml.health().then(
        (h) => (aml = h),
        (err: Error) => (aml = { error: err.message.slice(0, 200) }),
      ),
      run('database', () => sql`select 1`.execute(services.db)),
      run('migrations', async () => {
        const pending = await pendingMigrations(services.db);
        if (pending.length) throw new Error(`not applied: ${pending.join(', ')} (run migrate)`);
      }),
      ...services.catalogue.chains().map((c) => run(`rpc:${c.key}`, () => c.adapter.getBlockNumber())),
    ]);
    const roles = opts.roleChecks?.() ?? { checks: {}, info: {} };
    Object.assign(checks, roles.checks);
    const ready = Object.values(checks).every((v) => v === 'ok');
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', checks, aml, ...roles.info });
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
