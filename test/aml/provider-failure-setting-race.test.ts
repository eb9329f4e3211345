/**
 * A wallet switched to fail closed (`configurations.aml.onProviderFailure: BLOCK`) while a
 * withdrawal is being screened by a provider that then fails. The request read the wallet
 * when it began (ALLOW then), and the screening of a provider that hangs is the slow part of
 * it (up to the provider timeout): the switch is answered in the meantime, by this API
 * process or another. A payout accepted after that answer, unscreened, is what the switch
 * was made to stop; the accepting transaction must judge the setting as it is then, as it
 * judges the wallet's active flag, its assets and its whitelist (withdrawals/standing.ts).
 * So must every other move a client asks for that pays someone outside: a contract write
 * (broadcast or sign-only), a token authorisation signed off chain, a swap to a recipient, a
 * recovery of funds (their transactions read it with the standing: MoveStanding.screenings).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import type { ScreeningProvider } from '../../src/modules/aml/providers.js';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';
import { permit } from '../signing/eip712-example.js';
import { erc20Abi } from 'viem';

const SLUG = 'devnet-eth';
let h: Harness;
let wallet: { id: string; apiKey: string; address: string };
let usdc: string;
const random = () => privateKeyToAccount(`0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')}` as Hex).address;

/** A provider that answers "not listed", or, while `held` is set, waits for it and then fails. */
const gate: { held: Promise<void> | null; asked: number } = { held: null, asked: 0 };
const provider: ScreeningProvider = {
  name: 'gated',
  covers: () => true,
  async screen(_chain, addresses) {
    gate.asked++;
    const held = gate.held;
    if (!held) return addresses.map(() => false);
    await held;
    throw new Error('provider down');
  },
};

beforeAll(async () => {
  h = await startHarness({
    specs: [DEVNET_CHAINS[0]!],
    services: { amlProviders: [provider] },
    aml: { timeoutMs: 30_000, cacheTtlMs: 0, retryMs: 0, http: null },
  });
  wallet = h.wallets[SLUG]!;
  usdc = h.services.catalogue.findChain(SLUG, 'testnet')!.assets.find((a) => a.symbol === 'USDC')!.id;
  await chainOf(h, SLUG).sendToken('USDC', wallet.address, '100');
}, 120_000);

afterAll(async () => {
  await h?.stop();
});

const setting = (key: string, onProviderFailure: 'ALLOW' | 'BLOCK') =>
  h.api('PATCH', `/v1/wallets/${wallet.id}`, { key, body: { configurations: { aml: { onProviderFailure } } } });

/** Each request a client can make that pays an outside address, screened before its transaction. */
const requests: Record<string, () => Promise<{ status: number; body: any }>> = {
  withdraw: () =>
    h.api('POST', `/v1/wallets/${wallet.id}/withdraw`, { key: wallet.apiKey, body: { assetId: usdc, amount: '1', address: random() } }),
  'withdraw/sign': () =>
    h.api('POST', `/v1/wallets/${wallet.id}/withdraw/sign`, {
      key: wallet.apiKey,
      body: { assetId: usdc, amount: '1', address: random() },
    }),
  'contracts/write': () =>
    h.api('POST', `/v1/wallets/${wallet.id}/contracts/write`, {
      key: wallet.apiKey,
      body: { address: usdcAddress(), method: 'transfer', parameters: [random(), '1000000'], abi: erc20Abi },
    }),
  'contracts/write/sign': () =>
    h.api('POST', `/v1/wallets/${wallet.id}/contracts/write/sign`, {
      key: wallet.apiKey,
      body: { address: usdcAddress(), method: 'transfer', parameters: [random(), '1000000'], abi: erc20Abi },
    }),
  'signing/typed-data': () =>
    h.api('POST', `/v1/wallets/${wallet.id}/signing/typed-data`, {
      key: wallet.apiKey,
      body: permit(usdcAddress(), chainOf(h, SLUG).config.chainId, wallet.address, random(), '1000000'),
    }),
  // One swap or recovery in flight per address: each from a child of its own.
  'swaps/execute': async () => {
    const c = await child();
    await chainOf(h, SLUG).sendToken('USDC', c.address, '5');
    return h.api('POST', `/v1/wallets/${wallet.id}/addresses/${c.id}/swaps/execute`, {
      key: wallet.apiKey,
      body: { fromAssetId: usdc, toAssetId: assetId('USDT'), amount: '1', recipientAddress: random() },
    });
  },
  salvage: async () => {
    const c = await child();
    await chainOf(h, SLUG).rpc('anvil_setBalance', [c.address, '0xDE0B6B3A7640000']); // 1 ETH
    return h.api('POST', `/v1/wallets/${wallet.id}/salvage`, {
      key: wallet.apiKey,
      body: {
        senderAddress: c.address,
        recipientAddress: random(),
        amount: '0.001',
        blockchainId: h.services.catalogue.findChain(SLUG, 'testnet')!.row.blockchain_id,
      },
    });
  },
};
/** A child address of the wallet, never swept (its funds stay for the request). */
const child = async (): Promise<{ id: string; address: string }> => {
  const res = await h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body: { disableAutoSweep: true } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
};
const assetId = (symbol: string) => h.services.catalogue.findChain(SLUG, 'testnet')!.assets.find((a) => a.symbol === symbol)!.id;
const usdcAddress = () => h.services.catalogue.findChain(SLUG, 'testnet')!.assets.find((a) => a.symbol === 'USDC')!.address!;

describe('the fail-closed switch and a payout being screened', () => {
  for (const [path, request] of Object.entries(requests)) {
    it(`refuses a ${path} whose provider failed once the switch to BLOCK was answered`, async () => {
      expect((await setting(h.businessKey, 'ALLOW')).status).toBe(200);
      // Allowed unscreened while ALLOW stands: the refusal below is the switch's doing.
      gate.held = Promise.resolve();
      const allowed = await request();
      expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
      // Let through unscreened, and said so on its Transaction.
      expect(allowed.body.data.amlScreening, path).toMatchObject({ status: 'NOT_SCREENED', failed: ['gated'] });
      gate.held = null;
      let release!: () => void;
      gate.held = new Promise<void>((resolve) => (release = resolve));
      const asked = gate.asked;
      try {
        const pending = request();
        // The request is being screened (it read the wallet, ALLOW, before that).
        await eventually(
          async () => gate.asked,
          (n) => n > asked,
          10_000,
        );
        // The wallet's own key makes it stricter; answered before the screening ends.
        const strict = await setting(wallet.apiKey, 'BLOCK');
        expect(strict.status).toBe(200);
        expect(strict.body.data.configurations.aml.onProviderFailure).toBe('BLOCK');
        release();
        const res = await pending;
        expect(res.status, JSON.stringify(res.body)).toBe(503);
        expect(res.body.error).toBe('AML_UNAVAILABLE');
      } finally {
        gate.held = null;
        release?.();
      }
    });
  }
});
