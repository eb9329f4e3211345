/**
 * A wallet deactivated, an asset disabled on it, or a whitelist entry removed through one
 * API replica, while another replica is half-way through a withdrawal of that wallet (its
 * checks done, its chain reads under way): from the moment the change is answered, no
 * replica accepts a payout it forbids (docs/api.md: "from the commit on ... withdrawals of
 * it are refused"; docs/withdrawals.md: WALLET_INACTIVE, ASSET_NOT_ENABLED, NOT_WHITELISTED).
 *
 * Two service graphs on one database, as two `npm start -- api` processes would be: `a` is
 * the harness's, `b` its own pool, caches, listener and HTTP server. The node sits behind a
 * proxy (test/support/rpc-gate.ts) that, once b's withdrawal has made its first chain call,
 * commits the change through a and only then lets b go on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { createDatabase, type Database$ } from '../../src/db/pool.js';
import { LocalKeyVault } from '../../src/keys/vault.js';
import { createServices, type Services } from '../../src/services.js';
import { buildServer } from '../../src/server.js';
import { createLogger } from '../../src/lib/logger.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startRpcGate, type RpcGate } from '../support/rpc-gate.js';
import { chainOf } from '../support/chain.js';
import { permit } from '../signing/eip712-example.js';

let h: Harness;
let gate: RpcGate;
let b: { database: Database$; services: Services; app: FastifyInstance; baseUrl: string };

beforeAll(async () => {
  gate = await startRpcGate();
  h = await startHarness({
    specs: [DEVNET_CHAINS[0]!],
    rpcUrlOf: (config) => {
      gate.forwardTo(config.rpcUrl);
      return gate.url;
    },
  });
  const logger = createLogger('silent');
  const database = createDatabase(h.databaseUrl, logger);
  const services = await createServices(
    database.db,
    new LocalKeyVault(h.kek),
    {
      chains: h.devnet.chains.map((c) => ({ ...c.config, rpcUrl: gate.url })),
      addressLimit: 100_000,
      keyExport: { testnet: true, mainnet: false },
      apiLimits: { keyRate: 0, authFailures: 0, authFailureWindowS: 60 },
    },
    { logger, databaseUrl: h.databaseUrl },
  );
  const app = await buildServer({ services, logger });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  b = { database, services, app, baseUrl: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
  await chainOf(h, 'devnet-eth').sendToken('USDC', h.wallets['devnet-eth']!.address, '1000');
}, 120_000);

afterAll(async () => {
  await b?.app.close();
  await b?.services.close();
  await b?.database.close();
  await h?.stop();
  await gate?.close();
});

const wallet = () => h.wallets['devnet-eth']!;
const usdc = () => h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.symbol === 'USDC')!.id;
const fresh = () => privateKeyToAccount(generatePrivateKey()).address;

async function onB(method: string, path: string, body?: unknown) {
  const res = await fetch(`${b.baseUrl}${path}`, {
    method,
    headers: { 'x-api-key': wallet().apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** Payouts written under `reference` (any type, any status). */
async function written(reference: string) {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM transactions WHERE wallet_id = ${wallet().id} AND reference = ${reference}`.execute(h.database.db);
  return rows[0]!.n;
}

/**
 * Sends `path` to replica b; at its first chain call (or the first `at` picks), commits
 * `change` through replica a (answered before b goes on). Returns b's answer.
 */
async function raced(
  path: string,
  body: Record<string, unknown>,
  change: () => Promise<void>,
  at: (method: string) => boolean = () => true,
) {
  let changed = false;
  gate.afterAnswer(
    (call) => at(call.method),
    async () => {
      await change();
      changed = true;
    },
  );
  const res = await onB('POST', path, body);
  expect(changed, 'the change ran while b was reading the chain').toBe(true);
  return res;
}

/** Replica a: adds a whitelisted beneficiary; its id. */
async function whitelist(address: string): Promise<string> {
  const res = await h.api('POST', `/v1/wallets/${wallet().id}/beneficiaries`, {
    body: { name: address.slice(0, 10), address, isWhitelisted: true },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.id as string;
}

/** Replica a: deactivates (or reactivates) the wallet. */
async function setActive(isActive: boolean) {
  // A business key: a wallet key may deactivate, not reactivate (docs/api.md).
  const res = await h.api('PATCH', `/v1/wallets/${wallet().id}`, { key: h.businessKey, body: { isActive } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** Replica a: disables (or enables) USDC on the wallet. */
async function setUsdc(enabled: boolean) {
  const res = enabled
    ? await h.api('POST', `/v1/wallets/${wallet().id}/assets`, { body: { assetId: usdc() } })
    : await h.api('DELETE', `/v1/wallets/${wallet().id}/assets/${usdc()}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

describe('a change answered by replica a binds a withdrawal replica b is still checking', () => {
  for (const op of ['withdraw', 'sign'] as const) {
    const path = () => (op === 'withdraw' ? `/v1/wallets/${wallet().id}/withdraw` : `/v1/wallets/${wallet().id}/withdraw/sign`);

    it(`${op}: the wallet deactivated meanwhile is 422 WALLET_INACTIVE, nothing written`, async () => {
      const reference = `deactivated-${op}`;
      try {
        const res = await raced(path(), { assetId: usdc(), address: fresh(), amount: '1', reference }, () => setActive(false));
        expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(422);
        expect(res.body.error).toBe('WALLET_INACTIVE');
        expect(await written(reference)).toBe(0);
      } finally {
        await setActive(true);
      }
    });

    it(`${op}: the asset disabled meanwhile is 422 ASSET_NOT_ENABLED, nothing written`, async () => {
      const reference = `disabled-${op}`;
      try {
        const res = await raced(path(), { assetId: usdc(), address: fresh(), amount: '1', reference }, () => setUsdc(false));
        expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(422);
        expect(res.body.error).toBe('ASSET_NOT_ENABLED');
        expect(await written(reference)).toBe(0);
      } finally {
        await setUsdc(true);
      }
    });
  }

  it('sign: a whitelist entry removed meanwhile is 422 NOT_WHITELISTED, nothing signed or written', async () => {
    const kept = fresh();
    const removed = fresh();
    const keptId = await whitelist(kept);
    const removedId = await whitelist(removed);
    try {
      const reference = 'unwhitelisted-sign';
      const res = await raced(
        `/v1/wallets/${wallet().id}/withdraw/sign`,
        { assetId: usdc(), address: removed, amount: '1', reference },
        async () => {
          const del = await h.api('DELETE', `/v1/wallets/${wallet().id}/beneficiaries/${removedId}`);
          expect(del.status, JSON.stringify(del.body)).toBe(200);
          // The sender's nonce, read after the whitelist was checked and before signing.
        },
        (method) => method === 'eth_getTransactionCount',
      );
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(422);
      expect(res.body.error).toBe('NOT_WHITELISTED');
      expect(await written(reference)).toBe(0);
    } finally {
      await h.api('DELETE', `/v1/wallets/${wallet().id}/beneficiaries/${keptId}`);
    }
  });
});

/** Rows a client's move would have written: SWAP and contract Transactions of the wallet, swap rows. */
async function moves() {
  const { rows } = await sql<{ t: number; s: number }>`
    SELECT (SELECT count(*)::int FROM transactions
             WHERE wallet_id = ${wallet().id} AND type IN ('SWAP', 'CUSTOM_SMART_CONTRACT', 'SIGNED')) AS t,
           (SELECT count(*)::int FROM swaps WHERE wallet_id = ${wallet().id}) AS s`.execute(h.database.db);
  return rows[0]!;
}

const usdt = () => h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.symbol === 'USDT')!.id;
const usdcAddress = () => h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.symbol === 'USDC')!.address!;
const transfer = (to: string) => ({
  calls: [
    {
      address: usdcAddress(),
      method: 'transfer',
      parameters: [to, '1000000'],
      abi: [
        {
          type: 'function',
          name: 'transfer',
          stateMutability: 'nonpayable',
          inputs: [
            { name: 'to', type: 'address' },
            { name: 'amount', type: 'uint256' },
          ],
          outputs: [{ name: '', type: 'bool' }],
        },
      ],
    },
  ],
});

describe("a change answered by replica a binds a client's move replica b is still checking (swaps, contract writes)", () => {
  it('swap: the wallet deactivated meanwhile is 422 WALLET_INACTIVE, no SWAP written', async () => {
    const before = await moves();
    try {
      const res = await raced(`/v1/wallets/${wallet().id}/swaps/execute`, { fromAssetId: usdc(), toAssetId: usdt(), amount: '1' }, () =>
        setActive(false),
      );
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(422);
      expect(res.body.error).toBe('WALLET_INACTIVE');
      expect(await moves()).toEqual(before);
    } finally {
      await setActive(true);
    }
  });

  it('swap: the input asset disabled meanwhile is 422 ASSET_NOT_ENABLED, no SWAP written', async () => {
    const before = await moves();
    try {
      const res = await raced(`/v1/wallets/${wallet().id}/swaps/execute`, { fromAssetId: usdc(), toAssetId: usdt(), amount: '1' }, () =>
        setUsdc(false),
      );
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(422);
      expect(res.body.error).toBe('ASSET_NOT_ENABLED');
      expect(res.body.details?.[0]?.field).toBe('fromAssetId');
      expect(await moves()).toEqual(before);
    } finally {
      await setUsdc(true);
    }
  });

  for (const op of ['write', 'write/sign'] as const) {
    it(`contract ${op}: the wallet deactivated meanwhile is 422 WALLET_INACTIVE, nothing written or signed`, async () => {
      const before = await moves();
      try {
        const res = await raced(`/v1/wallets/${wallet().id}/contracts/${op}`, transfer(fresh()), () => setActive(false));
        expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(422);
        expect(res.body.error).toBe('WALLET_INACTIVE');
        expect(await moves()).toEqual(before);
      } finally {
        await setActive(true);
      }
    });
  }

  // Already refused before the standing was read under its lock (the whitelist was read in the
  // accepting transaction); kept so that moving that read under the lock loses nothing.
  it('contract write: a whitelist entry removed meanwhile is 422 NOT_WHITELISTED, nothing written', async () => {
    const kept = fresh();
    const removed = fresh();
    const keptId = await whitelist(kept);
    const removedId = await whitelist(removed);
    const before = await moves();
    try {
      const res = await raced(`/v1/wallets/${wallet().id}/contracts/write`, transfer(removed), async () => {
        const del = await h.api('DELETE', `/v1/wallets/${wallet().id}/beneficiaries/${removedId}`);
        expect(del.status, JSON.stringify(del.body)).toBe(200);
      });
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(422);
      expect(res.body.error).toBe('NOT_WHITELISTED');
      expect(await moves()).toEqual(before);
    } finally {
      await h.api('DELETE', `/v1/wallets/${wallet().id}/beneficiaries/${keptId}`);
    }
  });

  it('a move accepted after the change is undone goes through (the lock is released at COMMIT)', async () => {
    const res = await onB('POST', `/v1/wallets/${wallet().id}/contracts/write`, transfer(fresh()));
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    expect(res.body.data).toMatchObject({ type: 'CUSTOM_SMART_CONTRACT', status: 'PENDING' });
  });
});

/** An EIP-2612 permit of the wallet's USDC to `spender`, as replica b is asked to sign it. */
const permitOf = (spender: string) => permit(usdcAddress(), h.devnet.chains[0]!.config.chainId, wallet().address, spender, '1000000');

describe('a change answered by replica a binds a typed-data signature replica b is still checking', () => {
  // The spender's screening (AML's on-chain reads) is b's chain call: the change lands there.
  it('a permit: the wallet deactivated meanwhile is 422 WALLET_INACTIVE, no signature handed out or recorded', async () => {
    const before = await moves();
    try {
      const res = await raced(`/v1/wallets/${wallet().id}/signing/typed-data`, permitOf(fresh()), () => setActive(false));
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(422);
      expect(res.body.error).toBe('WALLET_INACTIVE');
      expect(await moves()).toEqual(before);
    } finally {
      await setActive(true);
    }
  });

  it('a permit: its spender removed from the whitelist meanwhile is 422 NOT_WHITELISTED, nothing recorded', async () => {
    const kept = fresh();
    const removed = fresh();
    const keptId = await whitelist(kept);
    const removedId = await whitelist(removed);
    const before = await moves();
    try {
      const res = await raced(`/v1/wallets/${wallet().id}/signing/typed-data`, permitOf(removed), async () => {
        const del = await h.api('DELETE', `/v1/wallets/${wallet().id}/beneficiaries/${removedId}`);
        expect(del.status, JSON.stringify(del.body)).toBe(200);
      });
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(422);
      expect(res.body.error).toBe('NOT_WHITELISTED');
      expect(res.body.details).toEqual([{ field: 'message.spender', message: 'not a whitelisted beneficiary' }]);
      expect(await moves()).toEqual(before);
    } finally {
      await h.api('DELETE', `/v1/wallets/${wallet().id}/beneficiaries/${keptId}`);
    }
  });

  it('a permit signed after the change is undone goes through, recorded as SIGNED', async () => {
    const res = await onB('POST', `/v1/wallets/${wallet().id}/signing/typed-data`, permitOf(fresh()));
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    expect(res.body.data).toMatchObject({ type: 'SIGNED', status: 'SUCCESS' });
  });
});
