/**
 * `configurations.contractWrites` changed while a contract write is half-way through (its
 * checks done, its chain reads under way): once the change is answered, the write it forbids
 * is not accepted (docs/signing-and-contracts.md: switched off, 422 CONTRACT_WRITES_DISABLED;
 * a contract not on the allow-list, 422 CONTRACT_NOT_ALLOWED). An operator who switches
 * writes off, or narrows the allow-list, because a key leaked must not see a write the
 * leaked key had in flight accepted after the PATCH was answered.
 *
 * The node sits behind a proxy (test/support/rpc-gate.ts): at the write's first chain call
 * the PATCH is made (and answered), and only then does the write go on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startRpcGate, type RpcGate } from '../support/rpc-gate.js';
import { chainOf } from '../support/chain.js';
import { ABI } from './support.js';
import { permit } from '../signing/eip712-example.js';

let h: Harness;
let gate: RpcGate;

beforeAll(async () => {
  gate = await startRpcGate();
  h = await startHarness({
    specs: [DEVNET_CHAINS[0]!],
    rpcUrlOf: (config) => {
      gate.forwardTo(config.rpcUrl);
      return gate.url;
    },
  });
  await chainOf(h, 'devnet-eth').sendToken('USDC', h.wallets['devnet-eth']!.address, '1000');
}, 120_000);

afterAll(async () => {
  await h?.stop();
  await gate?.close();
});

const wallet = () => h.wallets['devnet-eth']!;
const usdcAddress = () => h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.symbol === 'USDC')!.address!;
const usdtAddress = () => h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.symbol === 'USDT')!.address!;
const fresh = () => privateKeyToAccount(generatePrivateKey()).address;
const transfer = (to: string) => ({ address: usdcAddress(), method: 'transfer', parameters: [to, '1000000'], abi: [ABI.transfer] });

/** Contract Transactions of the wallet (broadcast or signed). */
async function written(): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM transactions
     WHERE wallet_id = ${wallet().id} AND type IN ('CUSTOM_SMART_CONTRACT', 'SIGNED')`.execute(h.database.db);
  return rows[0]!.n;
}

/** Business key: any change of the setting (a wallet key may only restrict it). */
async function setContractWrites(contractWrites: { isActive?: boolean; allowedContracts?: string[] }) {
  const res = await h.api('PATCH', `/v1/wallets/${wallet().id}`, {
    key: h.businessKey,
    body: { configurations: { contractWrites } },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** Sends the write; at its first chain call, `change` is made and answered; returns the write's answer. */
async function raced(path: string, body: unknown, change: () => Promise<void>) {
  let changed = false;
  gate.afterAnswer(
    () => true,
    async () => {
      await change();
      changed = true;
    },
  );
  const res = await h.api('POST', path, { body });
  expect(changed, 'the change ran while the write was reading the chain').toBe(true);
  return res;
}

describe('a contract-write setting answered while a write is under way binds it', () => {
  for (const op of ['write', 'write/sign'] as const) {
    it(`${op}: writes switched off meanwhile is 422 CONTRACT_WRITES_DISABLED, nothing written or signed`, async () => {
      const before = await written();
      try {
        const res = await raced(`/v1/wallets/${wallet().id}/contracts/${op}`, transfer(fresh()), () =>
          setContractWrites({ isActive: false }),
        );
        expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(422);
        expect(res.body.error).toBe('CONTRACT_WRITES_DISABLED');
        expect(await written()).toBe(before);
      } finally {
        await setContractWrites({ isActive: true });
      }
    });

    it(`${op}: the contract left off the allow-list meanwhile is 422 CONTRACT_NOT_ALLOWED, nothing written or signed`, async () => {
      const before = await written();
      try {
        const res = await raced(`/v1/wallets/${wallet().id}/contracts/${op}`, transfer(fresh()), () =>
          setContractWrites({ allowedContracts: [usdtAddress()] }),
        );
        expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(422);
        expect(res.body.error).toBe('CONTRACT_NOT_ALLOWED');
        expect(res.body.details?.[0]?.field).toBe('address');
        expect(await written()).toBe(before);
      } finally {
        await setContractWrites({ allowedContracts: [] });
      }
    });
  }

  it('a write after the setting is restored goes through', async () => {
    const res = await h.api('POST', `/v1/wallets/${wallet().id}/contracts/write`, { body: transfer(fresh()) });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    expect(res.body.data).toMatchObject({ type: 'CUSTOM_SMART_CONTRACT', status: 'PENDING' });
  });

  // Typed data is a contract write signed off chain: the same setting, for its verifying contract.
  const permitOf = () => permit(usdcAddress(), h.devnet.chains[0]!.config.chainId, wallet().address, fresh(), '1000000');

  it('typed data: writes switched off meanwhile is 422 CONTRACT_WRITES_DISABLED, no signature handed out or recorded', async () => {
    const before = await written();
    try {
      const res = await raced(`/v1/wallets/${wallet().id}/signing/typed-data`, permitOf(), () => setContractWrites({ isActive: false }));
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(422);
      expect(res.body.error).toBe('CONTRACT_WRITES_DISABLED');
      expect(await written()).toBe(before);
    } finally {
      await setContractWrites({ isActive: true });
    }
  });

  it('typed data: its verifying contract left off the allow-list meanwhile is 422 CONTRACT_NOT_ALLOWED', async () => {
    const before = await written();
    try {
      const res = await raced(`/v1/wallets/${wallet().id}/signing/typed-data`, permitOf(), () =>
        setContractWrites({ allowedContracts: [usdtAddress()] }),
      );
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(422);
      expect(res.body.error).toBe('CONTRACT_NOT_ALLOWED');
      expect(res.body.details?.[0]?.field).toBe('domain.verifyingContract');
      expect(await written()).toBe(before);
    } finally {
      await setContractWrites({ allowedContracts: [] });
    }
  });
});
