/**
 * The HTTP server a process runs: the API (http/) and the operator's dashboard
 * (dashboard/) on one Fastify instance. They are two edges over the same services and
 * never import each other (the house rules), so they meet here: the dashboard gets what
 * it needs of http/ (the error catalogue's statuses) as a plugin option.
 */
import type { FastifyInstance } from 'fastify';
import { buildApp, type BuildAppOptions } from './http/app.js';
import { statusOf } from './http/errors.js';
import { dashboardPlugin } from './dashboard/plugin.js';
import { payPlugin } from './pay/plugin.js';

export type BuildServerOptions = BuildAppOptions;

export async function buildServer(opts: BuildServerOptions): Promise<FastifyInstance> {
  const app = await buildApp(opts);
  // The operator's dashboard: server-rendered pages with their own session auth (not x-api-key).
  await app.register(dashboardPlugin, { prefix: '/dashboard', services: opts.services, statusOf });
  // The payer's page of payment links (no API key, no session): /pay/<slug>.
  await app.register(payPlugin, { prefix: '/pay', services: opts.services, statusOf });
  return app;
}
