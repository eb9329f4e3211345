/**
 * A transfer the token itself would refuse, although our balance accounting lets it
 * through, is refused with 422 TRANSFER_WOULD_FAIL before anything is written: every item
 * is still simulated (eth_estimateGas, batched with the others arriving at the same moment).
 * The devnet token's code is replaced (anvil_setCode) by a token that reports a huge
 * balance and reverts every transfer, as a token with a frozen sender or a paused contract does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assetOf, chainOf, counts, randomAddress, startWorld, withdraw, type TestChain, type World } from './world.js';

let w: World;
let eth: TestChain;
const ETH = 'devnet-eth';

/**
 * balanceOf(address) -> 2^255; any other call reverts. Hand-assembled:
 * selector = calldata[0:4]; if selector == 0x70a08231 jump to 0x14, else revert(0, 0);
 * 0x14: mstore(0, 1 << 255); return(0, 32).
 */
const FROZEN_TOKEN = '0x60003560e01c6370a082311460145760006000fd5b600160ff1b60005260206000f3';

beforeAll(async () => {
  w = await startWorld({ worker: false });
  eth = chainOf(w.h, ETH);
  // The replaced token below answers no issuer blacklist read, so AML screening cannot ask
  // Circle's list on it and, failing closed, would refuse first (503 AML_UNAVAILABLE): this
  // wallet lets payouts through unscreened instead, so the token's own refusal is what shows.
  const wallet = w.h.wallets[ETH]!;
  const relaxed = await w.h.api('PATCH', `/v1/wallets/${wallet.id}`, {
    key: w.h.businessKey,
    body: { configurations: { aml: { onProviderFailure: 'ALLOW' } } },
  });
  expect(relaxed.status).toBe(200);
});
afterAll(async () => {
  await w?.stop();
});

describe('a transfer the token would revert', () => {
  it('is a 422 TRANSFER_WOULD_FAIL, single or in a batch of concurrent requests, and writes nothing', async () => {
    const usdc = assetOf(w.h, ETH, 'USDC');
    await eth.rpc('anvil_setCode', [usdc.address, FROZEN_TOKEN]);
    await eth.rpc('anvil_setBalance', [w.h.wallets[ETH]!.address, '0x56BC75E2D63100000']);
    const before = await counts(w.h);

    const one = await withdraw(w.h, ETH, { assetId: usdc.id, address: randomAddress(), amount: '1' });
    expect(one.status, JSON.stringify(one.body)).toBe(422);
    expect(one.body).toMatchObject({ statusCode: 422, error: expect.any(String), requestId: expect.any(String) });
    expect(JSON.stringify(one.body)).toContain('TRANSFER_WOULD_FAIL');

    // Concurrent requests share one batched estimate round trip: each still gets its own answer.
    const many = await Promise.all(
      Array.from({ length: 20 }, () => withdraw(w.h, ETH, { assetId: usdc.id, address: randomAddress(), amount: '1' })),
    );
    for (const r of many) {
      expect(r.status, JSON.stringify(r.body)).toBe(422);
      expect(JSON.stringify(r.body)).toContain('TRANSFER_WOULD_FAIL');
    }
    expect(await counts(w.h)).toEqual(before);
  });
});
