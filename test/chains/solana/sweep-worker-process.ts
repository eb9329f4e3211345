/**
 * A worker in its own process for the Solana sweep crash test: the real task list on the
 * test's database, killing itself with SIGKILL at an exact point of a sweep.
 * Environment: DATABASE_URL, KEK (hex), CHAINS (JSON of ChainConfig[]), and CRASH_AT:
 *   broadcast  right after the node accepted the sweep's transaction, before anything is recorded
 *   (absent)   never: a plain restarted worker
 */
import { crashWorker, die } from '../../support/crash-worker.js';

const { services, start } = await crashWorker({ firstTrackDelayMs: 100, maxTrackDelayMs: 400 });

if (process.env.CRASH_AT === 'broadcast') {
  for (const chain of services.catalogue.chains()) {
    if (chain.config.blockchain.family !== 'solana') continue;
    const adapter = chain.adapter;
    const broadcast = adapter.broadcast.bind(adapter);
    adapter.broadcast = async (raw) => {
      const hash = await broadcast(raw);
      die();
      return hash;
    };
  }
}

await start();
