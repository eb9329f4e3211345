/**
 * PostgreSQL restarting under a running process: a pooled client lent out (between two
 * queries of a transaction) when its connection dies must not crash the process. pg-pool
 * takes its own error listener off a client while it is lent, so the 'error' event had no
 * listener and an API process died when PostgreSQL restarted (found by the scale-out test).
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/pool.js';
import { createLogger } from '../../src/lib/logger.js';
import { createDatabaseFromTemplate, dropDatabase } from '../support/harness.js';

let url: string;
beforeAll(async () => {
  url = await createDatabaseFromTemplate();
});
afterAll(async () => {
  if (url) await dropDatabase(url);
});

it('a lent client whose connection is terminated is discarded, and the pool goes on', async () => {
  const database = createDatabase(url, createLogger('silent'));
  const client = await database.pool.connect();
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
  await admin.end();
  await new Promise((r) => setTimeout(r, 500)); // the connection's end reaches the client
  await expect(client.query('SELECT 1')).rejects.toThrow();
  client.release(true);
  expect((await database.pool.query<{ ok: number }>('SELECT 1 AS ok')).rows[0]!.ok).toBe(1);
  await database.close();
});
