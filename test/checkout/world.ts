/**
 * One service with a chain of each family (the EVM devnet, the Tron and Solana stand-ins, on
 * demand blocks and slots), a wallet on each with its USD stablecoin enabled, a payer on each
 * holding that coin, and a payment link taking all three: what the checkout tests pay with.
 * Payments are real transfers to the session's address; `settle` mines past the chain's
 * confirmation rule and runs its indexer, as the indexer role would.
 */
import { expect } from 'vitest';
import { AccountRole, createSolanaRpc, type Address, type KeyPairSigner } from '@solana/kit';
import { getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { resolveChain } from '../../src/configuration.js';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { startSolanaStandIn, type SolanaStandIn } from '../../src/devnet/solana/index.js';
import { ata, fundedSigner, send, type Rpc } from '../../src/devnet/solana/test-support.js';
import type { TronStandIn } from '../../src/devnet/tron/index.js';
import { fundedWallet, sendToken, startForTest, type Wallet as TronPayer } from '../../src/devnet/tron/testkit.js';
import type { Clock } from '../../src/lib/clock.js';
import { parseAmount } from '../../src/lib/money.js';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf } from '../support/chain.js';
import { createTronWallet, tronChain } from '../chains/tron/world.js';

export type Family = 'evm' | 'tron' | 'solana';
export const FAMILIES: Family[] = ['evm', 'tron', 'solana'];

export interface FamilyPay {
  slug: string;
  walletId: string;
  symbol: string;
  /** The chain's name as the page shows it. */
  chainName: string;
  /** Sends `amount` (decimal) of the coin to `to`; `reference`: Solana Pay's key, carried by the transfer. */
  pay(to: string, amount: string, reference?: string | null): Promise<void>;
  /** Blocks (slots) until what was paid is seen (pending), and the indexer run. */
  see(): Promise<void>;
  /** Past the chain's confirmation rule, and the indexer run. */
  settle(): Promise<void>;
}

export interface CheckoutWorld {
  h: Harness;
  tron: TronStandIn;
  sol: SolanaStandIn;
  families: Record<Family, FamilyPay>;
  stop(): Promise<void>;
}

async function drain(h: Harness, slug: string) {
  const indexer = h.services.deposits.indexer(h.services.catalogue.findChain(slug, 'testnet')!);
  for (let i = 0; i < 200; i++) if ((await indexer.step()) === 'idle') return;
  throw new Error(`indexer of ${slug} did not reach the head`);
}

export async function startCheckoutWorld(clock: Clock): Promise<CheckoutWorld> {
  const [tron, sol] = await Promise.all([
    startForTest({ blockTimeMs: 0 }),
    startSolanaStandIn({ port: 0, slotMs: 0, tokens: [{ symbol: 'USDC', decimals: 6 }] }),
  ]);
  sol.control.produceSlots(1);
  const usdc = sol.tokens[0]!.mint as Address;
  const solanaChain = resolveChain(
    {
      blockchain: 'solana-pay',
      family: 'solana',
      network: 'testnet',
      rpcUrl: sol.url,
      chainId: 990_401,
      name: 'Solana Devnet (stand-in)',
      symbol: 'SOL',
      confirmations: 1,
      assets: [{ symbol: 'USDC', address: usdc, decimals: 6 }],
    },
    'test',
  );
  const tronConfig = tronChain(tron, 'tron-pay', 990_402, { name: 'Tron Devnet (stand-in)' });
  const h = await startHarness({ specs: [DEVNET_CHAINS[0]!], worker: true, clock, extraChains: [tronConfig, solanaChain] });

  const tw = await createTronWallet(h, tron, 'tron-pay', { trx: 100_000_000, usdt: 1_000_000n });
  const created = await h.api('POST', '/v1/wallets', {
    key: h.businessKey,
    body: { blockchain: 'solana-pay', network: 'testnet', name: 'Sol' },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const sw = created.body.data as { id: string; apiKey: string };
  const usdcId = h.services.catalogue.findChain('solana-pay', 'testnet')!.assets.find((a) => a.symbol === 'USDC')!.id;
  expect((await h.api('PATCH', `/v1/wallets/${sw.id}/assets/${usdcId}`, { key: sw.apiKey, body: { isActive: true } })).status).toBe(200);
  for (const w of [h.wallets['devnet-eth']!, tw, sw])
    await h.api('PATCH', `/v1/wallets/${w.id}`, { key: w.apiKey, body: { configurations: { autoSweeping: { isActive: false } } } });

  const tronPayer: TronPayer = await fundedWallet(tron, 2_000_000_000, { USDT: 1_000_000_000_000n });
  const rpc: Rpc = createSolanaRpc(sol.url);
  const solPayer: KeyPairSigner = await fundedSigner({ standIn: sol, rpc, usdc }, 50_000_000_000n);
  await sol.control.mintTo(usdc, solPayer.address, 1_000_000_000_000n);
  sol.control.produceSlots(2);
  const eth = chainOf(h, 'devnet-eth');

  const families: Record<Family, FamilyPay> = {
    evm: {
      slug: 'devnet-eth',
      walletId: h.wallets['devnet-eth']!.id,
      symbol: 'USDC',
      chainName: eth.config.blockchain.name,
      pay: async (to, amount) => void (await eth.sendToken('USDC', to, amount)),
      see: () => drain(h, 'devnet-eth'),
      settle: async () => {
        await eth.mine(2);
        await drain(h, 'devnet-eth');
      },
    },
    tron: {
      slug: 'tron-pay',
      walletId: tw.id,
      symbol: 'USDT',
      chainName: tronConfig.blockchain.name,
      async pay(to, amount) {
        const sent = await sendToken(tron, tronPayer, tron.tokens[0]!.address, to, parseAmount(amount, 6));
        expect(sent.result, JSON.stringify(sent)).toBe(true);
      },
      see: async () => {
        await tron.control.produceBlocks(1);
        await drain(h, 'tron-pay');
      },
      settle: async () => {
        await tron.control.produceBlocks(21);
        await drain(h, 'tron-pay');
      },
    },
    solana: {
      slug: 'solana-pay',
      walletId: sw.id,
      symbol: 'USDC',
      chainName: solanaChain.blockchain.name,
      async pay(to, amount, reference) {
        const destination = await ata(to as Address, usdc);
        const transfer = getTransferCheckedInstruction({
          source: await ata(solPayer.address, usdc),
          mint: usdc,
          destination,
          authority: solPayer,
          amount: parseAmount(amount, 6),
          decimals: 6,
        });
        // Solana Pay: the wallet adds the request's reference key to the transfer, read-only.
        const withReference = reference
          ? { ...transfer, accounts: [...transfer.accounts, { address: reference as Address, role: AccountRole.READONLY }] }
          : transfer;
        await send(rpc, solPayer, [
          getCreateAssociatedTokenIdempotentInstruction({
            payer: solPayer,
            ata: destination,
            owner: to as Address,
            mint: usdc,
            tokenProgram: TOKEN_PROGRAM_ADDRESS,
          }),
          withReference,
        ]);
      },
      see: async () => {
        sol.control.produceSlots(2);
        await drain(h, 'solana-pay');
      },
      settle: async () => {
        sol.control.produceSlots(40);
        await drain(h, 'solana-pay');
      },
    },
  };
  // Each indexer's cursor starts where the chains are now, so every payment below is in a range it reads.
  for (const f of Object.values(families)) await drain(h, f.slug);
  return {
    h,
    tron,
    sol,
    families,
    async stop() {
      await h?.stop();
      await tron?.stop();
      await sol?.stop();
    },
  };
}
