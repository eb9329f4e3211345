/**
 * AML screening on Solana, through HTTP against the real service and the validator stand-in
 * (docs/aml.md): an issuer's blacklist is a frozen token account (the stand-in's mints have a
 * freeze authority, as Circle's and Tether's do); a recipient frozen by USDC's issuer and one
 * a sanctions API lists (the HTTP provider's test double: Solana has no sanctions oracle)
 * refused with nothing signed; the OFAC list imported, replaced while running, a removed
 * address paid again; a deposit from a listed sender credited, FLAGGED, not swept until
 * released, then swept; a provider that times out blocking payouts and showing in /readyz.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyPairSignerFromPrivateKeyBytes, createSolanaRpc, generateKeyPairSigner, type Address } from '@solana/kit';
import { resolveChain } from '../../src/configuration.js';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { startSolanaStandIn, type SolanaStandIn } from '../../src/devnet/solana/index.js';
import { ata, send } from '../../src/devnet/solana/test-support.js';
import { getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { httpProvider, importList, parseListFile } from '../../src/modules/aml/service.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startProviderDouble, type ProviderDouble } from '../support/aml-provider.js';
import { confirmed, newChild, newWallet, sendUsdc, swept, usdcOf, type SolWallet, type SweepWorld } from '../chains/solana/sweep-world.js';
import { LISTED, lookup, lookupUntil, REMOVED, SDN, SDN_NEXT, seedOf, written } from './support.js';

const SLUG = 'sol-aml';
let sol: SolanaStandIn;
let h: Harness;
let double: ProviderDouble;
let w: SweepWorld;
let wallet: SolWallet;
let usdcId: string;

beforeAll(async () => {
  sol = await startSolanaStandIn({
    port: 0,
    slotMs: 50,
    tokens: [
      { symbol: 'USDC', decimals: 6 },
      { symbol: 'USDT', decimals: 6 },
    ],
  });
  double = await startProviderDouble();
  const usdc = sol.tokens[0]!.mint as Address;
  const chain = resolveChain(
    {
      blockchain: SLUG,
      family: 'solana',
      network: 'testnet',
      rpcUrl: sol.url,
      chainId: 990_601,
      name: 'Solana',
      symbol: 'SOL',
      confirmations: 1,
      // As an operator's chains file names them: whose freeze authority each mint is.
      assets: [
        { symbol: 'USDC', address: usdc, decimals: 6, blacklist: 'circle' },
        { symbol: 'USDT', address: sol.tokens[1]!.mint, decimals: 6, blacklist: 'tether' },
      ],
    },
    'test',
  );
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
  const rpc = createSolanaRpc(sol.url);
  const payer = await generateKeyPairSigner();
  w = { sol, h, rpc, usdc, payer, chains: [], stop: async () => undefined };
  await h.services.deposits.indexer(h.services.catalogue.findChain(SLUG, 'testnet')!).step();
  wallet = await newWallet(w, SLUG, 5_000_000_000n);
  await sol.control.mintTo(usdc, wallet.address, 1_000_000_000n);
  usdcId = h.services.catalogue.findChain(SLUG, 'testnet')!.assets.find((a) => a.symbol === 'USDC')!.id;
}, 180_000);

afterAll(async () => {
  await h?.stop();
  await sol?.stop();
  await double?.stop();
});

const pay = (to: string) =>
  h.api('POST', `/v1/wallets/${wallet.id}/withdraw`, { key: wallet.apiKey, body: { assetId: usdcId, amount: '1', address: to } });
const randomSol = async () => (await generateKeyPairSigner()).address as string;

describe('AML screening on Solana', () => {
  it('refuses a recipient whose USDC account the issuer froze, and one a sanctions API lists, nothing signed', async () => {
    expect((await lookup(h, wallet.apiKey, wallet.id, await randomSol())).provider.split(', ').sort()).toEqual([
      'chainalysis',
      'circle',
      'tether',
    ]);
    const frozen = await randomSol();
    await sol.control.setFrozen('USDC', frozen, true);
    await sol.control.produceSlots(2);
    const sanctioned = await randomSol();
    double.listed.add(sanctioned);
    const before = await written(h);
    const one = await pay(frozen);
    expect(one.status, JSON.stringify(one.body)).toBe(422);
    expect(one.body).toMatchObject({ error: 'AML_BLOCKED', details: [{ field: 'address', message: 'on circle' }] });
    const two = await pay(sanctioned);
    expect(two.status).toBe(422);
    expect(two.body.details[0].message).toBe('on chainalysis');
    const after = await written(h);
    expect({ ...after, blocked: 0 }).toEqual({ ...before, blocked: 0 });
    expect(after.blocked - before.blocked).toBe(2);
    expect(await usdcOf(w, frozen)).toBe(0n);
    // Thawed: paid.
    await sol.control.setFrozen('USDC', frozen, false);
    await sol.control.produceSlots(2);
    expect((await pay(frozen)).status).toBe(200);
  });

  it('screens against the OFAC list imported from an SDN file, replaced while running: a removed address is paid again', async () => {
    await importList(h.database.db, h.services.changes, 'ofac', await parseListFile(SDN));
    expect((await lookupUntil(h, wallet.apiKey, wallet.id, REMOVED.solana, true)).lists).toEqual(['ofac']);
    expect((await pay(REMOVED.solana)).body.error).toBe('AML_BLOCKED');
    await importList(h.database.db, h.services.changes, 'ofac', await parseListFile(SDN_NEXT));
    await lookupUntil(h, wallet.apiKey, wallet.id, REMOVED.solana, false);
    const paid = await pay(REMOVED.solana);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.data.amlScreening.status).toBe('CLEAR');
  });

  it('credits a deposit from a listed sender, FLAGGED and not swept until released, then swept', async () => {
    const sender = await createKeyPairSignerFromPrivateKeyBytes(seedOf('listed-sender'));
    expect(sender.address).toBe(LISTED.solana);
    await sol.control.fund(sender.address, 10_000_000_000n);
    await sol.control.mintTo('USDC', sender.address, 50_000_000n);
    await sol.control.produceSlots(2);
    const child = await newChild(w, wallet);
    const hash = await sendUsdc({ ...w, payer: sender }, child.address, 4_000_000n);
    const id = await confirmed(w, SLUG, hash);
    const get = async () => (await h.api('GET', `/v1/wallets/${wallet.id}/transactions/${id}`, { key: wallet.apiKey })).body.data;
    expect((await get()).amlScreening).toMatchObject({ status: 'FLAGGED', lists: ['ofac'], held: true });
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await usdcOf(w, child.address)).toBe(4_000_000n);
    expect((await get()).assetSwept).toBe(false);
    const released = await h.api('POST', `/v1/wallets/${wallet.id}/transactions/${id}/aml/release`, { key: h.businessKey });
    expect(released.status, JSON.stringify(released.body)).toBe(200);
    expect((await swept(w, wallet, id)).assetSwept).toBe(true);
    expect(await usdcOf(w, child.address)).toBe(0n);
  });

  it('a listed sender paying a deposit beside a bigger clean transfer in one transaction: still FLAGGED and held', async () => {
    // The sanctioned sender pays the child; in the same transaction a clean account the same
    // party controls moves more of the same mint elsewhere (and pays the fee), so it is the
    // account "that lost the most".
    const sanctioned = await generateKeyPairSigner();
    const decoy = await generateKeyPairSigner();
    const elsewhere = await randomSol();
    double.listed.add(sanctioned.address);
    for (const s of [sanctioned, decoy]) {
      await sol.control.fund(s.address, 1_000_000_000n);
      await sol.control.mintTo('USDC', s.address, 50_000_000n);
    }
    await sol.control.produceSlots(2);
    const child = await newChild(w, wallet);
    const transfer = async (from: typeof decoy, to: string, amount: bigint) => [
      getCreateAssociatedTokenIdempotentInstruction({
        payer: decoy,
        ata: await ata(to as Address, w.usdc),
        owner: to as Address,
        mint: w.usdc,
        tokenProgram: TOKEN_PROGRAM_ADDRESS,
      }),
      getTransferCheckedInstruction({
        source: await ata(from.address, w.usdc),
        mint: w.usdc,
        destination: await ata(to as Address, w.usdc),
        authority: from,
        amount,
        decimals: 6,
      }),
    ];
    const hash = await send(w.rpc, decoy, [
      ...(await transfer(sanctioned, child.address, 4_000_000n)),
      ...(await transfer(decoy, elsewhere, 9_000_000n)),
    ]);
    const id = await confirmed(w, SLUG, hash);
    const get = async () => (await h.api('GET', `/v1/wallets/${wallet.id}/transactions/${id}`, { key: wallet.apiKey })).body.data;
    const screening = (await get()).amlScreening;
    expect(screening).toMatchObject({ status: 'FLAGGED', lists: ['chainalysis'], held: true, address: sanctioned.address });
    expect([...screening.senders].sort()).toEqual([sanctioned.address, decoy.address].sort());
    await new Promise((r) => setTimeout(r, 2_000));
    expect((await get()).assetSwept).toBe(false);
    expect(await usdcOf(w, child.address)).toBe(4_000_000n);
  });

  it('blocks payouts while a provider times out and reports it in /readyz', async () => {
    double.mode = 'hang';
    try {
      const refused = await pay(await randomSol());
      expect(refused.status).toBe(503);
      expect(refused.body.error).toBe('AML_UNAVAILABLE');
      const ready = await fetch(`${h.baseUrl}/readyz`).then((r) => r.json() as Promise<Record<string, any>>);
      const provider = ready.aml.providers.find(
        (p: { provider: string; chain: string }) => p.provider === 'chainalysis' && p.chain.startsWith(SLUG),
      );
      expect(provider).toMatchObject({ status: 'failing' });
    } finally {
      double.mode = 'ok';
    }
    expect((await pay(await randomSol())).status).toBe(200);
  });
});
