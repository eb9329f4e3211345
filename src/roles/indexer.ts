/**
 * The `indexer` role, one active per chain: each chain's loop holds a PostgreSQL advisory
 * lock on a dedicated connection; a second indexer waits on standby and takes over when
 * the lock is released (its holder stopped or died). Following blocks and recording
 * deposits lands with the deposits capability; today the loop tracks the chain head.
 */
import pg from 'pg';
import type { Logger } from '../lib/logger.js';
import type { ChainHandle } from '../modules/catalogue/service.js';
import { sleep } from '../lib/process.js';

export interface IndexerHandle {
  stop(): Promise<void>;
}

const LOCK_NAMESPACE = 0x1d3; // first half of the advisory lock key: "indexer"

export async function startIndexer(opts: {
  connectionString: string;
  chains: ChainHandle[];
  logger: Logger;
  pollMs?: number;
}): Promise<IndexerHandle> {
  const log = opts.logger.child({ role: 'indexer' });
  let stopping = false;
  const loops = opts.chains.map((chain) => followChain(chain));

  /** Sleeps, but wakes early on stop so shutdown never waits out a poll interval. */
  async function pause(ms: number): Promise<void> {
    for (let waited = 0; waited < ms && !stopping; waited += 100) await sleep(100);
  }

  async function followChain(chain: ChainHandle): Promise<void> {
    const client = new pg.Client({ connectionString: opts.connectionString });
    client.on('error', (err) => log.warn({ chain: chain.key, err: err.message }, 'indexer connection error'));
    await client.connect();
    try {
      let leader = false;
      while (!stopping) {
        if (!leader) {
          const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [
            LOCK_NAMESPACE,
            chain.id,
          ]);
          leader = rows[0]?.ok === true;
          log.info({ chain: chain.key }, leader ? 'indexer active for chain' : 'indexer on standby for chain');
          if (!leader) {
            await pause(5_000);
            continue;
          }
        }
        try {
          const head = await chain.adapter.getBlockNumber();
          log.debug({ chain: chain.key, head: head.toString() }, 'chain head');
        } catch (err) {
          log.warn({ chain: chain.key, err: (err as Error).message }, 'RPC error; retrying');
        }
        await pause(opts.pollMs ?? 2_000);
      }
    } finally {
      await client.end().catch(() => undefined); // closing the session releases the lock
    }
  }

  return {
    async stop() {
      stopping = true;
      await Promise.allSettled(loops);
    },
  };
}
