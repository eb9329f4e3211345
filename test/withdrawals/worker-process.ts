/**
 * A worker in its own process for the crash tests: the real task list on the test's
 * database, killing itself with SIGKILL at an exact point of the outbound pipeline.
 * Environment: DATABASE_URL, KEK (hex), CHAINS (JSON of ChainConfig[]), and CRASH_AT:
 *   signed     right after a withdrawal's signature is stored, before any broadcast
 *   broadcast  right after a node accepted a withdrawal, before anything is recorded
 *   (absent)   never: a plain restarted worker
 */
import { crashWorker, die } from '../support/crash-worker.js';

const { services, start } = await crashWorker({ firstTrackDelayMs: 50, maxTrackDelayMs: 200 });

const crashAt = process.env.CRASH_AT;
if (crashAt === 'signed') {
  const outbound = services.outbound;
  const signAndStore = outbound.signAndStore.bind(outbound);
  outbound.signAndStore = async (id) => {
    const row = await signAndStore(id);
    if (row?.stage === 'signed' && row.purpose === 'withdraw') die();
    return row;
  };
} else if (crashAt === 'broadcast') {
  for (const chain of services.catalogue.chains()) {
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
