/**
 * A worker in its own process for the Tron sweep crash test: the real task list on the
 * test's database, killing itself with SIGKILL at an exact point of a sweep with lent energy.
 * Environment: DATABASE_URL, KEK (hex), CHAINS (JSON of ChainConfig[]), and CRASH_AT:
 *   lend-broadcast    right after a node accepted the master's delegateresource, before anything is recorded
 *   transfer-settled  right after the sweep's transfer was recorded mined (the give-back queued, not sent)
 *   (absent)          never: a plain restarted worker
 */
import { crashWorker, die } from '../../support/crash-worker.js';

const { services, start } = await crashWorker({ firstTrackDelayMs: 100, maxTrackDelayMs: 400 });

const crashAt = process.env.CRASH_AT;
if (crashAt === 'lend-broadcast') {
  for (const chain of services.catalogue.chains()) {
    const adapter = chain.adapter;
    const broadcast = adapter.broadcast.bind(adapter);
    adapter.broadcast = async (raw) => {
      const hash = await broadcast(raw);
      // The contract's type URL is in the signed bytes ("protocol.UnDelegate…" does not match).
      if (Buffer.from(raw.replace(/^0x/, ''), 'hex').includes('protocol.DelegateResourceContract')) die();
      return hash;
    };
  }
} else if (crashAt === 'transfer-settled') {
  const outbound = services.outbound;
  // The give-back the settling transaction queues must still be unsent when this worker
  // dies: another of its job slots would otherwise pick it up (and sign it) between that
  // COMMIT and the kill below, on a busy machine. Held here until the kill.
  const send = outbound.send.bind(outbound);
  outbound.send = async (id) => {
    if ((await outbound.get(id))?.purpose === 'sweep-give-back') return new Promise<void>(() => undefined);
    return send(id);
  };
  const track = outbound.track.bind(outbound);
  outbound.track = async (id, poll) => {
    // Only the call that settles the transfer: a mined sweep row is tracked on to its depth
    // too, and an earlier sweep's depth check must not kill this worker before its sweep.
    const was = (await outbound.get(id))?.stage;
    await track(id, poll);
    const row = await outbound.get(id);
    if (row?.purpose === 'sweep' && row.stage === 'mined' && was !== 'mined') die();
  };
}

await start();
