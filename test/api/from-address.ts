/**
 * Requests from a chosen loopback source address (Linux routes all of 127/8 to the loopback
 * interface), so the server sees each as another client, and a count of the database work
 * a run causes. Shared by the request-limit tests.
 */
import { request } from 'node:http';
import type { Harness } from '../support/harness.js';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** A request on a new connection from `localAddress`. */
export function from(h: Harness, localAddress: string, method: string, path: string, key?: string, body?: unknown): Promise<Answer> {
  const url = new URL(`${h.baseUrl}${path}`);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        localAddress,
        agent: false,
        headers: { ...(key ? { 'x-api-key': key } : {}), ...(payload ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : null }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Database connections taken from the service's pool while `run` runs: one per query. */
export async function queriesDuring(h: Harness, run: () => Promise<unknown>): Promise<number> {
  let n = 0;
  const count = () => n++;
  h.database.pool.on('acquire', count);
  try {
    await run();
  } finally {
    h.database.pool.off('acquire', count);
  }
  return n;
}
