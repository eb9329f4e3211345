/**
 * Works around an anvil bug (third party; foundry-rs/foundry#10122, still in anvil 1.7.1):
 * when one sender's transactions arrive out of nonce order at the same moment, anvil can
 * leave those above a just-mined nonce in its "queued" set although nothing is missing any
 * more. They are never mined, a re-broadcast is answered "already imported", and every
 * later transaction of the sender queues behind them. Seen on CI as a withdrawal test whose
 * master address stalled for minutes; reproduced outside the project with 100 shuffled
 * concurrent sends (about 1 round in 100 under load), and so was the repair below.
 *
 * Real nodes do not do this, so the watchdog runs only beside the anvil devnets we start. A
 * sender is stuck when it has nothing pending and its lowest queued nonce is not above its
 * mined count; seen so on two checks in a row, its queued transactions are read back as
 * signed bytes, removed from the pool and sent again in nonce order, which anvil mines.
 */
import type { Logger } from '../lib/logger.js';
import { jsonRpcPoster } from '../chains/evm/json-rpc-http.js';

type PoolSection = Record<string, Record<string, { hash: string }>>;

export interface PoolWatchdog {
  /** One check (the timer calls it); resolves to the number of transactions sent again. */
  check(): Promise<number>;
  stop(): void;
}

export function startPoolWatchdog(rpcUrl: string, logger: Logger, intervalMs = 1_000): PoolWatchdog {
  const rpc = jsonRpcPoster(rpcUrl, { timeoutMs: 5_000, maxSockets: 2 });
  // Senders (with their lowest queued nonce) that looked stuck at the previous check.
  let suspects = new Set<string>();
  let running: Promise<number> | null = null;

  const queuedOf = async (sender: string): Promise<Record<string, { hash: string }>> => {
    const content = (await rpc.call('txpool_content', [])) as { queued?: PoolSection };
    const section = content.queued ?? {};
    const key = Object.keys(section).find((k) => k.toLowerCase() === sender.toLowerCase());
    return key ? section[key]! : {};
  };

  const repair = async (sender: string, queued: Record<string, { hash: string }>): Promise<number> => {
    const nonces = Object.keys(queued)
      .map((n) => BigInt(n))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const hashes = nonces.map((n) => queued[n.toString()]!.hash);
    const raws: string[] = [];
    for (const hash of hashes) {
      const raw = await rpc.call('eth_getRawTransactionByHash', [hash]);
      // Without every transaction's bytes nothing is removed: a lost one would leave a real gap.
      if (typeof raw !== 'string') return 0;
      raws.push(raw);
    }
    // anvil removes by sender only (a removal by hash leaves a queued transaction known).
    // Anything the sender sent since the read above would be removed unsent: check again
    // right before, and leave it to the next check if the set changed.
    const now = Object.values(await queuedOf(sender)).map((t) => t.hash);
    if (now.length !== hashes.length || now.some((h) => !hashes.includes(h))) return 0;
    await rpc.call('anvil_removePoolTransactions', [sender]);
    let sent = 0;
    for (const [i, raw] of raws.entries()) {
      // In order, one at a time: each is ready when it arrives.
      try {
        await rpc.call('eth_sendRawTransaction', [raw]);
        sent++;
      } catch (err) {
        // Mined meanwhile ("nonce too low") is fine; anything else is worth a line in the log.
        const message = (err as Error).message;
        if (!/nonce too low|already/i.test(message)) {
          logger.warn(
            { rpcUrl, sender, nonce: nonces[i]!.toString(), err: message },
            'devnet: a queued transaction was not accepted again',
          );
        }
      }
    }
    logger.warn(
      { rpcUrl, sender, from: nonces[0]?.toString(), count: raws.length, sent },
      'devnet: anvil left ready transactions queued (foundry-rs/foundry#10122); sent them again',
    );
    return sent;
  };

  const once = async (): Promise<number> => {
    const content = (await rpc.call('txpool_content', [])) as { pending?: PoolSection; queued?: PoolSection };
    const pending = content.pending ?? {};
    const queued = content.queued ?? {};
    const now = new Set<string>();
    let resent = 0;
    for (const [sender, txs] of Object.entries(queued)) {
      if (Object.keys(pending[sender] ?? {}).length > 0) continue;
      const lowest = Object.keys(txs).reduce((m, n) => (BigInt(n) < m ? BigInt(n) : m), BigInt(Object.keys(txs)[0] ?? 0));
      const mined = BigInt((await rpc.call('eth_getTransactionCount', [sender, 'latest'])) as string);
      if (lowest > mined) continue; // a real gap: an earlier nonce has not arrived yet
      const key = `${sender.toLowerCase()}:${lowest}`;
      now.add(key);
      if (suspects.has(key)) resent += await repair(sender, txs);
    }
    suspects = now;
    return resent;
  };

  const check = (): Promise<number> => {
    running ??= once().finally(() => (running = null));
    return running;
  };
  const timer = setInterval(() => {
    check().catch((err: unknown) => logger.debug({ rpcUrl, err: (err as Error).message }, 'devnet pool check failed'));
  }, intervalMs);
  timer.unref();

  return {
    check,
    stop() {
      clearInterval(timer);
      rpc.close();
    },
  };
}
