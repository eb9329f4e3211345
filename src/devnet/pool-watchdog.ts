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

  const repair = async (sender: string, queued: Record<string, { hash: string }>): Promise<number> => {
    const nonces = Object.keys(queued)
      .map((n) => BigInt(n))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const raws: string[] = [];
    for (const n of nonces) {
      const raw = await rpc.call('eth_getRawTransactionByHash', [queued[n.toString()]!.hash]);
      if (typeof raw === 'string') raws.push(raw);
    }
    await rpc.call('anvil_removePoolTransactions', [sender]);
    for (const raw of raws) {
      // In order, one at a time: each is ready when it arrives. One mined meanwhile is refused; fine.
      await rpc.call('eth_sendRawTransaction', [raw]).catch(() => undefined);
    }
    logger.warn(
      { rpcUrl, sender, from: nonces[0]?.toString(), count: raws.length },
      'devnet: anvil left ready transactions queued (foundry-rs/foundry#10122); sent them again',
    );
    return raws.length;
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
