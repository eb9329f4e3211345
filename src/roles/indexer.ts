/**
 * The `indexer` role, one active per chain: each chain's loop holds a PostgreSQL advisory
 * lock on a dedicated connection; a second indexer waits on standby and takes over when
 * the lock is released (its holder stopped or died). The active one steps the chain's
 * deposit indexer: as fast as it can while behind, every `pollMs` at the head, and with
 * growing pauses while the RPC node fails (the cursor only moves on success, so no block
 * is ever skipped). Even two active indexers could not record twice: each step commits
 * against the cursor row it read.
 */
import pg from 'pg';
import type { Logger } from '../lib/logger.js';
import type { ChainIndexer } from '../modules/deposits/indexer.js';

export type IndexerState = 'connecting' | 'active' | 'standby';

export interface IndexerHandle {
  /** Per chain key: whether this process follows the chain or stands by. */
  states(): Record<string, IndexerState>;
  stop(): Promise<void>;
}

const LOCK_NAMESPACE = 0x1d3; // first half of the advisory lock key: "indexer"

const MAX_BACKOFF_MS = 30_000;

export async function startIndexer(opts: {
  connectionString: string;
  indexers: ChainIndexer[];
  logger: Logger;
  /** Pause between polls once at the head. */
  pollMs?: number;
  /** How often a standby tries to take the lock (the takeover gap after a holder died). */
  standbyPollMs?: number;
}): Promise<IndexerHandle> {
  const log = opts.logger.child({ role: 'indexer' });
  const standbyPollMs = opts.standbyPollMs ?? 1_000;
  let stopping = false;
  const states = new Map<string, IndexerState>(opts.indexers.map((i) => [i.chain.key, 'connecting']));
  const loops = opts.indexers.map((indexer) => followChain(indexer));

  const sleepers = new Set<() => void>();
  /** Sleeps, but wakes at once on stop so shutdown never waits out a poll interval. */
  function pause(ms: number): Promise<void> {
    if (stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      sleepers.add(wake);
    });
  }

  /**
   * The lock belongs to one database session. When that session dies (the database
   * restarted, a proxy or an operator killed the connection), PostgreSQL releases the lock
   * and a standby takes it; the old holder must notice and stand down. It used to check
   * the lock only once, then never touch its connection again: it kept indexing as "active"
   * next to the new holder (two active indexers for one chain), and a standby whose
   * connection died crashed the process with an unhandled rejection. Now the active
   * indexer checks its session every round, and any session failure means: stand down,
   * reconnect after a pause, and compete for the lock again.
   */
  async function followChain(indexer: ChainIndexer): Promise<void> {
    const chain = indexer.chain;
    while (!stopping) {
      const client = new pg.Client({
        connectionString: opts.connectionString,
        // Bounded, so a database that stops answering cannot hold up a shutdown forever.
        connectionTimeoutMillis: 10_000,
        query_timeout: 10_000,
        keepAlive: true,
      });
      client.on('error', (err) => log.warn({ chain: chain.key, err: err.message }, 'indexer connection error'));
      try {
        await client.connect();
        await followWithSession(indexer, client);
      } catch (err) {
        if (!stopping) log.warn({ chain: chain.key, err: (err as Error).message }, 'indexer lost its database session; standing down');
      } finally {
        // A range still being written finishes before the lock goes to a standby.
        await indexer.settle().catch((err: unknown) => log.warn({ chain: chain.key, err: (err as Error).message }, 'indexer range failed'));
        await client.end().catch(() => undefined); // closing the session releases the lock
        states.set(chain.key, 'connecting');
      }
      await pause(2_000);
    }
  }

  /** Returns when stopping; throws when the session fails (the lock may be gone with it). */
  async function followWithSession(indexer: ChainIndexer, client: pg.Client): Promise<void> {
    const chain = indexer.chain;
    let leader = false;
    let announcedStandby = false;
    let backoff = 0;
    while (!stopping) {
      if (!leader) {
        const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [
          LOCK_NAMESPACE,
          chain.id,
        ]);
        leader = rows[0]?.ok === true;
        states.set(chain.key, leader ? 'active' : 'standby');
        if (leader) log.info({ chain: chain.key }, 'indexer active for chain');
        else if (!announcedStandby) log.info({ chain: chain.key }, 'indexer on standby for chain');
        announcedStandby = !leader;
        if (!leader) {
          await pause(standbyPollMs);
          continue;
        }
      } else {
        // Still the holder only while this session lives: a failed round trip throws.
        await client.query('SELECT 1');
      }
      try {
        const result = await indexer.step();
        backoff = 0;
        if (result === 'idle') await pause(opts.pollMs ?? 500);
      } catch (err) {
        backoff = Math.min(MAX_BACKOFF_MS, backoff ? backoff * 2 : 500);
        log.warn({ chain: chain.key, err: (err as Error).message, retryInMs: backoff }, 'indexer step failed; retrying');
        await pause(backoff);
      }
    }
  }

  return {
    states: () => Object.fromEntries(states),
    async stop() {
      stopping = true;
      for (const wake of [...sleepers]) wake();
      await Promise.allSettled(loops);
    },
  };
}
