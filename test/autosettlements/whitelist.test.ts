/**
 * Auto-settlement rules and the wallet's beneficiary whitelist: a rule is a standing payout,
 * so while the wallet whitelists, its destination must be a whitelisted beneficiary, as a
 * withdrawal's must (docs/settlement.md "Whitelisting"). Refused when the rule is saved, and
 * again when a settlement runs (a rule saved before the whitelist began).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { ChainIndexer } from '../../src/modules/deposits/indexer.js';
import type { Harness } from '../support/harness.js';
import type { TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';
import { drain as drainIndexer, freshAddress, ruleTo as rule, startEthSettleWorld, USDC } from './eth-settle-world.js';

let h: Harness;
let eth: TestChain;
let indexer: ChainIndexer;

const wallet = () => h.wallets['devnet-eth']!;
const base = () => `/v1/wallets/${wallet().id}`;

beforeAll(async () => {
  ({ h, eth, indexer } = await startEthSettleWorld());
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

const drain = () => drainIndexer(indexer);
async function ruleCount(): Promise<number> {
  const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM auto_settlement_rules`.execute(h.database.db);
  return Number(rows[0]!.n);
}

describe('a wallet that whitelists beneficiaries', () => {
  it('refuses a rule to any other destination (create and update: 422 NOT_WHITELISTED, nothing written); a whitelisted one is taken', async () => {
    const listed = freshAddress();
    const b = await h.api('POST', `${base()}/beneficiaries`, { body: { name: 'Treasury', address: listed, isWhitelisted: true } });
    expect(b.status).toBe(200);
    try {
      const before = await ruleCount();
      const off = await h.api('POST', `${base()}/auto-settlements/rules`, { body: rule(freshAddress()) });
      expect([off.status, off.body.error]).toEqual([422, 'NOT_WHITELISTED']);
      expect(off.body.details).toEqual([{ field: 'destination.address', message: 'not a whitelisted beneficiary' }]);
      expect(await ruleCount()).toBe(before);

      const ok = await h.api('POST', `${base()}/auto-settlements/rules`, { body: rule(listed.toLowerCase()) });
      expect(ok.status).toBe(200);
      const id = ok.body.data.id as string;
      const moved = await h.api('PATCH', `${base()}/auto-settlements/rules/${id}`, { body: { destination: { address: freshAddress() } } });
      expect([moved.status, moved.body.error]).toEqual([422, 'NOT_WHITELISTED']);
      expect((await h.api('GET', `${base()}/auto-settlements/rules/${id}`)).body.data.destination.address).toBe(listed);
      expect((await h.api('DELETE', `${base()}/auto-settlements/rules/${id}`)).status).toBe(200);
    } finally {
      await h.api('DELETE', `${base()}/beneficiaries/${b.body.data.id}`);
    }
  });

  it('a rule saved before the whitelist began settles nothing: failed NOT_WHITELISTED, the funds stay at the child, nothing sent', async () => {
    const child = (await h.api('POST', `${base()}/addresses`, { body: { disableAutoSweep: true } })).body.data as {
      id: string;
      address: string;
    };
    const dest = freshAddress();
    const created = await h.api('POST', `${base()}/addresses/${child.id}/auto-settlements/rules`, { body: rule(dest) });
    expect(created.status).toBe(200);
    // Then the wallet starts whitelisting, and the rule's destination is not on the list.
    const b = await h.api('POST', `${base()}/beneficiaries`, {
      body: { name: 'Only payee', address: freshAddress(), isWhitelisted: true },
    });
    expect(b.status).toBe(200);
    try {
      const receipt = await eth.sendToken('USDC', child.address, '9');
      await drain();
      const { rows: dep } = await sql<{ id: string }>`
        SELECT id FROM transactions WHERE type = 'DEPOSIT' AND lower(hash) = lower(${receipt.transactionHash})`.execute(h.database.db);
      const s = await eventually(
        async () =>
          (
            await sql<{ id: string; status: string; error: string | null; settle_transaction_id: string | null }>`
              SELECT id, status, error, settle_transaction_id FROM auto_settlements WHERE deposit_id = ${dep[0]!.id}`.execute(h.database.db)
          ).rows,
        (rows) => rows.length === 1 && rows[0]!.status !== 'pending',
        30_000,
      ).then((rows) => rows[0]!);
      expect(s.status).toBe('failed');
      expect(s.error).toMatch(/NOT_WHITELISTED/);
      const settle = (await h.api('GET', `${base()}/transactions/${s.settle_transaction_id}`)).body.data;
      expect(settle).toMatchObject({ type: 'AUTO_SETTLEMENT', status: 'FAILED' });
      const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM outbound_txs WHERE owner_id = ${s.id}`.execute(h.database.db);
      expect(Number(rows[0]!.n)).toBe(0);
      expect(await eth.balanceOf('USDC', child.address)).toBe(9n * USDC);
      expect(await eth.balanceOf('USDC', dest)).toBe(0n);
    } finally {
      await h.api('DELETE', `${base()}/beneficiaries/${b.body.data.id}`);
    }
  });
});
