/**
 * The backfill benchmark's bare baseline (issue 29): the ceiling of this machine for the same
 * work with nothing of ours in it. A fresh process reads the same block range as the indexer
 * run, in ranges of the same size, with eth_getLogs (the tokens' Transfer logs, decoded by
 * hand) and writes every transfer with COPY into a bare table (no index, no constraint), one
 * transaction per range, as the indexer commits a range at a time. No watch set, no blocks,
 * no events, deliveries or jobs.
 *
 * Environment: DATABASE_URL, CHAINS (JSON of ChainConfig[]; the first one's RPC URL and
 * tokens), FROM_BLOCK, TO_BLOCK, BATCH_BLOCKS. Talks to the parent over IPC like
 * bench/backfill-indexer.ts: { type: 'start' }, then { type: 'done', run: { ms, rows } }.
 */
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { toHex, type RpcLog } from 'viem';
import type { ChainConfig } from '../src/config/index.js';
import { decodeTransferLog } from '../src/chains/evm/scan.js';
import { env } from './child-services.js';

export const BARE_TABLE = 'bench_bare_transfers';
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

async function main(): Promise<void> {
  const chain = (JSON.parse(env('CHAINS')) as ChainConfig[])[0]!;
  const tokens = chain.assets.filter((a) => !a.isNative).map((a) => a.address);
  const from = BigInt(env('FROM_BLOCK'));
  const to = BigInt(env('TO_BLOCK'));
  const batch = BigInt(env('BATCH_BLOCKS'));
  const client = new pg.Client({ connectionString: env('DATABASE_URL') });
  await client.connect();
  await client.query(
    `CREATE TABLE IF NOT EXISTS ${BARE_TABLE} (block_number bigint, log_index int, tx_hash text, token text, sender text, recipient text, amount numeric(78,0))`,
  );
  await client.query(`TRUNCATE ${BARE_TABLE}`);
  let id = 0;
  const getLogs = async (lo: bigint, hi: bigint): Promise<RpcLog[]> => {
    const res = await fetch(chain.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: ++id,
        method: 'eth_getLogs',
        params: [{ address: tokens, topics: [TRANSFER_TOPIC], fromBlock: toHex(lo), toBlock: toHex(hi) }],
      }),
    });
    const body = (await res.json()) as { result?: RpcLog[]; error?: { message: string } };
    if (!body.result) throw new Error(`eth_getLogs: ${body.error?.message}`);
    return body.result;
  };

  process.send!({ type: 'start' });
  const t0 = performance.now();
  let rows = 0;
  for (let lo = from; lo <= to; lo += batch) {
    const hi = lo + batch - 1n < to ? lo + batch - 1n : to;
    const lines: string[] = [];
    for (const log of await getLogs(lo, hi)) {
      const t = decodeTransferLog(log);
      if (t) lines.push(`${t.block.number}\t${t.logIndex}\t${t.txHash}\t${t.token}\t${t.from}\t${t.to}\t${t.amount}\n`);
    }
    await client.query('BEGIN');
    await pipeline(Readable.from(lines), client.query(copyFrom(`COPY ${BARE_TABLE} FROM STDIN`)));
    await client.query('COMMIT');
    rows += lines.length;
  }
  const ms = performance.now() - t0;
  await client.end();
  await new Promise<void>((resolve, reject) =>
    process.send!({ type: 'done', run: { ms, rows } }, (err: Error | null) => (err ? reject(err) : resolve())),
  );
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error((err as Error).stack ?? String(err));
    process.exit(1);
  },
);
