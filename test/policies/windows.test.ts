/**
 * What velocity windows add up is what each payout was decided as (its candidate), not what
 * its Transaction shows: a contract write's token transfer counts its amount to its
 * beneficiary, a contract call signed for the client counts under CONTRACT_WRITE (not
 * SIGN_ONLY), and a swap counts its USD value. Each case failed while the windows read the
 * rows' public columns (no amount and the contract as recipient, type SIGNED, no amountUSD).
 */
import { sql } from 'kysely';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ABI, TRY_AGGREGATE } from '../contracts/support.js';
import { uuidv7 } from '../../src/lib/ids.js';
import { randomAddress } from '../withdrawals/world.js';
import { ETH, fundedWallet, policy, startPolicyWorld, type PolicyWorld, type TestWallet } from './world.js';

let w: PolicyWorld;

beforeAll(async () => {
  w = await startPolicyWorld();
}, 120_000);
afterAll(async () => {
  await w?.stop();
});

function transfer(w: PolicyWorld, wallet: TestWallet, to: string, units: string, path: 'write' | 'write/sign' = 'write') {
  return w.h.api('POST', `/v1/wallets/${wallet.id}/contracts/${path}`, {
    key: wallet.apiKey,
    body: { calls: [{ address: w.eth.token('USDC').address, method: 'transfer', parameters: [to, units], abi: [ABI.transfer] }] },
  });
}

async function counted(id: string) {
  const { rows } = await sql<{ policy_type: string | null; policy_amount: string | null; policy_destination: string | null }>`
    SELECT policy_type, policy_amount::text, policy_destination FROM transactions WHERE id = ${id}`.execute(w.h.database.db);
  return rows[0]!;
}

describe('velocity windows count what was decided', () => {
  it('contract writes: a SUM window adds up their transfers; a DESTINATION window is the beneficiary, not the contract', async () => {
    const wallet = await fundedWallet(w, 'windows-contract', '50');
    const sum = await policy(w, {
      name: 'contract transfers: 10 USDC a day',
      priority: 1,
      walletId: wallet.id,
      conditions: {
        types: ['CONTRACT_WRITE'],
        assets: ['USDC'],
        velocity: { measure: 'SUM', scope: 'WALLET', windowSeconds: 86_400, limit: '10', currency: 'ASSET' },
      },
      action: 'BLOCK',
    });
    await policy(w, {
      name: 'one contract transfer per payee a day',
      priority: 2,
      walletId: wallet.id,
      conditions: { types: ['CONTRACT_WRITE'], velocity: { measure: 'COUNT', scope: 'DESTINATION', windowSeconds: 86_400, limit: '1' } },
      action: 'BLOCK',
    });
    const [a, b] = [randomAddress(), randomAddress()];
    const first = await transfer(w, wallet, a, '6000000');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(await counted(first.body.data.id)).toEqual({ policy_type: 'CONTRACT_WRITE', policy_amount: '6000000', policy_destination: a });
    // The same payee again: refused by the per-destination count (the contract is not the payee).
    const again = await transfer(w, wallet, a, '1000000');
    expect(again.status).toBe(422);
    expect(again.body.message).toContain('one contract transfer per payee a day');
    // Another payee: 6 + 6 > 10 in the wallet's window.
    const over = await transfer(w, wallet, b, '6000000');
    expect(over.status).toBe(422);
    expect(over.body.error).toBe('POLICY_BLOCKED');
    expect(over.body.details[0]).toEqual({ field: 'calls.0', message: `blocked by policy ${sum.id}` });
    const within = await transfer(w, wallet, b, '4000000');
    expect(within.status, JSON.stringify(within.body)).toBe(200);
    const { rows } = await sql<{ n: string }>`
      SELECT count(*)::text AS n FROM transactions WHERE wallet_id = ${wallet.id} AND type = 'CUSTOM_SMART_CONTRACT'`.execute(
      w.h.database.db,
    );
    expect(rows[0]!.n).toBe('2');
  });

  it('a contract call paying native value counts it (its own move, to the contract)', async () => {
    const wallet = await fundedWallet(w, 'windows-native-value', '0');
    const native = w.h.services.catalogue.findChain(ETH, 'testnet')!.assets.find((a) => a.is_native)!;
    await policy(w, {
      name: 'contract calls: 1 ETH a day',
      priority: 1,
      walletId: wallet.id,
      conditions: {
        types: ['CONTRACT_WRITE'],
        velocity: { measure: 'SUM', scope: 'WALLET', windowSeconds: 86_400, limit: '1', currency: 'ASSET' },
      },
      action: 'BLOCK',
    });
    const multicall = w.eth.config.multicall3 as string;
    const pay = () =>
      w.h.api('POST', `/v1/wallets/${wallet.id}/contracts/write`, {
        key: wallet.apiKey,
        body: { calls: [{ address: multicall, method: 'tryAggregate', parameters: [false, []], abi: [TRY_AGGREGATE], value: '0.6' }] },
      });
    const first = await pay();
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const row = await counted(first.body.data.id);
    expect(row).toMatchObject({ policy_type: 'CONTRACT_WRITE', policy_amount: '600000000000000000' });
    expect(row.policy_destination?.toLowerCase()).toBe(multicall.toLowerCase());
    const { rows } = await sql<{
      asset: string;
    }>`SELECT policy_asset_id AS asset FROM transactions WHERE id = ${first.body.data.id}`.execute(w.h.database.db);
    expect(rows[0]!.asset).toBe(native.id);
    const second = await pay();
    expect(second.status, JSON.stringify(second.body)).toBe(422);
    expect(second.body.message).toContain('contract calls: 1 ETH a day');
  });

  it('a contract call signed for the client counts under CONTRACT_WRITE, not SIGN_ONLY', async () => {
    const wallet = await fundedWallet(w, 'windows-signed-call', '50');
    await policy(w, {
      name: 'one contract call a day',
      priority: 1,
      walletId: wallet.id,
      conditions: { types: ['CONTRACT_WRITE'], velocity: { measure: 'COUNT', scope: 'WALLET', windowSeconds: 86_400, limit: '1' } },
      action: 'BLOCK',
    });
    await policy(w, {
      name: 'one signed withdrawal a day',
      priority: 2,
      walletId: wallet.id,
      conditions: { types: ['SIGN_ONLY'], velocity: { measure: 'COUNT', scope: 'WALLET', windowSeconds: 86_400, limit: '1' } },
      action: 'BLOCK',
    });
    const signed = await transfer(w, wallet, randomAddress(), '1000000', 'write/sign');
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    expect(signed.body.data).toMatchObject({ type: 'SIGNED', status: 'SUCCESS' });
    expect((await counted(signed.body.data.id)).policy_type).toBe('CONTRACT_WRITE');
    // The sign-only withdrawal's window is still empty...
    const withdrawal = await w.h.api('POST', `/v1/wallets/${wallet.id}/withdraw/sign`, {
      key: wallet.apiKey,
      body: { assetId: w.usdc.id, address: randomAddress(), amount: '1' },
    });
    expect(withdrawal.status, JSON.stringify(withdrawal.body)).toBe(200);
    expect((await counted(withdrawal.body.data.id)).policy_type).toBe('SIGN_ONLY');
    // ...and the contract calls' window is full: a broadcast call is refused.
    const broadcast = await transfer(w, wallet, randomAddress(), '1000000');
    expect(broadcast.status).toBe(422);
    expect(broadcast.body.message).toContain('one contract call a day');
  });

  it('swaps count their USD value in a USD SUM window', async () => {
    const wallet = await fundedWallet(w, 'windows-swap-usd', '50');
    const usdt = w.h.services.catalogue.findChain(ETH, 'testnet')!.assets.find((a) => a.symbol === 'USDT')!.id;
    await policy(w, {
      name: 'swaps: 10 USD a day',
      priority: 1,
      walletId: wallet.id,
      conditions: { types: ['SWAP'], velocity: { measure: 'SUM', scope: 'WALLET', windowSeconds: 86_400, limit: '10', currency: 'USD' } },
      action: 'BLOCK',
    });
    const swap = (amount: string) =>
      w.h.api('POST', `/v1/wallets/${wallet.id}/swaps/execute`, {
        key: wallet.apiKey,
        body: { fromAssetId: w.usdc.id, toAssetId: usdt, amount, recipientAddress: randomAddress() },
      });
    const first = await swap('6');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const { rows } = await sql<{ usd: string | null }>`
      SELECT policy_amount_usd::text AS usd FROM transactions WHERE id = ${first.body.data.id}`.execute(w.h.database.db);
    expect(Number(rows[0]!.usd)).toBeGreaterThan(5.9);
    // A second swap from the master waits for the first (409 SWAP_IN_PROGRESS): the dry run decides it now.
    const dry = await w.h.api('POST', '/v1/policies/evaluate', {
      key: w.manager.apiKey,
      body: { type: 'SWAP', walletId: wallet.id, assetId: w.usdc.id, amount: '6', address: randomAddress() },
    });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body.data).toMatchObject({ action: 'BLOCK', policy: { name: 'swaps: 10 USD a day' } });
  });

  it('migration 049 counts rows written before it as the windows counted them, a signed contract call as CONTRACT_WRITE', async () => {
    const wallet = await fundedWallet(w, 'windows-migration', '50');
    const call = await transfer(w, wallet, randomAddress(), '1000000', 'write/sign');
    const withdrawal = await w.h.api('POST', `/v1/wallets/${wallet.id}/withdraw/sign`, {
      key: wallet.apiKey,
      body: { assetId: w.usdc.id, address: randomAddress(), amount: '2' },
    });
    const message = await w.h.api('POST', `/v1/wallets/${wallet.id}/sign/message`, { key: wallet.apiKey, body: { message: 'hello' } });
    expect([call.status, withdrawal.status, message.status], JSON.stringify(message.body)).toEqual([200, 200, 200]);
    const ids = [call.body.data.id, withdrawal.body.data.id, message.body.data.id] as string[];
    const read = async () =>
      (
        await sql<{ id: string; policy_type: string | null; policy_amount: string | null; policy_destination: string | null }>`
          SELECT id, policy_type, policy_amount::text, policy_destination FROM transactions WHERE id = ANY(${ids}::uuid[])`.execute(
          w.h.database.db,
        )
      ).rows.sort((x, y) => ids.indexOf(x.id) - ids.indexOf(y.id));
    const written = await read();
    // As they were before the migration (no policy_* columns filled), then its backfill, twice.
    await sql`UPDATE transactions SET policy_type = NULL, policy_asset_id = NULL, policy_amount = NULL, policy_amount_usd = NULL,
                                      policy_destination = NULL WHERE id = ANY(${ids}::uuid[])`.execute(w.h.database.db);
    const file = readFileSync(new URL('../../src/db/migrations/049_transactions_policy_counts.sql', import.meta.url), 'utf8');
    const backfill = file.slice(file.indexOf('UPDATE transactions'), file.indexOf(';', file.indexOf('UPDATE transactions')));
    for (let i = 0; i < 2; i++) await sql.raw(backfill).execute(w.h.database.db);
    const migrated = await read();
    expect(migrated.map((r) => r.policy_type)).toEqual(['CONTRACT_WRITE', 'SIGN_ONLY', null]);
    // The withdrawal as written; the call as its row shows it (no amount, the contract), as counted before.
    expect(migrated[1]).toEqual(written[1]);
    expect(migrated[0]!.policy_amount).toBeNull();
    expect(migrated[0]!.policy_destination?.toLowerCase()).toBe(w.eth.token('USDC').address.toLowerCase());
    expect(written[0]!.policy_amount).toBe('1000000');
    // A payout older than any window (31 days at most) is left as it was.
    await sql`UPDATE transactions SET policy_type = NULL, created_at = now() - interval '40 days' WHERE id = ${ids[1]}`.execute(
      w.h.database.db,
    );
    await sql.raw(backfill).execute(w.h.database.db);
    expect((await read())[1]!.policy_type).toBeNull();
  });

  it('a settlement leg counts what it sends once the swap delivered it, its USD value at the rate it was decided on', async () => {
    const wallet = await fundedWallet(w, 'windows-leg', '0');
    const chain = w.h.services.catalogue.findChain(ETH, 'testnet')!;
    const id = uuidv7();
    const to = randomAddress();
    await w.h.services.transactions.createLeg(w.h.database.db, {
      id,
      walletId: wallet.id,
      addressId: null,
      assetId: w.usdc.id,
      chainId: chain.id,
      reference: `leg-${id}`,
      type: 'AUTO_SETTLEMENT',
      amount: 100_000_000n,
      currency: 'USDC',
      toAmount: null,
      toCurrency: null,
      sender: wallet.address,
      recipient: to,
      token: w.eth.token('USDC').address,
      network: 'testnet',
      reason: null,
      metadata: {},
      counted: { as: 'AUTO_SETTLEMENT', assetId: w.usdc.id, amount: 100_000_000n, amountUsd: '99.5', destination: to },
    });
    await w.h.services.transactions.setLegAmount(w.h.database.db, id, 120_000_000n);
    const { rows } = await sql<{ amount: string; usd: string }>`
      SELECT policy_amount::text AS amount, policy_amount_usd::text AS usd FROM transactions WHERE id = ${id}`.execute(w.h.database.db);
    expect(rows[0]!.amount).toBe('120000000');
    expect(Number(rows[0]!.usd)).toBeCloseTo(119.4, 9);
    await sql`DELETE FROM transactions WHERE id = ${id}`.execute(w.h.database.db);
  });

  it('a payout written without its counts (an instance of the previous version, mid-deploy) is counted as its row shows it', async () => {
    const wallet = await fundedWallet(w, 'windows-old-writer', '0');
    const chain = w.h.services.catalogue.findChain(ETH, 'testnet')!;
    const to = randomAddress();
    const insert = async (type: string, assetId: string | null, reason: string | null) => {
      const id = uuidv7();
      await sql`
        INSERT INTO transactions (id, wallet_id, asset_id, chain_id, reference, type, status, stage, confirmed, amount, amount_usd,
                                  currency, sender_address, recipient_address, network, created_channel, reason)
        VALUES (${id}, ${wallet.id}, ${assetId}, ${chain.id}, ${`old-${id}`}, ${type}, 'PENDING', 'created', false,
                ${assetId ? '7000000' : null}, ${assetId ? '7' : null}, 'USDC', ${wallet.address}, ${to}, 'testnet', 'API', ${reason})`.execute(
        w.h.database.db,
      );
      const { rows } = await sql<{ t: string | null; amount: string | null; usd: string | null; to: string | null }>`
        SELECT policy_type AS t, policy_amount::text AS amount, policy_amount_usd::text AS usd, policy_destination AS to
          FROM transactions WHERE id = ${id}`.execute(w.h.database.db);
      return rows[0]!;
    };
    expect(await insert('WITHDRAW', w.usdc.id, null)).toEqual({ t: 'WITHDRAW', amount: '7000000', usd: '7', to });
    expect((await insert('SIGNED', null, '{"method":"transfer","parameters":[],"abi":[]}')).t).toBe('CONTRACT_WRITE');
    expect(await insert('SIGNED', null, 'EIP-191 personal message (5 characters)')).toEqual({ t: null, amount: null, usd: null, to: null });
    expect((await insert('DEPOSIT', w.usdc.id, null)).t).toBeNull();
  });
});
