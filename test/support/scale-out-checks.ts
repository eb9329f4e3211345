/**
 * What the scale-out run must end with, read from the database, the chain and the webhook
 * receiver: every deposit credited once with one `deposit.success`, every accepted
 * withdrawal on chain once, the master's nonces without gaps.
 */
import { createPublicClient, erc20Abi, http as viemHttp, type Address, type Hash } from 'viem';
import { devnetChain } from '../../src/devnet/chain.js';
import type { Cluster } from './scale-out-cluster.js';
import type { Faucet } from './scale-out.js';

export interface ChainLoad {
  key: string;
  slug: string;
  rpcUrl: string;
  chainId: number;
  walletId: string;
  apiKey: string;
  master: Address;
  usdc: { id: string; address: Address; decimals: number };
  children: Address[];
  faucet: Faucet;
  deposits: { hash: Hash; to: Address; amount: bigint }[];
  withdrawals: { id: string; to: Address; amount: bigint }[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function verifyOutcome(cluster: Cluster, loads: ChainLoad[], settleMs: number, log: (l: string) => void): Promise<string[]> {
  const problems: string[] = [];
  const deadline = Date.now() + settleMs;
  for (const load of loads) {
    // Settled: every deposit SUCCESS, every withdrawal out of PENDING.
    let waiting = '';
    for (;;) {
      const deposits = await cluster.query<{ hash: string; status: string }>(
        "SELECT hash, status FROM transactions WHERE wallet_id = $1 AND type = 'DEPOSIT'",
        [load.walletId],
      );
      const credited = new Set(deposits.filter((d) => d.status === 'SUCCESS').map((d) => d.hash.toLowerCase()));
      const uncredited = load.deposits.filter((d) => !credited.has(d.hash.toLowerCase())).length;
      const pending = (
        await cluster.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM transactions WHERE id = ANY($1::uuid[]) AND status = 'PENDING'",
          [load.withdrawals.map((w) => w.id)],
        )
      )[0]!.n;
      waiting = `${uncredited} of ${load.deposits.length} deposits not credited, ${pending} of ${load.withdrawals.length} withdrawals pending`;
      if (uncredited === 0 && pending === 0) break;
      if (Date.now() > deadline) {
        problems.push(`${load.key}: not settled within ${settleMs / 1000} s: ${waiting}; ${await pipelineState(cluster)}`);
        break;
      }
      await sleep(1_000);
    }
    problems.push(...(await checkDeposits(cluster, load)), ...(await checkWithdrawals(cluster, load)));
    log(`${load.key}: ${load.deposits.length} deposits, ${load.withdrawals.length} withdrawals checked`);
  }
  return problems;
}

async function checkDeposits(cluster: Cluster, load: ChainLoad): Promise<string[]> {
  const problems: string[] = [];
  const rows = await cluster.query<{ id: string; hash: string; status: string; amount: string; recipient_address: string }>(
    "SELECT id::text, hash, status, amount::text, recipient_address FROM transactions WHERE wallet_id = $1 AND type = 'DEPOSIT'",
    [load.walletId],
  );
  const events = await cluster.query<{ transaction_id: string; n: number }>(
    "SELECT transaction_id::text, count(*)::int AS n FROM events WHERE wallet_id = $1 AND name = 'deposit.success' GROUP BY 1",
    [load.walletId],
  );
  const deliveries = await cluster.query<{ transaction_id: string; n: number }>(
    "SELECT transaction_id::text, count(*)::int AS n FROM webhook_deliveries WHERE wallet_id = $1 AND event = 'deposit.success' GROUP BY 1",
    [load.walletId],
  );
  // What reached the receiver: one webhook-id per deposit (a retried delivery repeats its id).
  const received = new Map<string, Set<string>>();
  for (const r of cluster.received) {
    const body = JSON.parse(r.body) as { event: string; data: { id: string } };
    if (body.event !== 'deposit.success') continue;
    received.set(body.data.id, (received.get(body.data.id) ?? new Set()).add(String(r.headers['webhook-id'])));
  }
  if (rows.length !== load.deposits.length) problems.push(`${load.key}: ${rows.length} deposit rows for ${load.deposits.length} deposits`);
  for (const d of load.deposits) {
    const mine = rows.filter((r) => r.hash.toLowerCase() === d.hash.toLowerCase());
    if (mine.length !== 1) {
      problems.push(`${load.key}: deposit ${d.hash} recorded ${mine.length} times`);
      continue;
    }
    const row = mine[0]!;
    if (row.status !== 'SUCCESS' || BigInt(row.amount) !== d.amount || row.recipient_address.toLowerCase() !== d.to.toLowerCase())
      problems.push(`${load.key}: deposit ${d.hash} recorded as ${JSON.stringify(row)}, sent ${d.amount} to ${d.to}`);
    const eventCount = events.find((e) => e.transaction_id === row.id)?.n ?? 0;
    const deliveryCount = deliveries.find((e) => e.transaction_id === row.id)?.n ?? 0;
    if (eventCount !== 1 || deliveryCount !== 1)
      problems.push(`${load.key}: deposit ${d.hash} has ${eventCount} deposit.success events and ${deliveryCount} deliveries`);
    if ((received.get(row.id)?.size ?? 0) > 1)
      problems.push(`${load.key}: deposit ${d.hash} reached the receiver as two different webhooks`);
  }
  return problems;
}

async function checkWithdrawals(cluster: Cluster, load: ChainLoad): Promise<string[]> {
  const problems: string[] = [];
  const client = createPublicClient({ chain: devnetChain(load.chainId, load.rpcUrl), transport: viemHttp(load.rpcUrl) });
  const statuses = await cluster.query<{ id: string; status: string }>(
    'SELECT id::text, status FROM transactions WHERE id = ANY($1::uuid[])',
    [load.withdrawals.map((w) => w.id)],
  );
  const outbound = await cluster.query<{
    owner_id: string | null;
    stage: string;
    status: string | null;
    nonce: string;
    from_address: string;
  }>('SELECT owner_id::text, stage, status, nonce::text, from_address FROM outbound_txs WHERE wallet_id = $1', [load.walletId]);
  const total = (
    await cluster.query<{ n: number }>("SELECT count(*)::int AS n FROM transactions WHERE wallet_id = $1 AND type = 'WITHDRAW'", [
      load.walletId,
    ])
  )[0]!.n;
  if (total !== load.withdrawals.length)
    problems.push(`${load.key}: ${total} withdrawals recorded for ${load.withdrawals.length} accepted`);
  for (const w of load.withdrawals) {
    const status = statuses.find((s) => s.id === w.id)?.status;
    const mined = outbound.filter((o) => o.owner_id === w.id && o.stage === 'mined');
    const balance = await client.readContract({ address: load.usdc.address, abi: erc20Abi, functionName: 'balanceOf', args: [w.to] });
    if (status !== 'SUCCESS' || mined.length !== 1 || mined[0]!.status !== 'success' || balance !== w.amount)
      problems.push(
        `${load.key}: withdrawal ${w.id}: status ${status}, ${mined.length} mined transactions, recipient holds ${balance} of ${w.amount}`,
      );
  }
  // The master's nonces: 0..n-1, each mined exactly once, and the chain agrees.
  const fromMaster = outbound.filter((o) => o.from_address.toLowerCase() === load.master.toLowerCase());
  const minedNonces = fromMaster.filter((o) => o.stage === 'mined').map((o) => Number(o.nonce));
  const distinct = [...new Set(fromMaster.map((o) => Number(o.nonce)))].sort((a, b) => a - b);
  const onChain = await client.getTransactionCount({ address: load.master });
  if (distinct.some((n, i) => n !== i)) problems.push(`${load.key}: the master's nonces have gaps: ${distinct.join(',')}`);
  if (minedNonces.length !== distinct.length || new Set(minedNonces).size !== minedNonces.length)
    problems.push(`${load.key}: ${minedNonces.length} mined rows for ${distinct.length} nonces`);
  if (onChain !== distinct.length)
    problems.push(`${load.key}: the chain counts ${onChain} transactions from the master, the database ${distinct.length}`);
  return problems;
}

/** Where the work stands: unsettled outbound rows, queued jobs, the workers' warnings. */
async function pipelineState(cluster: Cluster): Promise<string> {
  const rows = await cluster.query(
    `SELECT nonce, stage, purpose, attempts, left(error, 120) AS error, updated_at FROM outbound_txs
      WHERE stage IN ('created', 'signed', 'broadcast') ORDER BY nonce LIMIT 15`,
  );
  const jobs = await cluster.query(
    `SELECT id, task_identifier, attempts, left(last_error, 160) AS last_error, run_at, locked_by, key
       FROM graphile_worker.jobs ORDER BY run_at LIMIT 15`,
  );
  const workers = Object.fromEntries(
    cluster.procs
      .filter((p) => p.role === 'worker')
      .map((p) => [
        `${p.proc.pid}${p.proc.exit() ? ' (exited)' : ''}`,
        p.proc
          .logs()
          .filter((l) => l.level >= 40 || /restart|worker started/.test(l.msg))
          .slice(-25)
          .map((l) => `${new Date(l.time ?? 0).toISOString().slice(11, 23)} ${l.msg} ${String(l.err ?? '').slice(0, 100)}`),
      ]),
  );
  return JSON.stringify({ rows, jobs, workers }, null, 1);
}
