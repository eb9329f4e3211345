/** Prometheus metrics at /metrics: process defaults plus request counts and latencies. */
import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export function createRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

export function installMetrics(app: FastifyInstance, registry: Registry): void {
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method and route',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  // Each (method, route, status)'s children, found once: prom-client otherwise hashes the
  // label object on every observation, on every request. Bounded: routes are patterns.
  const children = new Map<string, { count: { inc(): void }; time: { observe(v: number): void } }>();
  // A callback hook: no promise per request.
  app.addHook('onResponse', (req, reply, done) => {
    // The route pattern, never the raw URL: ids in paths would explode label cardinality.
    const route = req.routeOptions.url ?? 'unmatched';
    const status = String(reply.statusCode);
    const key = `${req.method} ${status} ${route}`;
    let child = children.get(key);
    if (!child) {
      child = { count: requests.labels(req.method, route, status), time: duration.labels(req.method, route) };
      children.set(key, child);
    }
    child.count.inc();
    child.time.observe(reply.elapsedTime / 1000);
    done();
  });
  app.get('/metrics', { schema: { hide: true } }, async (_req, reply) => {
    void reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
}
