/**
 * Asset recovery on Solana through HTTP (issue 27, 2): an SPL token nobody listed, minted to a
 * child address, is recovered whole: the master signs as fee payer, the tokens move, the
 * child's token account is closed and its rent goes back to the master, whose lamports
 * change by exactly the transaction's fee (the recipient's new token account's rent paid,
 * the closed one's got back). The SALVAGE Transaction and salvage.success.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { eventually } from '../../support/fixtures.js';
import { childOf, events, outsideAccount, settled, startSolanaWorld, walletApi, type SolanaWorld } from './misc-world.js';

let w: SolanaWorld;

async function rpc<T>(method: string, params: unknown[]): Promise<T> {
  const res = await fetch(w.sol.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: unknown };
  if (body.error) throw new Error(JSON.stringify(body.error));
  return body.result as T;
}
const lamports = async (owner: string) => BigInt((await rpc<{ value: number }>('getBalance', [owner, { commitment: 'confirmed' }])).value);
async function tokenAccount(owner: string, mint: string) {
  // A mint created moments ago may not be confirmed yet: the node then refuses the filter (as agave does).
  const r = await rpc<{ value: { pubkey: string; account: { lamports: number } }[] }>('getTokenAccountsByOwner', [
    owner,
    { mint },
    { encoding: 'jsonParsed', commitment: 'confirmed' },
  ]).catch((err: Error) => {
    if (err.message.includes('could not find mint')) return { value: [] };
    throw err;
  });
  return r.value[0] ?? null;
}

beforeAll(async () => {
  w = await startSolanaWorld('sol-salvage', 990_329);
  await rpc('standin_fund', [w.wallet.address, '2000000000']);
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

describe('an unknown SPL token at a child address', () => {
  it('moves whole, the child token account is closed and its rent goes back to the master', async () => {
    const { mint } = await rpc<{ mint: string }>('standin_createMint', [{ symbol: 'LOST', decimals: 9 }]);
    const child = await childOf(w);
    await rpc('standin_mintTo', [mint, child.address, '7500000001']);
    const account = await eventually(
      () => tokenAccount(child.address, mint),
      (a) => a !== null,
      15_000,
    );
    const to = outsideAccount().address;
    const blockchainId = w.h.services.catalogue.findChain('sol-salvage', 'testnet')!.row.blockchain_id;
    const masterBefore = await lamports(w.wallet.address);

    const res = await walletApi(w, 'POST', '/salvage', {
      senderAddress: child.address,
      recipientAddress: to,
      amount: '7.500000001',
      blockchainId,
      tokenAddress: mint,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const done = await settled(w, res.body.data.id);
    expect(done, JSON.stringify(done)).toMatchObject({ type: 'SALVAGE', status: 'SUCCESS', amount: '7.500000001', tokenAddress: mint });
    expect(done.metadata.salvage).toMatchObject({ funding: 'none', wholeBalance: true });
    expect(await tokenAccount(child.address, mint)).toBeNull();
    const received = await tokenAccount(to, mint);
    expect(received).not.toBeNull();
    const { rows } = await sql<{ hash: string; fee_payer: string; purpose: string }>`
      SELECT hash, fee_payer, purpose FROM outbound_txs WHERE owner_id = ${done.id}`.execute(w.h.database.db);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.fee_payer).toBe(w.wallet.address);
    const tx = await rpc<{ meta: { fee: number } }>('getTransaction', [
      rows[0]!.hash,
      { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 },
    ]);
    // Rent paid for the recipient's new token account equals the rent the closed one gave back.
    expect(await lamports(w.wallet.address)).toBe(
      masterBefore - BigInt(tx.meta.fee) - BigInt(received!.account.lamports) + BigInt(account!.account.lamports),
    );
    await events(w, done.id, 'salvage.success');
  });
});
