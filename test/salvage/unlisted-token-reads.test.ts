/**
 * A recovery names a token outside the catalogue: a contract any client may deploy. One whose
 * decimals() answers but whose balanceOf reverts, or spends all the gas of the call, used to be
 * read in the chain's shared balance multicall (every read of the same moment, of every wallet
 * and business, in one aggregate3 that failed as a whole): the client got a 503, and so did
 * every balance read, withdrawal funds check and sweep batched with it. Now such a token is
 * read in a call of its own (chains/evm/balances.ts): the client gets 422 NOT_A_TOKEN with
 * nothing written, and the reads beside it are answered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { getAddress, parseUnits, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';

let h: Harness;
let eth: TestChain;
const wallet = () => h.wallets['devnet-eth']!;
const base = () => `/v1/wallets/${wallet().id}`;
const fresh = () => privateKeyToAccount(generatePrivateKey()).address;
const chain = () => h.services.catalogue.findChain('devnet-eth', 'testnet')!;

/**
 * A contract answering decimals() with 6; any other call (balanceOf) reverts, or loops until
 * its gas is spent. Runtime (31 bytes): the selector compared with decimals()'s, a jump to
 * the answer when equal; else REVERT(0, 0) or a JUMPDEST jumped to forever.
 */
async function decimalsOnly(otherwise: 'revert' | 'loop'): Promise<Address> {
  const fallback = otherwise === 'revert' ? '60006000fd' : '5b600f5600';
  const runtime = `60003560e01c63313ce567146014 57${fallback}5b600660005260206000f3`.replace(' ', '');
  expect(runtime.length / 2).toBe(31);
  const hash = await eth.wallet.sendTransaction({ data: `0x601f600c600039601f6000f3${runtime}` as Hex, chain: null });
  return getAddress((await eth.pub.waitForTransactionReceipt({ hash })).contractAddress!);
}

beforeAll(async () => {
  h = await startHarness({});
  eth = chainOf(h, 'devnet-eth');
  await eth.sendToken('USDC', wallet().address, '10');
}, 90_000);
afterAll(async () => {
  await h?.stop();
});

const salvages = async () =>
  Number(
    (
      await sql<{ n: string }>`SELECT count(*) AS n FROM transactions WHERE wallet_id = ${wallet().id} AND type = 'SALVAGE'`.execute(
        h.database.db,
      )
    ).rows[0]!.n,
  );

describe.each(['revert', 'loop'] as const)('a recovery of a token whose balanceOf does not answer (%s)', (otherwise) => {
  it('is 422 NOT_A_TOKEN from network-fee and salvage, nothing written', async () => {
    const token = await decimalsOnly(otherwise);
    const body = {
      senderAddress: wallet().address,
      recipientAddress: fresh(),
      amount: '1',
      blockchainId: chain().row.blockchain_id,
      tokenAddress: token,
    };
    for (const path of ['salvage/network-fee', 'salvage']) {
      const res = await h.api('POST', `${base()}/${path}`, { body });
      expect([res.status, res.body.error], JSON.stringify(res.body)).toEqual([422, 'NOT_A_TOKEN']);
      expect(res.body.details).toEqual([{ field: 'tokenAddress', message: 'no token there' }]);
    }
    expect(await salvages()).toBe(0);
  });

  it("leaves the balance reads of the same moment answered: another business's, and the wallet's own over HTTP", async () => {
    const token = await decimalsOnly(otherwise);
    const adapter = chain().adapter;
    const usdc = chain().assets.find((a) => a.symbol === 'USDC')!.address!;
    const [bad, other, own, balances] = await Promise.allSettled([
      adapter.getBalances([
        { owner: wallet().address, token },
        { owner: wallet().address, token: null },
      ]),
      adapter.getBalances([{ owner: fresh(), token: usdc }]),
      adapter.getBalances([{ owner: wallet().address, token: usdc }]),
      h.api('GET', `${base()}/balances`),
    ]);
    expect(bad).toMatchObject({ status: 'rejected', reason: { code: 'CHAIN_UNAVAILABLE' } });
    expect(other).toEqual({ status: 'fulfilled', value: [0n] });
    expect(own).toEqual({ status: 'fulfilled', value: [parseUnits('10', 6)] });
    expect(balances.status === 'fulfilled' && balances.value.status).toBe(200);
  });
});
