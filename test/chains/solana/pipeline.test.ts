/**
 * A Solana chain in the real service (chains-file `family: 'solana'`, the validator stand-in
 * over litesvm as its node): a wallet created through HTTP, a child address issued, and an
 * SPL transfer from the child sent through the outbound pipeline with the master as fee
 * payer: the pipeline records the fee payer, lends both keys (Signer.withKeys), the family
 * signs, the row is broadcast, found landed and settled. The child holds no SOL throughout;
 * the master pays the fee and the recipient's new token account.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import { createSolanaRpc, type Address } from '@solana/kit';
import { resolveChain } from '../../../src/configuration.js';
import { DEVNET_CHAINS } from '../../../src/devnet/devnet.js';
import { startSolanaStandIn, type SolanaStandIn } from '../../../src/devnet/solana/index.js';
import { SolanaAdapter } from '../../../src/chains/solana/adapter.js';
import { startHarness, type Harness } from '../../support/harness.js';
import { eventually } from '../../support/fixtures.js';

const SLUG = 'solana-pipeline';
let sol: SolanaStandIn;
let h: Harness;
let adapter: SolanaAdapter;
let usdc: string;

beforeAll(async () => {
  sol = await startSolanaStandIn({ port: 0, slotMs: 50, tokens: [{ symbol: 'USDC', decimals: 6 }] });
  usdc = sol.tokens[0]!.mint;
  const chain = resolveChain(
    {
      blockchain: SLUG,
      family: 'solana',
      network: 'testnet',
      rpcUrl: sol.url,
      chainId: 990_301,
      name: 'Solana',
      symbol: 'SOL',
      confirmations: 1,
      assets: [{ symbol: 'USDC', address: usdc, decimals: 6 }],
    },
    'test',
  );
  h = await startHarness({
    specs: [DEVNET_CHAINS[0]!],
    worker: true,
    extraChains: [chain],
    services: { outbound: { firstTrackDelayMs: 100, maxTrackDelayMs: 400 } },
  });
  adapter = h.services.catalogue.findChain(SLUG, 'testnet')!.adapter as unknown as SolanaAdapter;
});
afterAll(async () => {
  await h?.stop();
  await sol?.stop();
});

describe('the outbound pipeline on Solana', () => {
  it("sends a child's USDC with the master as fee payer: both keys sign, one transaction lands, the child needs no SOL", async () => {
    const created = await h.api('POST', '/v1/wallets', { key: h.businessKey, body: { blockchain: SLUG, network: 'testnet', name: 'Sol' } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const wallet = created.body.data as { id: string; address: string; apiKey: string };
    const issued = await h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body: {} });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const child = issued.body.data as { address: string; derivationPath: string };
    const index = Number(/^m\/44'\/501'\/(\d+)'\/0'$/.exec(child.derivationPath)![1]);
    await sol.control.fund(wallet.address, 2_000_000_000n);
    await sol.control.mintTo(usdc, child.address, 7_000_000n);
    const to = base58.encode(ed25519.getPublicKey(ed25519.utils.randomPrivateKey()));
    await eventually(
      async () => (await adapter.getBalances([{ owner: child.address, token: usdc }]))[0],
      (v) => v === 7_000_000n,
    );
    const [masterBefore] = await adapter.getBalances([{ owner: wallet.address, token: null }]);

    const chainId = h.services.catalogue.findChain(SLUG, 'testnet')!.id;
    const row = await h.database.db.transaction().execute((tx) =>
      h.services.outbound.enqueue(tx, {
        chainId,
        walletId: wallet.id,
        fromIndex: index,
        intent: { kind: 'token', token: usdc, to, amount: 2_500_000n },
        feePayer: wallet.address,
        purpose: 'test',
      }),
    );
    const settled = (await eventually(
      () => h.services.outbound.get(row.id),
      (r) => r?.stage === 'mined' || r?.stage === 'failed',
      30_000,
    ))!;
    expect(settled.stage, settled.error ?? '').toBe('mined');
    expect(settled.feePayer).toBe(wallet.address);
    expect(settled.nonce).toBeNull();
    expect(settled.receipt?.status).toBe('success');
    const [childUsdc, toUsdc, childSol, masterAfter] = await adapter.getBalances([
      { owner: child.address, token: usdc },
      { owner: to, token: usdc },
      { owner: child.address, token: null },
      { owner: wallet.address, token: null },
    ]);
    expect(childUsdc).toBe(4_500_000n);
    expect(toUsdc).toBe(2_500_000n);
    expect(childSol).toBe(0n);
    const tx = await createSolanaRpc(sol.url)
      .getTransaction(settled.hash! as never, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 })
      .send();
    expect(tx?.transaction.message.accountKeys.slice(0, 2)).toEqual([wallet.address, child.address] as Address[]);
    // The fee (2 signatures + priority) and the new token account's rent, both from the master,
    // recorded together as what the transaction cost.
    expect(masterBefore! - masterAfter!).toBe(settled.receipt!.fee);
    expect(settled.receipt!.fee).toBe(tx!.meta!.fee + 2_039_280n);
  });

  it("refuses a fee payer other than the wallet's master, and writes nothing", async () => {
    const created = await h.api('POST', '/v1/wallets', {
      key: h.businessKey,
      body: { blockchain: SLUG, network: 'testnet', name: 'Sol2' },
    });
    const wallet = created.body.data as { id: string; address: string };
    const stranger = base58.encode(ed25519.getPublicKey(ed25519.utils.randomPrivateKey()));
    const chainId = h.services.catalogue.findChain(SLUG, 'testnet')!.id;
    const before = await h.database.db
      .selectFrom('outbound_txs')
      .select((e) => e.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    await expect(
      h.database.db.transaction().execute((tx) =>
        h.services.outbound.enqueue(tx, {
          chainId,
          walletId: wallet.id,
          fromIndex: 0,
          intent: { kind: 'native', to: stranger, amount: 1_000_000_000n },
          feePayer: stranger,
          purpose: 'test',
        }),
      ),
    ).rejects.toThrow(/not the wallet's master/);
    const after = await h.database.db
      .selectFrom('outbound_txs')
      .select((e) => e.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });
});
