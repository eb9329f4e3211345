/**
 * On a chain named by rpcUrl the recipient was screened by AML before it was read as an
 * address: `normalizeAddress(...) ?? recipientAddress`, the client's text as it came. The
 * providers refused it ("not a 20-byte address"), which the screening runner takes for a
 * provider failure and remembers (AML_PROVIDER_RETRY_MS, 10 s): the request was a 503
 * AML_UNAVAILABLE instead of a 400, and for the next seconds every payout on that chain, of
 * every wallet and business (the runner is the chain's), was refused 503 as well (wallets
 * fail closed by default). A request every few seconds stopped the chain's payouts. A
 * recipient that is no address is a 400 before anything is screened.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startAnvil, type AnvilHandle } from '../../src/devnet/anvil.js';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf } from '../support/chain.js';

let h: Harness;
let foreign: AnvilHandle;
const wallet = () => h.wallets['devnet-eth']!;
const fresh = () => privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  h = await startHarness({});
  foreign = await startAnvil({ chainId: 31_995, port: 0 });
  await chainOf(h, 'devnet-eth').sendToken('USDC', wallet().address, '10');
}, 90_000);
afterAll(async () => {
  await foreign?.stop();
  await h?.stop();
});

describe('a recovery on a chain named by rpcUrl to a recipient that is no address', () => {
  it('is a 400 before screening, and the chain’s payouts go on being screened', async () => {
    const chain = h.services.catalogue.findChain('devnet-eth', 'testnet')!;
    for (const recipientAddress of ['nope', `0x${'1'.repeat(39)}`, `0x${'0'.repeat(40)}`]) {
      const res = await h.api('POST', `/v1/wallets/${wallet().id}/salvage`, {
        body: {
          senderAddress: wallet().address,
          recipientAddress,
          amount: '0.1',
          blockchainId: chain.row.blockchain_id,
          rpcUrl: foreign.rpcUrl,
        },
      });
      expect([res.status, res.body.error, res.body.details?.[0]?.field], JSON.stringify(res.body)).toEqual([
        400,
        'VALIDATION_ERROR',
        'recipientAddress',
      ]);
    }
    // A withdrawal on the same chain right after: screened, not refused for a provider "failure".
    const usdc = chain.assets.find((a) => a.symbol === 'USDC')!;
    const paid = await h.api('POST', `/v1/wallets/${wallet().id}/withdraw`, { body: { assetId: usdc.id, amount: '1', address: fresh() } });
    expect([paid.status, paid.body.error], JSON.stringify(paid.body)).toEqual([200, undefined]);
  });

  it('the screening itself: text that is no address is not screened, alone, and the chain’s providers are not taken for failing', async () => {
    const chain = h.services.catalogue.findChain('devnet-eth', 'testnet')!;
    const [odd, good] = await h.services.aml.screen(chain, ['nope', fresh()]);
    expect(odd!.status).toBe('NOT_SCREENED');
    expect(good!.status).toBe('CLEAR');
    const usdc = chain.assets.find((a) => a.symbol === 'USDC')!;
    const paid = await h.api('POST', `/v1/wallets/${wallet().id}/withdraw`, { body: { assetId: usdc.id, amount: '1', address: fresh() } });
    expect([paid.status, paid.body.error], JSON.stringify(paid.body)).toEqual([200, undefined]);
  });
});
