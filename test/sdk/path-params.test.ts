/**
 * Path parameters cannot change which operation is called. encodeURIComponent leaves `.`
 * alone, and the URL parser (fetch's) removes a `.` segment and a `..` one with the segment
 * before it: `withdrawals.createFromAddress(walletId, '..', body)` was sent as
 * `POST /v1/wallets/{walletId}/withdraw`, a withdrawal paid by the master address instead
 * of the child address, and `signing.messageFromAddress` signed with the master's key. An
 * id that came from outside (a request, a file) named the route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, WalletClient } from '../../packages/sdk/src/index.js';
import { startHarness, type Harness, type TestWallet } from '../support/harness.js';
import { chainOf } from '../support/chain.js';
import { randomAddress } from '../withdrawals/world.js';

let h: Harness;
let w: TestWallet;
let client: WalletClient;

beforeAll(async () => {
  h = await startHarness();
  w = h.wallets['devnet-eth']!;
  client = new WalletClient({ baseUrl: h.baseUrl, apiKey: w.apiKey, maxRetries: 0 });
  await chainOf(h, 'devnet-eth').sendToken('USDC', w.address, '5');
}, 120_000);
afterAll(async () => {
  await h?.stop();
});

describe('path parameters', () => {
  it.each(['..', '.'])('%j as a child address id is refused, never the master route', async (addressId) => {
    const assetId = (await client.assets.list(w.id)).find((a) => a.asset.symbol === 'USDC')!.asset.id;
    const to = randomAddress();
    const sent = await client.withdrawals.createFromAddress(w.id, addressId, { assetId, address: to, amount: '1' }).then(
      (tx) => tx,
      (err: unknown) => err,
    );
    expect(sent).toBeInstanceOf(TypeError);
    const signed = await client.signing.messageFromAddress(w.id, addressId, { message: 'hello' }).then(
      (s) => s,
      (err: unknown) => err,
    );
    expect(signed).toBeInstanceOf(TypeError);
    // Nothing was paid from the master address.
    const withdrawals = await client.transactions.list(w.id, { type: 'WITHDRAW' });
    expect(withdrawals.data.filter((t) => t.recipientAddress?.toLowerCase() === to.toLowerCase())).toEqual([]);
  });

  it("a '%2e' spelling stays a parameter (encodeURIComponent escapes its '%'): the service refuses it as an address id", async () => {
    // A request the master's route would take (a real asset, funds there): only the path can refuse it.
    const assetId = (await client.assets.list(w.id)).find((a) => a.asset.symbol === 'USDC')!.asset.id;
    const to = randomAddress();
    const sent = await client.withdrawals.createFromAddress(w.id, '%2e%2e', { assetId, address: to, amount: '1' }).then(
      (tx) => tx,
      (err: unknown) => err,
    );
    expect(sent).toBeInstanceOf(ApiError);
    expect((sent as ApiError).status).toBe(400);
    const withdrawals = await client.transactions.list(w.id, { type: 'WITHDRAW' });
    expect(withdrawals.data.filter((t) => t.recipientAddress?.toLowerCase() === to.toLowerCase())).toEqual([]);
  });
});
