/**
 * The re-screen of an unscreened deposit (job aml_rescreen_deposits) reads the deposit, then
 * asks the providers, which may take seconds. A deposit still PENDING when it was read may be
 * confirmed meanwhile: its confirmation saw it held (NOT_SCREENED on a wallet that fails
 * closed), so its sweep left it. Found clear, the re-screen releases it and must then queue the
 * treasury work the confirmation could not do, judging by the status it finds under its lock,
 * not by the one read before the providers answered: otherwise the released deposit is never
 * swept nor settled.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletClient, encodeFunctionData, erc20Abi, http, parseUnits, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { devnetChain } from '../../src/devnet/chain.js';
import type { ScreeningProvider } from '../../src/modules/aml/service.js';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';

const SLUG = 'devnet-eth';
let h: Harness;
let c: TestChain;

/** A provider a test makes fail, or hold its answer until let go. */
const gate = {
  mode: 'ok' as 'ok' | 'fail' | 'wait',
  waiting: null as null | (() => void),
  asked: 0,
};
const gated: ScreeningProvider = {
  name: 'gated',
  covers: () => true,
  async screen(_chain, addresses) {
    gate.asked += 1;
    if (gate.mode === 'fail') throw new Error('provider down');
    if (gate.mode === 'wait') await new Promise<void>((resolve) => (gate.waiting = resolve));
    return addresses.map(() => false);
  },
};

beforeAll(async () => {
  h = await startHarness({
    specs: [DEVNET_CHAINS[0]!],
    worker: true,
    services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 }, amlProviders: [gated] },
    aml: { timeoutMs: 30_000, cacheTtlMs: 0, retryMs: 0, http: null },
  });
  c = chainOf(h, SLUG);
}, 120_000);

afterAll(async () => {
  gate.waiting?.();
  await h?.stop();
});

describe('AML re-screen racing the deposit confirmation', () => {
  it('a deposit confirmed while its re-screen waited on the providers is swept once found clear', async () => {
    const wallet = h.wallets[SLUG]!;
    const usdc = h.services.catalogue.findChain(SLUG, 'testnet')!.assets.find((a) => a.symbol === 'USDC')!;
    const sender = privateKeyToAccount(`0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')}` as Hex);
    await c.rpc('anvil_setBalance', [sender.address, '0x56BC75E2D63100000']);
    await c.sendToken('USDC', sender.address, '20');
    const child = (await h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body: {} })).body.data as {
      id: string;
      address: Address;
    };
    const indexer = h.services.deposits.indexer(h.services.catalogue.findChain(SLUG, 'testnet')!);
    const row = async (hash: string) => {
      const { rows } = await sql<{ id: string; status: string; aml_held: boolean }>`
        SELECT id, status, aml_held FROM transactions WHERE type = 'DEPOSIT' AND hash = ${hash}`.execute(h.database.db);
      return rows[0];
    };
    const payer = createWalletClient({
      chain: devnetChain(c.config.chainId, c.config.rpcUrl),
      transport: http(c.config.rpcUrl),
      account: sender,
    });

    // Recorded while the provider is down: NOT_SCREENED, held, one confirmation of two.
    gate.mode = 'fail';
    const hash = await payer.sendTransaction({
      to: usdc.address as Address,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [child.address, parseUnits('20', 6)] }),
    });
    await c.pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    const pending = await eventually(
      async () => {
        await indexer.step();
        return row(hash);
      },
      (r) => r !== undefined,
      30_000,
    );
    expect(pending).toMatchObject({ status: 'PENDING', aml_held: true });

    // The re-screen reads it PENDING, then waits on the provider...
    gate.mode = 'wait';
    const asked = gate.asked;
    const rescreen = h.services.aml.rescreenDeposits([pending!.id]);
    await eventually(
      async () => gate.asked,
      (n) => n > asked && gate.waiting !== null,
      10_000,
    );
    // ...while the deposit is confirmed (held: its sweep leaves it).
    await c.mine(3);
    await eventually(
      async () => {
        await indexer.step();
        return row(hash);
      },
      (r) => r?.status === 'SUCCESS',
      30_000,
    );
    await new Promise((r) => setTimeout(r, 1_500)); // the confirmation's sweep job runs and skips it
    expect(await c.balanceOf('USDC', child.address)).toBe(parseUnits('20', 6));

    // The provider answers: clear, released, and swept.
    gate.mode = 'ok';
    gate.waiting!();
    await rescreen;
    expect(await row(hash)).toMatchObject({ status: 'SUCCESS', aml_held: false });
    const swept = await eventually(
      async () => (await h.api('GET', `/v1/wallets/${wallet.id}/transactions/${pending!.id}`, { key: wallet.apiKey })).body.data,
      (t) => t.assetSwept === true,
      30_000,
    );
    expect(swept.amlScreening).toMatchObject({ status: 'CLEAR', held: false });
    expect(await c.balanceOf('USDC', child.address)).toBe(0n);
  });
});
