/**
 * Asset recovery on a chain whose chains file writes token addresses in lower case (the
 * form the file accepts, and what block explorers print): an enabled asset is still an
 * enabled asset. The recovery told it apart from unlisted tokens by comparing the client's
 * address, checksummed, with the configured text, so USDC written in lower case was
 * "unlisted": recovered instead of refused (SALVAGE_NOT_NEEDED), held at nothing, and out
 * of reach of every policy rule that names the asset or its amount.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';

let h: Harness;
let eth: TestChain;
const wallet = () => h.wallets['devnet-eth']!;
const base = () => `/v1/wallets/${wallet().id}`;

beforeAll(async () => {
  h = await startHarness({
    configOf: (c) => ({ ...c, assets: c.assets.map((a) => (a.isNative ? a : { ...a, address: a.address.toLowerCase() })) }),
  });
  eth = chainOf(h, 'devnet-eth');
}, 90_000);
afterAll(async () => {
  await h?.stop();
});

describe('a token configured in lower case', () => {
  it('an enabled asset at a child is refused (SALVAGE_NOT_NEEDED), nothing written, whatever case the client writes', async () => {
    const res = await h.api('POST', `${base()}/addresses`, { body: { disableAutoSweep: true } });
    expect(res.status).toBe(200);
    const child = res.body.data as { address: string };
    await eth.sendToken('USDC', child.address, '3');
    const usdc = eth.token('USDC');
    const assets = (await h.api('GET', `${base()}/assets`)).body.data as { isActive: boolean; asset: { symbol: string } }[];
    expect(assets.find((a) => a.asset.symbol === 'USDC')?.isActive).toBe(true);
    const blockchainId = h.services.catalogue.findChain('devnet-eth', 'testnet')!.row.blockchain_id;
    const count = async () => Number((await sql<{ n: string }>`SELECT count(*) AS n FROM salvages`.execute(h.database.db)).rows[0]!.n);
    const before = await count();
    for (const tokenAddress of [usdc.address, `0x${usdc.address.slice(2).toUpperCase()}`]) {
      const body = {
        senderAddress: child.address,
        recipientAddress: privateKeyToAccount(generatePrivateKey()).address,
        amount: '3',
        blockchainId,
        tokenAddress,
      };
      const fee = await h.api('POST', `${base()}/salvage/network-fee`, { body });
      expect([fee.status, fee.body.error], JSON.stringify(fee.body)).toEqual([422, 'SALVAGE_NOT_NEEDED']);
      const run = await h.api('POST', `${base()}/salvage`, { body });
      expect([run.status, run.body.error], JSON.stringify(run.body)).toEqual([422, 'SALVAGE_NOT_NEEDED']);
    }
    expect(await count()).toBe(before);
    expect(await eth.balanceOf('USDC', child.address)).toBe(3_000_000n);
  });
});
