/**
 * A withdrawal held for approval is sent, once approved, with the gasLimit and gasPrice the
 * client gave (its funds check and reserved fee used them); they were dropped, so it was
 * signed with a fresh estimate and quote instead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { fundedWallet, policy, startPolicyWorld, vote, waitStatus, withdraw, type PolicyWorld } from '../policies/world.js';
import { randomAddress } from './world.js';

let w: PolicyWorld;
beforeAll(async () => {
  w = await startPolicyWorld();
}, 120_000);
afterAll(async () => {
  await w?.stop();
});

describe('approval drops the gas options', () => {
  it(
    'an approved withdrawal is signed with the gasLimit and gasPrice it was accepted (and reserved) with',
    { timeout: 90_000 },
    async () => {
      const wallet = await fundedWallet(w, 'approval-gas', '500');
      await policy(w, {
        name: 'over 100 USDC needs approval',
        priority: 10,
        walletId: wallet.id,
        conditions: { types: ['WITHDRAW', 'BATCH_ITEM'], assets: ['USDC'], amount: { min: '100', currency: 'ASSET' } },
        action: 'REQUIRE_APPROVAL',
        approval: { approvers: { apiKeys: w.approvers.map((k) => k.id) }, quorum: 1, ttlSeconds: 3600 },
      });
      // A known base fee: 30 gwei; the floor the API accepts for gasPrice is base x 1.2 = 36 gwei.
      await w.eth.rpc('anvil_setNextBlockBaseFeePerGas', [`0x${30_000_000_000n.toString(16)}`]);
      await w.eth.mine();
      await new Promise((r) => setTimeout(r, 1_100));
      const gasLimit = '123456';
      const gasPrice = '36000000000';
      const res = await withdraw(w, wallet, { assetId: w.usdc.id, address: randomAddress(), amount: '150', gasLimit, gasPrice });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const id = res.body.data.id as string;
      expect(res.body.data.status).toBe('PENDING_APPROVAL');
      const reserved = (
        await sql<{ reserved_fee: string }>`SELECT reserved_fee FROM transactions WHERE id = ${id}`.execute(w.h.database.db)
      ).rows[0]!.reserved_fee;

      expect((await vote(w, w.approvers[0], id, 'approve')).status).toBe(200);
      await waitStatus(w, wallet, id, 'SUCCESS');
      const { rows } = await sql<{ gas_limit: string; max_fee: string }>`
      SELECT network_data->>'gasLimit' AS gas_limit, network_data->>'maxFeePerGas' AS max_fee FROM outbound_txs
       WHERE owner_id = ${id} AND purpose = 'withdraw'`.execute(w.h.database.db);
      const signed = rows[0]!;
      expect({ gasLimit: signed.gas_limit, maxFeePerGas: signed.max_fee }).toEqual({ gasLimit, maxFeePerGas: gasPrice });
    },
  );
});
