/**
 * AML screening on Tron, through HTTP against the real service and the java-tron stand-in
 * (docs/aml.md): a chains-file Tron chain whose USDT keeps Tether's blacklist and with the
 * stand-in's sanctions oracle; recipients on either refused with nothing signed; the OFAC
 * list (sample SDN file) imported, replaced while running, a removed address paid again; a
 * deposit from a listed sender credited, FLAGGED, not swept until released, then swept; an
 * HTTP provider that times out blocking payouts and showing in /readyz.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFunctionData, parseAbi } from 'viem';
import { TronWeb } from 'tronweb';
import { tronEvmHex } from '../../src/chains/tron/codec.js';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import type { TronStandIn } from '../../src/devnet/tron/index.js';
import { startForTest, tokenBalance, type Wallet } from '../../src/devnet/tron/testkit.js';
import { httpProvider, importList, parseListFile } from '../../src/modules/aml/service.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startProviderDouble, type ProviderDouble } from '../support/aml-provider.js';
import { createTronWallet, tronChain, type TronWallet } from '../chains/tron/world.js';
import { deposit, newChild, swept, type SweepWorld } from '../chains/tron/sweep-world.js';
import { LISTED, lookup, lookupUntil, REMOVED, SDN, SDN_NEXT, seedOf, written } from './support.js';

const SLUG = 'tron-aml';
const LISTS = parseAbi(['function addBlackList(address)', 'function addToSanctionsList(address[])']);
let s: TronStandIn;
let h: Harness;
let double: ProviderDouble;
let wallet: TronWallet;

beforeAll(async () => {
  s = await startForTest({ blockTimeMs: 100 });
  double = await startProviderDouble();
  const chain = tronChain(s, SLUG, 990_501, {
    // As an operator's chains file names them: whose list the USDT keeps, and the oracle.
    assets: [{ symbol: 'USDT', address: s.tokens[0]!.address, decimals: 6, blacklist: 'tether' }],
    sanctionsOracle: s.sanctionsOracle!.address,
  });
  h = await startHarness({
    specs: [DEVNET_CHAINS[0]!],
    worker: true,
    extraChains: [chain],
    services: {
      outbound: { firstTrackDelayMs: 100, maxTrackDelayMs: 400 },
      amlProviders: [httpProvider({ kind: 'chainalysis', url: double.url, apiKey: double.apiKey })],
    },
    aml: { timeoutMs: 3_000, cacheTtlMs: 0, retryMs: 0, http: null },
  });
  wallet = await createTronWallet(h, s, SLUG, { trx: 20_000_000_000, usdt: 1_000_000_000n });
  await s.control.produceBlocks(1);
}, 180_000);

afterAll(async () => {
  await h?.stop();
  await s?.stop();
  await double?.stop();
});

const pay = (to: string) =>
  h.api('POST', `/v1/wallets/${wallet.id}/withdraw`, { key: wallet.apiKey, body: { assetId: wallet.usdtId, amount: '1', address: to } });

/** A call signed by the stand-in's faucet (the tokens' issuer and the oracle's owner), mined. */
async function asIssuer(contract: string, functionName: 'addBlackList' | 'addToSanctionsList', arg: string): Promise<void> {
  const evm = tronEvmHex(arg)!;
  const data = encodeFunctionData({ abi: LISTS, functionName, args: [functionName === 'addBlackList' ? evm : [evm]] as never });
  await s.control.faucetCall(contract, data);
  await s.control.produceBlocks(1);
}

const randomTron = () => TronWeb.address.fromPrivateKey(Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')) as string;

describe('AML screening on Tron', () => {
  it("refuses a recipient on Tether's blacklist (read on the TRC-20) and one the sanctions oracle lists, nothing signed", async () => {
    expect((await lookup(h, wallet.apiKey, wallet.id, randomTron())).provider.split(', ').sort()).toEqual([
      'chainalysis',
      'sanctions-oracle',
      'tether',
    ]);
    const blacklisted = randomTron();
    const sanctioned = randomTron();
    await asIssuer(s.tokens[0]!.address, 'addBlackList', blacklisted);
    await asIssuer(s.sanctionsOracle!.address, 'addToSanctionsList', sanctioned);
    const before = await written(h);
    const one = await pay(blacklisted);
    expect(one.status, JSON.stringify(one.body)).toBe(422);
    expect(one.body).toMatchObject({ error: 'AML_BLOCKED', details: [{ field: 'address', message: 'on tether' }] });
    const two = await pay(sanctioned);
    expect(two.status).toBe(422);
    expect(two.body.message).toContain('the sanctions oracle');
    const after = await written(h);
    expect({ ...after, blocked: 0 }).toEqual({ ...before, blocked: 0 });
    expect(after.blocked - before.blocked).toBe(2);
    expect(await tokenBalance(s, s.tokens[0]!.address, blacklisted)).toBe(0n);
    expect((await pay(randomTron())).status).toBe(200);
  });

  it('screens against the OFAC list imported from an SDN file, replaced while running: a removed address is paid again', async () => {
    const imported = await importList(h.database.db, h.services.changes, 'ofac', await parseListFile(SDN));
    expect(imported.entries).toBe(8);
    const listed = await lookupUntil(h, wallet.apiKey, wallet.id, REMOVED.tron, true);
    expect(listed.lists).toEqual(['ofac']);
    expect((await pay(REMOVED.tron)).body.error).toBe('AML_BLOCKED');
    await importList(h.database.db, h.services.changes, 'ofac', await parseListFile(SDN_NEXT));
    await lookupUntil(h, wallet.apiKey, wallet.id, REMOVED.tron, false);
    const paid = await pay(REMOVED.tron);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.data.amlScreening.status).toBe('CLEAR');
  });

  it('credits a deposit from a listed sender, FLAGGED and not swept until released, then swept', async () => {
    const key = Buffer.from(seedOf('listed-sender')).toString('hex');
    const sender: Wallet = { address: LISTED.tron, hex: TronWeb.address.toHex(LISTED.tron), privateKey: key };
    expect(TronWeb.address.fromPrivateKey(key)).toBe(LISTED.tron);
    await s.control.fund(sender.address, { trx: 500_000_000, tokens: { USDT: 10_000_000n } });
    await s.control.produceBlocks(1);
    const child = await newChild(world(sender), wallet);
    const id = await deposit(world(sender), wallet, child.address, 3_000_000n);
    const get = async () => (await h.api('GET', `/v1/wallets/${wallet.id}/transactions/${id}`, { key: wallet.apiKey })).body.data;
    expect((await get()).amlScreening).toMatchObject({ status: 'FLAGGED', lists: ['ofac'], held: true });
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await tokenBalance(s, s.tokens[0]!.address, child.address)).toBe(3_000_000n);
    expect((await get()).assetSwept).toBe(false);
    const released = await h.api('POST', `/v1/wallets/${wallet.id}/transactions/${id}/aml/release`, { key: h.businessKey });
    expect(released.status, JSON.stringify(released.body)).toBe(200);
    const done = await swept(world(sender), wallet, id);
    expect(done.assetSwept).toBe(true);
    expect(await tokenBalance(s, s.tokens[0]!.address, child.address)).toBe(0n);
  });

  it('blocks payouts while a provider times out and reports it in /readyz', async () => {
    double.mode = 'hang';
    try {
      const refused = await pay(randomTron());
      expect(refused.status).toBe(503);
      expect(refused.body.error).toBe('AML_UNAVAILABLE');
      const ready = await fetch(`${h.baseUrl}/readyz`).then((r) => r.json() as Promise<Record<string, any>>);
      const provider = ready.aml.providers.find(
        (p: { provider: string; chain: string }) => p.provider === 'chainalysis' && p.chain.startsWith(SLUG),
      );
      expect(provider).toMatchObject({ status: 'failing' });
      expect(provider.lastError).toContain('timed out');
    } finally {
      double.mode = 'ok';
    }
    expect((await pay(randomTron())).status).toBe(200);
  });
});

/** The sweep world's helpers, with the listed sender as the payer. */
function world(payer: Wallet): SweepWorld {
  return { s, h, usdt: s.tokens[0]!.address, payer, lending: wallet, burning: wallet, chains: [], stop: async () => undefined };
}
