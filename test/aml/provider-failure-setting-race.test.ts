/**
 * A wallet switched to fail closed (`configurations.aml.onProviderFailure: BLOCK`) while a
 * withdrawal is being screened by a provider that then fails. The request read the wallet
 * when it began (ALLOW then), and the screening of a provider that hangs is the slow part of
 * it (up to the provider timeout): the switch is answered in the meantime, by this API
 * process or another. A payout accepted after that answer, unscreened, is what the switch
 * was made to stop; the accepting transaction must judge the setting as it is then, as it
 * judges the wallet's active flag, its assets and its whitelist (withdrawals/standing.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import type { ScreeningProvider } from '../../src/modules/aml/providers.js';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';

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

describe('the fail-closed switch and a payout being screened', () => {
  for (const path of ['withdraw', 'withdraw/sign'] as const) {
    it(`refuses a ${path} whose provider failed once the switch to BLOCK was answered`, async () => {
      expect((await setting(h.businessKey, 'ALLOW')).status).toBe(200);
      let release!: () => void;
      gate.held = new Promise<void>((resolve) => (release = resolve));
      const asked = gate.asked;
      try {
        const pending = h.api('POST', `/v1/wallets/${wallet.id}/${path}`, {
          key: wallet.apiKey,
          body: { assetId: usdc, amount: '1', address: random() },
        });
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
