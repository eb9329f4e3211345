/**
 * The dashboard's withdrawal form sent twice (a double click, the browser sending the POST
 * again after a lost connection, a second tab of the same page): one withdrawal, paid once,
 * both answers naming it. The form carries its own Idempotency-Key.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf } from '../support/chain.js';
import { randomAddress } from '../withdrawals/world.js';
import { createDashboardUser, DashClient } from './support.js';

let h: Harness;
const ETH = 'devnet-eth';
const PASSWORD = 'a long enough password';

beforeAll(async () => {
  h = await startHarness({ specs: [DEVNET_CHAINS[0]!] });
}, 120_000);
afterAll(async () => {
  await h?.stop();
});

/** Every hidden field of the page's form, as a browser sends them. */
function hiddenFields(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) out[m[1]!] = m[2]!;
  return out;
}

describe('the withdrawal form sent twice', () => {
  it('makes one withdrawal; both answers lead to it', { timeout: 60_000 }, async () => {
    const wallet = h.wallets[ETH]!;
    await chainOf(h, ETH).sendToken('USDC', wallet.address, '10');
    await createDashboardUser(h, h.businessId, 'owner@resubmit.example', PASSWORD);
    const client = new DashClient(h.baseUrl);
    expect((await client.login('owner@resubmit.example', PASSWORD)).status).toBe(303);
    const usdc = h.services.catalogue.findChain(ETH, 'testnet')!.assets.find((a) => a.symbol === 'USDC')!;

    const page = await client.get(`/dashboard/wallets/${wallet.id}/withdraw`);
    expect(page.status).toBe(200);
    const to = randomAddress();
    const form = { ...hiddenFields(page.text), assetId: usdc.id, address: to, amount: '1.5' };
    const first = await client.request('POST', `/dashboard/wallets/${wallet.id}/withdraw`, form);
    const second = await client.request('POST', `/dashboard/wallets/${wallet.id}/withdraw`, form);
    expect(first.status, first.text.slice(0, 300)).toBe(303);
    expect(second.status, second.text.slice(0, 300)).toBe(303);
    expect(second.location).toBe(first.location);

    const { rows } = await sql<{ n: string }>`
      SELECT count(*) AS n FROM transactions WHERE type = 'WITHDRAW' AND lower(recipient_address) = ${to.toLowerCase()}`.execute(
      h.database.db,
    );
    expect(Number(rows[0]!.n)).toBe(1);

    // A new render of the form is a new withdrawal.
    const again = await client.get(`/dashboard/wallets/${wallet.id}/withdraw`);
    const third = await client.request('POST', `/dashboard/wallets/${wallet.id}/withdraw`, {
      ...hiddenFields(again.text),
      assetId: usdc.id,
      address: to,
      amount: '1.5',
    });
    expect(third.status, third.text.slice(0, 300)).toBe(303);
    expect(third.location).not.toBe(first.location);
  });
});
