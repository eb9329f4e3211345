/**
 * The probe server of a process that runs no API (a worker or an indexer): `/healthz` and
 * `/readyz` on HEALTH_PORT, nothing else (see ops.ts).
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from '../lib/logger.js';
import { installOps, type OpsOptions } from './ops.js';

export async function startHealthServer(opts: OpsOptions & { logger: Logger; host: string; port: number }): Promise<FastifyInstance> {
  // Probes every few seconds are not worth a log line each: warnings and errors only.
  const logger = opts.logger.child({ role: 'probes' }, { level: 'warn' });
  const app = Fastify({ loggerInstance: logger as unknown as FastifyBaseLogger });
  installOps(app, opts);
  await app.listen({ host: opts.host, port: opts.port });
  return app;
}
