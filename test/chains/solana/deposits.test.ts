/**
 * Deposits on a Solana chain (issue 16, item 4) through the real indexer, HTTP and webhooks,
 * against the validator stand-in with slots on demand and real PostgreSQL: an SPL deposit
 * (into a token account the sender creates in the same transaction, and into an existing
 * one) and a SOL deposit are PENDING once `confirmed` and SUCCESS once `finalized`, whatever
 * the chain's `confirmations` (here 1); a chain with `finality: 'confirmed'` credits at
 * `confirmed`; a deposit in a dropped fork is FAILED, or moved when the new fork carries it;
 * two indexers credit once; the deposit finder takes a signature; a scan costs the same node
 * calls for 1 and for 200 watched owners (counted by a proxy in front of the stand-in).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createSolanaRpc, type Address, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { resolveChain } from '../../../src/configuration.js';
import { DEVNET_CHAINS } from '../../../src/devnet/devnet.js';
import { startSolanaStandIn, type SolanaStandIn } from '../../../src/devnet/solana/index.js';
import { ata, build, fundedSigner, type Rpc } from '../../../src/devnet/solana/test-support.js';
import type { ChainIndexer } from '../../../src/modules/deposits/indexer.js';
import { verifyWebhook } from '../../../packages/sdk/src/webhooks/index.js';
import { startHarness, type Harness } from '../../support/harness.js';
import { startReceiver, type Receiver } from '../../support/receiver.js';
import { eventually } from '../../support/fixtures.js';
import { countingRpcProxy, type RpcProxy } from './sindex-support.js';

const SLUG = 'solana-deposits';
const FAST = 'solana-deposits-confirmed';

let sol: SolanaStandIn;
let rpc: Rpc;
let proxy: RpcProxy;
let h: Harness;
let receiver: Receiver;
let usdc: Address;
let usdt: Address;
let payer: KeyPairSigner;
type Wallet = { id: string; apiKey: string; address: string };
let wallet: Wallet;

async function createWallet(slug: string, name: string): Promise<Wallet> {
  const created = await h.api('POST', '/v1/wallets', { key: h.businessKey, body: { blockchain: slug, network: 'testnet', name } });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const w = created.body.data as Wallet;
  const body = { webhookUrl: receiver.url, configurations: { autoSweeping: { isActive: false } } };
  expect((await h.api('PATCH', `/v1/wallets/${w.id}`, { key: w.apiKey, body })).status).toBe(200);
  for (const a of h.services.catalogue.findChain(slug, 'testnet')!.assets) {
    const res = await h.api('PATCH', `/v1/wallets/${w.id}/assets/${a.id}`, { key: w.apiKey, body: { isActive: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  return w;
}

beforeAll(async () => {
  sol = await startSolanaStandIn({
    port: 0,
    slotMs: 0,
    tokens: [
      { symbol: 'USDC', decimals: 6 },
      { symbol: 'USDT', decimals: 6 },
    ],
  });
  sol.control.produceSlots(1); // the mints' block confirmed
  rpc = createSolanaRpc(sol.url);
  usdc = sol.tokens[0]!.mint as Address;
  usdt = sol.tokens[1]!.mint as Address;
  proxy = await countingRpcProxy(sol.url);
  const entry = (blockchain: string, chainId: number) => ({
    blockchain,
    family: 'solana' as const,
    network: 'testnet' as const,
    rpcUrl: proxy.url,
    chainId,
    name: 'Solana',
    symbol: 'SOL',
    tokenStandard: 'SPL',
    // Deliberately 1: on Solana the node's finalized slot decides, not the configured depth.
    confirmations: 1,
    assets: [
      { symbol: 'USDC', address: usdc, decimals: 6 },
      { symbol: 'USDT', address: usdt, decimals: 6 },
    ],
  });
  const chain = resolveChain(entry(SLUG, 990_311), 'test');
  const fast = resolveChain({ ...entry(FAST, 990_312), finality: 'confirmed' }, 'test');
  h = await startHarness({ specs: [DEVNET_CHAINS[0]!], worker: true, extraChains: [chain, fast] });
  receiver = await startReceiver();
  wallet = await createWallet(SLUG, 'Sol deposits');
  payer = await fundedSigner({ standIn: sol, rpc, usdc }, 50_000_000_000n);
  await sol.control.mintTo(usdc, payer.address, 1_000_000_000_000n);
  await sol.control.mintTo(usdt, payer.address, 1_000_000_000_000n);
  sol.control.produceSlots(2);
}, 60_000);

afterAll(async () => {
  await h?.stop();
  await receiver?.close();
  await proxy?.close();
  await sol?.stop();
});

const chainHandle = (slug = SLUG) => h.services.catalogue.findChain(slug, 'testnet')!;
const newIndexer = (slug = SLUG) => h.services.deposits.indexer(chainHandle(slug));
const slots = (n: number) => sol.control.produceSlots(n);

async function drain(indexer: ChainIndexer) {
  for (let i = 0; i < 200; i++) if ((await indexer.step()) === 'idle') return;
  throw new Error('indexer did not reach the head');
}

async function child(w: Wallet = wallet): Promise<{ id: string; address: string }> {
  const res = await h.api('POST', `/v1/wallets/${w.id}/addresses`, { key: w.apiKey, body: { disableAutoSweep: true } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

async function deposits(signature: string) {
  const { rows } = await sql<{
    id: string;
    status: string;
    amount: string;
    block_number: string;
    block_hash: string;
    confirmations: number;
    sender: string;
    recipient: string;
  }>`
    SELECT id, status, amount, block_number, block_hash, confirmations, sender_address AS sender, recipient_address AS recipient FROM transactions
     WHERE type = 'DEPOSIT' AND hash = ${signature} ORDER BY created_at`.execute(h.database.db);
  return rows;
}

async function eventNames(transactionId: string) {
  const { rows } = await sql<{ name: string }>`
    SELECT name FROM events WHERE transaction_id = ${transactionId} ORDER BY created_at, id`.execute(h.database.db);
  return rows.map((r) => r.name);
}

/** The verified webhook bodies the receiver got for a transaction. */
function received(transactionId: string, apiKey = wallet.apiKey) {
  return receiver.requests
    .filter((r) => (JSON.parse(r.body) as { data?: { id?: string } }).data?.id === transactionId)
    .map((r) => verifyWebhook<Record<string, any>>({ body: r.body, headers: r.headers, apiKey, replay: false }));
}

/** The instructions of an SPL payment from `payer`, creating the recipient's token account (idempotent) first. */
async function splPayment(mint: Address, to: string, amount: bigint) {
  const destination = await ata(to as Address, mint);
  return [
    getCreateAssociatedTokenIdempotentInstruction({
      payer,
      ata: destination,
      owner: to as Address,
      mint,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    }),
    getTransferCheckedInstruction({ source: await ata(payer.address, mint), mint, destination, authority: payer, amount, decimals: 6 }),
  ];
}

/** Sends a signed transaction (with preflight); returns its signature. */
async function sendBuilt(built: Awaited<ReturnType<typeof build>>): Promise<string> {
  await rpc.sendTransaction(built.wire, { encoding: 'base64', preflightCommitment: 'confirmed' }).send();
  return built.signature;
}

async function pay(mint: Address, to: string, amount: bigint): Promise<string> {
  return sendBuilt(await build(rpc, payer, await splPayment(mint, to, amount)));
}

async function paySol(to: string, lamports: bigint): Promise<string> {
  return sendBuilt(await build(rpc, payer, [getTransferSolInstruction({ source: payer, destination: to as Address, amount: lamports })]));
}

/** Produces slots until the stand-in's finalized slot is at least `slot`. */
function finalize(slot: bigint) {
  while (BigInt(sol.control.status().finalizedSlot) < slot) slots(1);
}

describe('Solana deposits: PENDING at confirmed, SUCCESS at finalized', () => {
  it('USDC into a token account the sender creates in the same transaction: exact amounts in rows and webhooks', async () => {
    const indexer = newIndexer();
    await drain(indexer);
    const to = await child();
    const signature = await pay(usdc, to.address, 4_200_001n);
    slots(1); // the block holding it: processed only
    await drain(indexer);
    expect(await deposits(signature)).toEqual([]);
    slots(1); // a block on top: confirmed
    await drain(indexer);
    const [found] = await deposits(signature);
    expect(found).toMatchObject({ status: 'PENDING', amount: '4200001', sender: payer.address, recipient: to.address });
    const slot = BigInt(found!.block_number);

    // One slot short of finalized: still PENDING, whatever `confirmations: 1` says.
    while (BigInt(sol.control.status().finalizedSlot) < slot - 1n) slots(1);
    await drain(indexer);
    expect(await deposits(signature)).toMatchObject([{ status: 'PENDING' }]);
    expect(await eventNames(found!.id)).toEqual(['deposit.processing']);

    finalize(slot);
    await drain(indexer);
    expect(await deposits(signature)).toMatchObject([{ id: found!.id, status: 'SUCCESS', amount: '4200001' }]);
    expect(await eventNames(found!.id)).toEqual(['deposit.processing', 'deposit.success']);

    await eventually(
      async () => received(found!.id).length,
      (n) => n === 2,
    );
    const [processing, success] = received(found!.id);
    expect(processing).toMatchObject({ event: 'deposit.processing', data: { status: 'PENDING', confirmed: false, amount: '4.200001' } });
    expect(success).toMatchObject({
      event: 'deposit.success',
      data: {
        type: 'DEPOSIT',
        status: 'SUCCESS',
        confirmed: true,
        amount: '4.200001',
        currency: 'USDC',
        hash: signature,
        blockNumber: Number(slot),
        senderAddress: payer.address,
        recipientAddress: to.address,
        address: { id: to.id, address: to.address },
        asset: { symbol: 'USDC', decimals: 6 },
        blockchain: { slug: SLUG },
        wallet: { id: wallet.id },
      },
    });
  });

  it('USDT into an existing token account and SOL: each its own record, exact to the base unit', async () => {
    const indexer = newIndexer();
    await drain(indexer);
    const to = await child();
    await sol.control.mintTo(usdt, to.address, 1n); // the account exists before the deposit
    slots(2);
    const spl = await pay(usdt, to.address, 999_999_999_999n);
    const lamports = await paySol(to.address, 1_000_000_001n);
    slots(2);
    await drain(indexer);
    expect(await deposits(spl)).toMatchObject([{ status: 'PENDING', amount: '999999999999' }]);
    expect(await deposits(lamports)).toMatchObject([{ status: 'PENDING', amount: '1000000001', sender: payer.address }]);
    finalize(BigInt((await deposits(lamports))[0]!.block_number));
    await drain(indexer);
    const [splRow] = await deposits(spl);
    const [solRow] = await deposits(lamports);
    expect([splRow!.status, solRow!.status]).toEqual(['SUCCESS', 'SUCCESS']);
    await eventually(
      async () => received(splRow!.id).length + received(solRow!.id).length,
      (n) => n === 4,
    );
    expect(received(splRow!.id)[1]).toMatchObject({ data: { amount: '999999.999999', currency: 'USDT', hash: spl } });
    expect(received(solRow!.id)[1]).toMatchObject({ data: { amount: '1.000000001', currency: 'SOL', hash: lamports } });
    // The mint made when the account was opened is a deposit too (1 base unit), not part of these.
    const api = await h.api('GET', `/v1/wallets/${wallet.id}/transactions/${solRow!.id}`, { key: wallet.apiKey });
    expect(api.body.data).toMatchObject({ amount: '1.000000001', status: 'SUCCESS', confirmed: true });
  });

  it("a chain with finality 'confirmed' credits a deposit (SUCCESS) as soon as its block is confirmed", async () => {
    const fast = await createWallet(FAST, 'Sol fast');
    const indexer = newIndexer(FAST);
    await drain(indexer);
    const to = await child(fast);
    const signature = await pay(usdc, to.address, 7_000_007n);
    slots(2);
    await drain(indexer);
    const rows = await sql<{ id: string; status: string; amount: string }>`
      SELECT id, status, amount FROM transactions WHERE type = 'DEPOSIT' AND hash = ${signature} AND wallet_id = ${fast.id}`.execute(
      h.database.db,
    );
    expect(rows.rows).toMatchObject([{ status: 'SUCCESS', amount: '7000007' }]);
    expect(BigInt(sol.control.status().finalizedSlot)).toBeLessThan(BigInt(sol.control.status().confirmedSlot));
    expect(await eventNames(rows.rows[0]!.id)).toEqual(['deposit.processing', 'deposit.success']);
  });
});

describe('dropped forks', () => {
  it('a deposit whose block is dropped with its fork is FAILED (deposit.failed), never credited', async () => {
    const indexer = newIndexer();
    await drain(indexer);
    const to = await child();
    const signature = await pay(usdc, to.address, 3_000_000n);
    slots(2);
    await drain(indexer);
    const [found] = await deposits(signature);
    expect(found!.status).toBe('PENDING');

    expect(sol.control.dropSlots(2).signatures).toContain(signature);
    slots(2);
    await drain(indexer);
    finalize(BigInt(sol.control.status().confirmedSlot));
    await drain(indexer);
    expect(await deposits(signature)).toMatchObject([{ id: found!.id, status: 'FAILED' }]);
    expect(await eventNames(found!.id)).toEqual(['deposit.processing', 'deposit.failed']);
    const [, failed] = await eventually(
      async () => received(found!.id),
      (r) => r.length === 2,
    );
    expect(failed).toMatchObject({ event: 'deposit.failed', data: { status: 'FAILED', amount: '3', hash: signature } });
  });

  it('a deposit the new fork carries too (sent again with its old blockhash) is the same record, moved to its new block, then SUCCESS', async () => {
    const indexer = newIndexer();
    await drain(indexer);
    const to = await child();
    const built = await build(rpc, payer, await splPayment(usdc, to.address, 2_500_000n));
    const signature = await sendBuilt(built);
    slots(2);
    await drain(indexer);
    const [before] = await deposits(signature);
    expect(before!.status).toBe('PENDING');

    sol.control.dropSlots(2);
    // Its blockhash is older than the fork point: the same signed bytes land on the new fork.
    await sendBuilt(built);
    slots(2);
    await drain(indexer);
    finalize(BigInt(sol.control.status().confirmedSlot));
    await drain(indexer);
    const after = await deposits(signature);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ id: before!.id, status: 'SUCCESS', amount: '2500000' });
    expect(after[0]!.block_number).not.toBe(before!.block_number);
    const names = await eventNames(before!.id);
    expect(names.filter((n) => n === 'deposit.success')).toHaveLength(1);
    expect(names).not.toContain('deposit.failed');
  });
});

describe('two indexers on one database', () => {
  it('credit a deposit once: one row, one deposit.processing, one deposit.success', async () => {
    const a = newIndexer();
    const b = newIndexer();
    await Promise.all([drain(a), drain(b)]);
    const to = await child();
    const spl = await pay(usdc, to.address, 9_000_009n);
    const lamports = await paySol(to.address, 2_000_002n);
    for (let i = 0; i < 36; i++) {
      slots(1);
      await Promise.all([drain(a), drain(b)]);
    }
    for (const [signature, amount] of [
      [spl, '9000009'],
      [lamports, '2000002'],
    ] as const) {
      const rows = await deposits(signature);
      expect(rows).toMatchObject([{ status: 'SUCCESS', amount }]);
      expect(await eventNames(rows[0]!.id)).toEqual(['deposit.processing', 'deposit.success']);
    }
  }, 60_000);
});

describe('addresses that differ only in case', () => {
  /** The same letters with one letter's case flipped, still base58 (no 0, O, I, l) and 32 bytes. */
  function lookAlike(address: string): string {
    for (let i = address.length - 1; i >= 0; i--) {
      const c = address[i]!;
      const flipped = c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase();
      if (flipped !== c && !'0OIl'.includes(flipped)) return address.slice(0, i) + flipped + address.slice(i + 1);
    }
    throw new Error('no letter to flip');
  }

  it("are two addresses: another wallet's look-alike is its own, and a deposit to either goes to its holder only", async () => {
    const indexer = newIndexer();
    await drain(indexer);
    const mine = await child();
    const other = await createWallet(SLUG, 'Look-alike');
    const variant = lookAlike(mine.address);
    expect(variant.toLowerCase()).toBe(mine.address.toLowerCase());
    // Base58 is case-sensitive: the look-alike is no address of the service, so it may be registered.
    const added = await h.api('POST', `/v1/wallets/${other.id}/addresses/whitelist`, { key: other.apiKey, body: { address: variant } });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.data.address).toBe(variant);
    const toMine = await pay(usdc, mine.address, 3_000_003n);
    const toVariant = await pay(usdc, variant, 4_000_004n);
    slots(2);
    await drain(indexer);
    const walletOf = async (signature: string) => {
      const { rows } = await sql<{ wallet_id: string; amount: string; recipient_address: string }>`
        SELECT wallet_id, amount, recipient_address FROM transactions WHERE type = 'DEPOSIT' AND hash = ${signature}`.execute(
        h.database.db,
      );
      return rows;
    };
    expect(await walletOf(toMine)).toEqual([{ wallet_id: wallet.id, amount: '3000003', recipient_address: mine.address }]);
    expect(await walletOf(toVariant)).toEqual([{ wallet_id: other.id, amount: '4000004', recipient_address: variant }]);
  }, 60_000);
});

describe('the deposit finder with a signature', () => {
  it('finds a confirmed deposit by its signature before the indexer did: one record, the same when asked again', async () => {
    const to = await child();
    const signature = await pay(usdc, to.address, 6_000_001n);
    slots(2);
    const find = (transactionHash: string) =>
      h.api('POST', `/v1/wallets/${wallet.id}/deposit-finder`, { key: wallet.apiKey, body: { transactionHash } });
    const first = await find(signature);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toMatchObject([{ hash: signature, amount: '6.000001', type: 'DEPOSIT', currency: 'USDC' }]);
    const again = await find(signature);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.data.map((d: { id: string }) => d.id)).toEqual([first.body.data[0].id]);
    expect(await deposits(signature)).toHaveLength(1);
    // The indexer, reaching the block later, credits the same record.
    const indexer = newIndexer();
    await drain(indexer);
    finalize(BigInt((await deposits(signature))[0]!.block_number));
    await drain(indexer);
    expect(await deposits(signature)).toMatchObject([{ id: first.body.data[0].id, status: 'SUCCESS', amount: '6000001' }]);
  });

  it('a base58 string that is no signature (not 64 bytes) names no transaction: 422, not a node error', async () => {
    for (const transactionHash of ['1'.repeat(64), 'z'.repeat(88), 'a'.repeat(64)]) {
      const res = await h.api('POST', `/v1/wallets/${wallet.id}/deposit-finder`, { key: wallet.apiKey, body: { transactionHash } });
      expect(res.status, `${transactionHash}: ${JSON.stringify(res.body)}`).toBe(422);
      expect(res.body.error).toBe('TRANSACTION_NOT_FOUND');
    }
  });
});

describe('the deposit finder across families', () => {
  it('a Solana signature given to an EVM wallet names no transaction there (422), not a node error', async () => {
    const eth = h.wallets['devnet-eth']!;
    const to = await child();
    const signature = await pay(usdc, to.address, 1_000n);
    slots(2);
    const res = await h.api('POST', `/v1/wallets/${eth.id}/deposit-finder`, { key: eth.apiKey, body: { transactionHash: signature } });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error).toBe('TRANSACTION_NOT_FOUND');
  });
});

describe('node calls per block', () => {
  /** Node calls (by JSON-RPC method) the indexer makes to read `blocks` new blocks, each holding a deposit to one of `targets`. */
  async function callsFor(indexer: ChainIndexer, targets: string[], blocks: number): Promise<Record<string, number>> {
    await drain(indexer);
    for (let i = 0; i < blocks; i++) {
      await pay(usdc, targets[i % targets.length]!, 1_000n + BigInt(i));
      slots(1);
    }
    slots(1); // the last one confirmed
    const start = proxy.calls.length;
    await drain(indexer);
    const counts: Record<string, number> = {};
    for (const method of proxy.calls.slice(start)) counts[method] = (counts[method] ?? 0) + 1;
    return counts;
  }

  it('the same calls for 1 and for 200 watched owners: one getBlock per block, one getBlocks per range', async () => {
    // A wallet of its own, so the other tests' addresses do not count.
    const w = await createWallet(SLUG, 'count');
    const indexer = newIndexer();
    const one = [(await child(w)).address];
    const few = await callsFor(indexer, one, 4);
    const many = [...one];
    while (many.length < 200) many.push((await child(w)).address);
    const lots = await callsFor(indexer, many.slice(-4), 4);
    expect(lots).toEqual(few);
    // 5 new blocks (4 deposits and the one confirming the last): one getBlock each.
    // Five blocks to read (the newest of the last drain, unconfirmed then, and the four new
    // ones up to the confirmed slot): one getBlocks for the range, one getBlock per block
    // and one for the cursor's block (is it still there?), getSlot for the confirmed and
    // finalized heads and the idle step's head.
    expect(few).toEqual({ getSlot: 3, getBlocks: 1, getBlock: 6 });
    const { rows } = await sql<{ n: string }>`
      SELECT count(*) AS n FROM transactions WHERE type = 'DEPOSIT' AND wallet_id = ${w.id}`.execute(h.database.db);
    expect(Number(rows[0]!.n)).toBe(8);
  }, 60_000);
});
