/**
 * Records a transaction and its event through the real outbox API, standing in for the
 * deposit and withdrawal pipelines the webhook tests do not need.
 */
import { sql } from 'kysely';
import type pg from 'pg';
import { shortReference, uuidv7 } from '../../src/lib/ids.js';
import { insertTransaction } from '../../src/modules/transactions/store.js';
import type { Harness } from './harness.js';

export async function recordDeposit(
  h: Harness,
  slug: string,
  opts: { event?: string; amount?: bigint } = {},
): Promise<{ id: string; reference: string }> {
  const wallet = h.wallets[slug]!;
  const chain = h.services.catalogue.findChain(slug, h.devnet.chains.find((c) => c.config.blockchain.slug === slug)!.config.network)!;
  const asset = chain.assets.find((a) => !a.is_native)!;
  const id = uuidv7();
  const reference = shortReference();
  await h.database.db.transaction().execute(async (tx) => {
    await insertTransaction(
      tx,
      {
        id,
        wallet_id: wallet.id,
        chain_id: chain.id,
        asset_id: asset.id,
        reference,
        type: 'DEPOSIT',
        status: 'SUCCESS',
        confirmed: true,
        confirmations: 2,
        amount: opts.amount ?? 1_500_000n,
        hash: `0x${'ab'.repeat(32)}`,
        log_index: Math.floor(Math.random() * 1e6),
        network: chain.row.network,
        recipient_address: wallet.address,
        token_address: asset.address,
        aml_screening: JSON.stringify({}),
      },
      null,
    );
    await h.services.webhooks.emitForTransaction(tx, id, opts.event ?? 'deposit.success');
  });
  return { id, reference };
}

export interface DeliveryState {
  status: string;
  attempts: number;
  next_attempt_at: Date | null;
}

export async function deliveryState(h: Harness, deliveryId: string): Promise<DeliveryState> {
  const { rows } =
    await sql<DeliveryState>`SELECT status, attempts, next_attempt_at FROM webhook_deliveries WHERE id = ${deliveryId}`.execute(
      h.database.db,
    );
  return rows[0]!;
}

export async function attemptTimes(
  h: Harness,
  deliveryId: string,
): Promise<{ attempt: number; attempted_at: Date; status_code: number | null; error: string | null; finished_at: Date | null }[]> {
  const { rows } = await sql<{
    attempt: number;
    attempted_at: Date;
    status_code: number | null;
    error: string | null;
    finished_at: Date | null;
  }>`
    SELECT attempt, attempted_at, status_code, error, finished_at FROM webhook_attempts WHERE delivery_id = ${deliveryId} ORDER BY attempt`.execute(
    h.database.db,
  );
  return rows;
}

export async function deliveriesOf(h: Harness, transactionId: string): Promise<string[]> {
  const { rows } = await sql<{
    id: string;
  }>`SELECT id FROM webhook_deliveries WHERE transaction_id = ${transactionId} ORDER BY created_at`.execute(h.database.db);
  return rows.map((r) => r.id);
}

/** Polls until `check` passes (the worker delivers asynchronously). */
export async function eventually<T>(read: () => Promise<T>, check: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (check(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; last value ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** How many sessions wait for a lock `holder`'s session holds (tests that hold rows on purpose). */
export async function blockedBy(holder: pg.Client): Promise<number> {
  const { rows } = await holder.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM pg_stat_activity WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))',
  );
  return rows[0]!.n;
}

/** Waits until some session is queued behind a lock `holder`'s session holds. */
export async function untilBlocking(holder: pg.Client, timeoutMs = 10_000): Promise<void> {
  await eventually(
    () => blockedBy(holder),
    (n) => n > 0,
    timeoutMs,
  );
}

/**
 * A new business with one devnet-eth wallet whose webhooks go to `webhookUrl`, made through
 * the API as a tenant would: the wallet's id and the business's id.
 */
export async function businessWallet(h: Harness, name: string, webhookUrl: string): Promise<{ walletId: string; businessId: string }> {
  const { business, apiKey } = await h.services.businesses.create(name);
  const created = await h.api('POST', '/v1/wallets', { key: apiKey, body: { blockchain: 'devnet-eth', network: 'testnet', name } });
  if (created.status !== 200) throw new Error(`wallet of ${name}: ${created.status} ${JSON.stringify(created.body)}`);
  const walletId = created.body.data.id as string;
  const patched = await h.api('PATCH', `/v1/wallets/${walletId}`, { key: apiKey, body: { webhookUrl } });
  if (patched.status !== 200) throw new Error(`webhook URL of ${name}: ${patched.status} ${JSON.stringify(patched.body)}`);
  return { walletId, businessId: business.id };
}
