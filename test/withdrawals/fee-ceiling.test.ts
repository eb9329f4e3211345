/**
 * A withdrawal is signed within the fee it reserved when it was accepted. The send job used
 * to quote the fees again when it signed: a base fee that rose in between was signed at the
 * new price, above what the funds check held, so a native withdrawal of everything the check
 * allowed cost more than the balance; every node refused it, for good (a signed row is never
 * signed again), and it blocked the sender's later nonces. Now it is signed at most at the
 * reserved fee: refused as too low while the base fee is high, mined once it falls back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { parseEther, type Address } from 'viem';
import { formatAmount } from '../../src/lib/money.js';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import {
  chainOf,
  enableNative,
  eventually,
  newChild,
  outboundOf,
  randomAddress,
  startWorld,
  getTx,
  withdraw,
  type TestChain,
  type World,
} from './world.js';

let w: World;
let eth: TestChain;
const ETH = 'devnet-eth';

beforeAll(async () => {
  w = await startWorld({ specs: [DEVNET_CHAINS[0]!] });
  eth = chainOf(w.h, ETH);
});
afterAll(async () => {
  await w?.stop();
});

describe('fee reservation vs. what is signed', () => {
  it(
    'a native withdrawal of everything the funds check allows is signed within its reserved fee, and mined once the base fee falls back',
    { timeout: 90_000 },
    async () => {
      const nativeId = await enableNative(w.h, ETH);
      const child = await newChild(w.h, ETH);
      await eth.sendNative(child.address, '0.01');
      const baseFee = async (gwei: bigint) => {
        await eth.rpc('anvil_setNextBlockBaseFeePerGas', [`0x${(gwei * 10n ** 9n).toString(16)}`]);
        await eth.mine();
      };
      await baseFee(30n);
      const balance = await eth.pub.getBalance({ address: child.address as Address });
      const to = randomAddress();
      const quoted = await withdraw(w.h, ETH, { assetId: nativeId, address: to, amount: '0.001' }, { addressId: child.id, fee: true });
      expect(quoted.status, JSON.stringify(quoted.body)).toBe(200);
      const amount = balance - parseEther(quoted.body.data.networkFee);

      await w.h.stopWorker();
      let id: string;
      try {
        const res = await withdraw(w.h, ETH, { assetId: nativeId, address: to, amount: formatAmount(amount, 18) }, { addressId: child.id });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        id = res.body.data.id;
        // The base fee doubles before the worker signs.
        await baseFee(60n);
        await new Promise((r) => setTimeout(r, 1_500)); // past the fee quote's 1 s cache
      } finally {
        await w.h.startWorker();
      }
      const [signed] = await eventually(
        () => outboundOf(w.h, id!),
        (r) => r[0]?.hash != null,
        20_000,
      );
      const { rows } = await sql<{ gas_limit: string; max_fee: string }>`
      SELECT network_data->>'gasLimit' AS gas_limit, network_data->>'maxFeePerGas' AS max_fee FROM outbound_txs WHERE id = ${signed!.id}`.execute(
        w.h.database.db,
      );
      // Signed within what the balance holds: value + gas x cap.
      expect(amount + BigInt(rows[0]!.gas_limit) * BigInt(rows[0]!.max_fee)).toBeLessThanOrEqual(balance);

      // Fees fall back to where they were at acceptance: it is mined, the payment exact.
      await baseFee(30n);
      const t = await eventually(
        () => getTx(w.h, ETH, id!),
        (x) => x.status !== 'PENDING',
        40_000,
      );
      expect({ status: t.status, recipient: await eth.pub.getBalance({ address: to }) }).toEqual({ status: 'SUCCESS', recipient: amount });
    },
  );
});
