/**
 * Asset recovery (salvage) through HTTP on the EVM devnets (issue 27, 2): an unlisted ERC-20
 * at a child address, native coin left at a child, funds sent on the other devnet to an
 * address of ours, and funds on an EVM chain the installation does not configure, named by
 * an RPC URL; each with its fee funded (a top-up from the master) or paid by the sender, the
 * SALVAGE Transaction and its webhook, and the balances on chain exact to the base unit.
 * Refusals write nothing.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import { createPublicClient, erc20Abi, getAddress, http, parseAbi, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { loadArtifact } from '../../src/devnet/compile.js';
import { startAnvil, type AnvilHandle } from '../../src/devnet/anvil.js';
import { verifyWebhook } from '../../packages/sdk/src/webhooks/index.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';
import { addressKey } from '../../src/chains/address-key.js';

let h: Harness;
let receiver: Receiver;
let eth: TestChain;
let bsc: TestChain;
let lost: Address;
let foreign: AnvilHandle;

const wallet = () => h.wallets['devnet-eth']!;
const base = () => `/v1/wallets/${wallet().id}`;
const fresh = () => privateKeyToAccount(generatePrivateKey()).address;
const mintAbi = parseAbi(['function mint(address to, uint256 amount)']);

beforeAll(async () => {
  h = await startHarness({ worker: true, services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 } } });
  receiver = await startReceiver();
  eth = chainOf(h, 'devnet-eth');
  bsc = chainOf(h, 'devnet-bsc');
  expect((await h.api('PATCH', base(), { body: { webhookUrl: receiver.url } })).status).toBe(200);
  // A token nobody listed: 9 decimals, minted to the faucet.
  const art = (await loadArtifact('TestToken'))!;
  const hash = await eth.wallet.deployContract({
    abi: art.abi,
    bytecode: art.bytecode as Hex,
    args: ['Lost Token', 'LOST', 9],
    chain: null,
  });
  lost = getAddress((await eth.pub.waitForTransactionReceipt({ hash })).contractAddress!);
  await eth.pub.waitForTransactionReceipt({
    hash: await eth.wallet.writeContract({
      address: lost,
      abi: mintAbi,
      functionName: 'mint',
      args: [eth.faucet, 10n ** 24n],
      chain: null,
    }),
  });
  foreign = await startAnvil({ chainId: 31_999, port: 0 });
}, 90_000);
afterAll(async () => {
  await foreign?.stop();
  await receiver?.close();
  await h?.stop();
});

async function child() {
  const res = await h.api('POST', `${base()}/addresses`, { body: { disableAutoSweep: true } });
  expect(res.status).toBe(200);
  return res.body.data as { id: string; address: Address };
}
const blockchainId = (c: TestChain) => h.services.catalogue.findChain(c.config.blockchain.slug, 'testnet')!.row.blockchain_id;
const lostOf = (owner: string) =>
  eth.pub.readContract({ address: lost, abi: erc20Abi, functionName: 'balanceOf', args: [owner as Address] });
const nativeOf = (c: TestChain, owner: string) => c.pub.getBalance({ address: owner as Address });

async function settledTx(id: string) {
  return eventually(
    async () => (await h.api('GET', `${base()}/transactions/${id}`)).body.data as Record<string, any>,
    (t) => t.status !== 'PENDING',
    30_000,
  );
}
async function eventOf(id: string, name: string) {
  const read = async () =>
    receiver.requests
      .filter((r) => r.body.includes(id))
      .map((r) => verifyWebhook<Record<string, any>>({ body: r.body, headers: r.headers, apiKey: wallet().apiKey, replay: false }))
      .filter((e) => e.event === name && e.data.id === id);
  return (await eventually(read, (l) => l.length > 0, 15_000))[0]!;
}
async function rowsOf(id: string) {
  const { rows } = await sql<{ purpose: string; stage: string; hash: string; from_address: string; value: string }>`
    SELECT purpose, stage, hash, from_address, value FROM outbound_txs WHERE owner_id = ${id} ORDER BY created_at, id`.execute(
    h.database.db,
  );
  return rows;
}
/** What a mined transaction cost its sender (gas used x price). */
async function costOf(c: TestChain, hash: string) {
  const r = await c.pub.getTransactionReceipt({ hash: hash as Hex });
  return r.gasUsed * r.effectiveGasPrice;
}
/** The unlisted token sent to `to` (lost there: the wallet does not list it). */
async function sendLost(to: Address, amount: bigint) {
  await eth.pub.waitForTransactionReceipt({
    hash: await eth.wallet.writeContract({ address: lost, abi: erc20Abi, functionName: 'transfer', args: [to, amount], chain: null }),
  });
}
/** 1 ETH at `address` on the chain no installation configures (the one tests name by rpcUrl). */
async function oneEtherOnForeign(address: string) {
  await fetch(foreign.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_setBalance', params: [address, '0xDE0B6B3A7640000'] }),
  });
}
async function counts() {
  const { rows } = await sql<{ t: string; o: string }>`
    SELECT (SELECT count(*) FROM transactions) AS t, (SELECT count(*) FROM outbound_txs) AS o`.execute(h.database.db);
  return rows[0];
}

describe('an unlisted token at a child address', () => {
  it('network-fee shows the balances and fee; the salvage tops the child up, moves exactly the amount and ends salvage.success', async () => {
    const c = await child();
    await sendLost(c.address, 12_345_000_001n);
    const to = fresh();
    const body = {
      senderAddress: c.address,
      recipientAddress: to,
      amount: '12.345000001',
      blockchainId: blockchainId(eth),
      tokenAddress: lost,
    };
    const fee = await h.api('POST', `${base()}/salvage/network-fee`, { body });
    expect(fee.status, JSON.stringify(fee.body)).toBe(200);
    expect(fee.body.data).toMatchObject({ balance: '0', tokenBalance: '12.345000001' });
    expect(Number(fee.body.data.fee)).toBeGreaterThan(0);

    const masterBefore = await nativeOf(eth, wallet().address);
    const res = await h.api('POST', `${base()}/salvage`, { body: { ...body, reference: 'lost-1', metadata: { ticket: 7 } } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({
      type: 'SALVAGE',
      status: 'PENDING',
      amount: '12.345000001',
      tokenAddress: lost,
      asset: null,
      reference: 'lost-1',
    });
    const done = await settledTx(res.body.data.id);
    expect(done.status, JSON.stringify(done)).toBe('SUCCESS');
    expect(done.metadata).toMatchObject({ ticket: 7, salvage: { crossNetwork: false, funding: 'transfer', wholeBalance: true } });
    expect(await lostOf(to)).toBe(12_345_000_001n);
    expect(await lostOf(c.address)).toBe(0n);
    const rows = await rowsOf(done.id);
    expect(rows.map((r) => [r.purpose, r.stage])).toEqual([
      ['salvage-topup', 'mined'],
      ['salvage', 'mined'],
    ]);
    const [topup, transfer] = rows;
    // The master paid exactly the top-up and its fee; the child spent only what it was sent.
    expect(await nativeOf(eth, wallet().address)).toBe(masterBefore - BigInt(topup!.value) - (await costOf(eth, topup!.hash)));
    expect(await nativeOf(eth, c.address)).toBe(BigInt(topup!.value) - (await costOf(eth, transfer!.hash)));
    expect(done.hash).toBe(transfer!.hash);
    const event = await eventOf(done.id, 'salvage.success');
    expect(event.data).toMatchObject({ type: 'SALVAGE', status: 'SUCCESS', amount: '12.345000001' });
    const listed = await h.api('GET', `${base()}/transactions?type=SALVAGE`);
    expect(listed.body.data.map((t: { id: string }) => t.id)).toContain(done.id);
  });
});

describe('native coin left at a child address', () => {
  it('moves exactly the amount; the child lacks its fee, so the master tops it up', async () => {
    const c = await child();
    await eth.sendNative(c.address, '0.5');
    const to = fresh();
    const res = await h.api('POST', `${base()}/salvage`, {
      body: { senderAddress: c.address, recipientAddress: to, amount: '0.5', blockchainId: blockchainId(eth) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const done = await settledTx(res.body.data.id);
    expect(done.status, JSON.stringify(done)).toBe('SUCCESS');
    expect(done.asset.symbol).toBe('ETH');
    expect(await nativeOf(eth, to)).toBe(5n * 10n ** 17n);
    const [topup, transfer] = await rowsOf(done.id);
    expect(topup!.purpose).toBe('salvage-topup');
    expect(await nativeOf(eth, c.address)).toBe(BigInt(topup!.value) - (await costOf(eth, transfer!.hash)));
    await eventOf(done.id, 'salvage.success');
  });
});

describe('funds sent on the other devnet to an address of ours', () => {
  it('blockchainId names devnet-bsc: the same key recovers the token there through that chain', async () => {
    const c = await child();
    // The eth wallet's master pays the child's top-up on devnet-bsc: give it some BNB there.
    await bsc.rpc('anvil_setBalance', [wallet().address, '0xDE0B6B3A7640000']);
    await bsc.sendToken('USDT', c.address, '7.000000000000000001');
    const to = fresh();
    const res = await h.api('POST', `${base()}/salvage`, {
      body: {
        senderAddress: c.address,
        recipientAddress: to,
        amount: '7.000000000000000001',
        blockchainId: blockchainId(bsc),
        tokenAddress: bsc.token('USDT').address,
        crossNetwork: true,
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const done = await settledTx(res.body.data.id);
    expect(done.status, JSON.stringify(done)).toBe('SUCCESS');
    expect(done.blockchain.slug).toBe('devnet-bsc');
    expect(done.asset.symbol).toBe('USDT');
    expect(done.metadata.salvage.crossNetwork).toBe(true);
    expect(await bsc.balanceOf('USDT', to)).toBe(7n * 10n ** 18n + 1n);
    expect(await bsc.balanceOf('USDT', c.address)).toBe(0n);
    await eventOf(done.id, 'salvage.success');
  });

  it('rpcUrl names a chain this installation does not configure: checked, used once, the master pays its own fee', async () => {
    await oneEtherOnForeign(wallet().address);
    const to = fresh();
    const body = {
      senderAddress: wallet().address,
      recipientAddress: to,
      amount: '0.25',
      blockchainId: blockchainId(eth),
      rpcUrl: foreign.rpcUrl,
    };
    const fee = await h.api('POST', `${base()}/salvage/network-fee`, { body });
    expect(fee.status, JSON.stringify(fee.body)).toBe(200);
    expect(fee.body.data.balance).toBe('1');
    const res = await h.api('POST', `${base()}/salvage`, { body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const t = res.body.data;
    expect(t).toMatchObject({ type: 'SALVAGE', status: 'SUCCESS', amount: '0.25' });
    expect(t.metadata.salvage).toMatchObject({ crossNetwork: true, chainId: 31_999 });
    expect(JSON.stringify(t)).not.toContain(foreign.rpcUrl);
    const pub = createPublicClient({ transport: http(foreign.rpcUrl) });
    expect(await pub.getBalance({ address: to })).toBe(25n * 10n ** 16n);
    const receipt = await pub.getTransactionReceipt({ hash: t.hash });
    expect(await pub.getBalance({ address: wallet().address as Address })).toBe(
      10n ** 18n - 25n * 10n ** 16n - receipt.gasUsed * receipt.effectiveGasPrice,
    );
    await eventOf(t.id, 'salvage.success');

    const refused = [
      { ...body, crossNetwork: true },
      { ...body, rpcUrl: 'ftp://127.0.0.1/' },
      { ...body, rpcUrl: 'http://user:secret@127.0.0.1:1/' },
    ];
    for (const b of refused) expect((await h.api('POST', `${base()}/salvage`, { body: b })).status, JSON.stringify(b)).toBe(400);
  });

  it('more recoveries at once on a chain named by rpcUrl than the pool has connections, each of another sender: all paid, the API answering', async () => {
    // A sender's claim must not hold a pool connection while the client's node answers:
    // held in a transaction, 24 recoveries took the pool's 20 connections and each waited
    // for one more to record itself (nothing answered again, other routes included).
    const senders = await Promise.all(Array.from({ length: 24 }, () => child()));
    for (const c of senders) await oneEtherOnForeign(c.address);
    const pub = createPublicClient({ transport: http(foreign.rpcUrl) });
    const recipients = senders.map(() => fresh());
    const answers = await Promise.all(
      senders.map((c, i) =>
        h.api('POST', `${base()}/salvage`, {
          body: {
            senderAddress: c.address,
            recipientAddress: recipients[i],
            amount: '0.01',
            blockchainId: blockchainId(eth),
            rpcUrl: foreign.rpcUrl,
          },
        }),
      ),
    );
    for (const res of answers) expect([res.status, res.body.data?.status], JSON.stringify(res.body)).toEqual([200, 'SUCCESS']);
    for (const to of recipients) expect(await pub.getBalance({ address: to as Address })).toBe(10n ** 16n);
    expect((await h.api('GET', base())).status).toBe(200);
  });

  it("a sender's claim on a chain named by rpcUrl: held, another recovery is 409 with nothing signed; expired, it is taken over", async () => {
    await oneEtherOnForeign(wallet().address);
    const to = fresh();
    const recover = () =>
      h.api('POST', `${base()}/salvage`, {
        body: {
          senderAddress: wallet().address,
          recipientAddress: to,
          amount: '0.01',
          blockchainId: blockchainId(eth),
          rpcUrl: foreign.rpcUrl,
        },
      });
    const pub = createPublicClient({ transport: http(foreign.rpcUrl) });
    const claim = (expires: string) =>
      sql`
      INSERT INTO foreign_salvage_claims (chain_id, sender_key, token, expires_at)
      VALUES (31999, ${addressKey(wallet().address)}, gen_random_uuid(), now() + ${expires}::interval)
      ON CONFLICT (chain_id, sender_key) DO UPDATE SET token = EXCLUDED.token, expires_at = EXCLUDED.expires_at`.execute(h.database.db);
    // Held by a recovery in flight elsewhere (another process).
    await claim('1 minute');
    const before = await counts();
    const signs = vi.spyOn(h.services.signer, 'withKey');
    try {
      const busy = await recover();
      expect([busy.status, busy.body.error], JSON.stringify(busy.body)).toEqual([409, 'SALVAGE_IN_PROGRESS']);
      expect(signs.mock.calls.filter(([walletId]) => walletId === wallet().id)).toEqual([]);
    } finally {
      signs.mockRestore();
    }
    expect(await counts()).toEqual(before);
    expect(await pub.getBalance({ address: to as Address })).toBe(0n);
    // Its holder died: past its expiry the claim is taken over, and released after.
    await claim('-1 second');
    const res = await recover();
    expect([res.status, res.body.data?.status], JSON.stringify(res.body)).toEqual([200, 'SUCCESS']);
    expect(await pub.getBalance({ address: to as Address })).toBe(10n ** 16n);
    const { rows } = await sql`SELECT 1 FROM foreign_salvage_claims WHERE chain_id = 31999`.execute(h.database.db);
    expect(rows).toEqual([]);
  });

  it('recoveries of one sender at once on a chain named by rpcUrl: one signs at a time, the others 409, none FAILED', async () => {
    // No tracker follows a foreign chain: two requests that read the same pending nonce
    // would sign two transfers with it; the node keeps one, the other ended FAILED (or, had
    // it replaced the first, the first stayed PENDING for ever).
    await oneEtherOnForeign(wallet().address);
    const pub = createPublicClient({ transport: http(foreign.rpcUrl) });
    const recover = (to: string) =>
      h.api('POST', `${base()}/salvage`, {
        body: {
          senderAddress: wallet().address,
          recipientAddress: to,
          amount: '0.01',
          blockchainId: blockchainId(eth),
          rpcUrl: foreign.rpcUrl,
        },
      });
    const before = await counts();
    const recipients = [fresh(), fresh(), fresh()];
    const answers = await Promise.all(recipients.map(recover));
    const paid: string[] = [];
    const hashes: Hex[] = [];
    for (const [i, res] of answers.entries()) {
      if (res.status === 409) {
        expect(res.body.error, JSON.stringify(res.body)).toBe('SALVAGE_IN_PROGRESS');
        expect(await pub.getBalance({ address: recipients[i] as Address })).toBe(0n);
        continue;
      }
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data, JSON.stringify(res.body.data)).toMatchObject({ type: 'SALVAGE', status: 'SUCCESS' });
      paid.push(recipients[i]!);
      hashes.push(res.body.data.hash);
    }
    expect(paid.length).toBeGreaterThan(0);
    // Each refused one goes through once sent again.
    for (const [i, res] of answers.entries()) {
      if (res.status !== 409) continue;
      const again = await recover(recipients[i]!);
      expect([again.status, again.body.data?.status], JSON.stringify(again.body)).toEqual([200, 'SUCCESS']);
      paid.push(recipients[i]!);
      hashes.push(again.body.data.hash);
    }
    const nonces = await Promise.all(hashes.map(async (hash) => (await pub.getTransaction({ hash })).nonce));
    expect(new Set(nonces).size).toBe(recipients.length);
    for (const to of recipients) expect(await pub.getBalance({ address: to as Address })).toBe(10n ** 16n);
    // One Transaction per transfer, none left FAILED by a lost nonce race.
    const after = await counts();
    expect(Number(after!.t) - Number(before!.t)).toBe(recipients.length);
  });
});

describe('a client reference already used on the wallet', () => {
  it("a recovery repeating it, or taking a withdrawal's: 409 REFERENCE_IN_USE, nothing written or signed, nothing moved", async () => {
    const c = await child();
    await sendLost(c.address, 5n * 10n ** 9n);
    const recover = (over: Record<string, unknown>) =>
      h.api('POST', `${base()}/salvage`, {
        body: {
          senderAddress: c.address,
          recipientAddress: fresh(),
          amount: '1',
          blockchainId: blockchainId(eth),
          tokenAddress: lost,
          ...over,
        },
      });
    const first = await recover({ reference: 'salvage-ref-1' });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect((await settledTx(first.body.data.id)).status).toBe('SUCCESS');
    // A withdrawal of the master's ETH (enabled on the wallet for it) takes another reference.
    const eth0 = h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.is_native)!.id;
    expect((await h.api('POST', `${base()}/assets`, { body: { assetId: eth0 } })).status).toBe(200);
    const paid = await h.api('POST', `${base()}/withdraw`, {
      body: { assetId: eth0, address: fresh(), amount: '0.001', reference: 'paid-ref-1' },
    });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    await settledTx(paid.body.data.id);

    await oneEtherOnForeign(wallet().address);
    const pub = createPublicClient({ transport: http(foreign.rpcUrl) });
    const before = await counts();
    const held = await lostOf(c.address);
    const onForeign = await pub.getBalance({ address: wallet().address as Address });
    const signs = vi.spyOn(h.services.signer, 'withKey');
    try {
      const cases: [Record<string, unknown>, string][] = [
        [{ reference: 'salvage-ref-1' }, first.body.data.id],
        [{ reference: 'paid-ref-1' }, paid.body.data.id],
        // A chain named by rpcUrl: refused before the transfer is signed.
        [
          { senderAddress: wallet().address, amount: '0.25', tokenAddress: undefined, rpcUrl: foreign.rpcUrl, reference: 'salvage-ref-1' },
          first.body.data.id,
        ],
      ];
      for (const [over, holder] of cases) {
        const res = await recover(over);
        expect([res.status, res.body.error], JSON.stringify(res.body)).toEqual([409, 'REFERENCE_IN_USE']);
        expect(res.body.message).toBe(
          `The reference '${over.reference}' is already used on this wallet by another transaction (${holder})`,
        );
      }
      expect(signs.mock.calls.filter(([walletId]) => walletId === wallet().id)).toEqual([]);
    } finally {
      signs.mockRestore();
    }
    expect(await counts()).toEqual(before);
    expect(await lostOf(c.address)).toBe(held);
    expect(await pub.getBalance({ address: wallet().address as Address })).toBe(onForeign);
  });

  it('two recoveries sent at once with one reference: one is created, the other is 409 REFERENCE_IN_USE', async () => {
    const c = await child();
    await eth.sendNative(c.address, '0.5');
    const before = await counts();
    const body = {
      senderAddress: c.address,
      recipientAddress: fresh(),
      amount: '0.1',
      blockchainId: blockchainId(eth),
      reference: 'salvage-race',
    };
    const [a, b] = await Promise.all([0, 1].map(() => h.api('POST', `${base()}/salvage`, { body })));
    const answers = [a!, b!].map((r) => [r.status, r.body.error ?? null]).sort();
    expect(answers, JSON.stringify([a!.body.message, b!.body.message])).toEqual([
      [200, null],
      [409, 'REFERENCE_IN_USE'],
    ]);
    const created = (a!.status === 200 ? a! : b!).body.data;
    expect(Number((await counts())!.t) - Number(before!.t)).toBe(1);
    expect((await settledTx(created.id)).status).toBe('SUCCESS');
  });
});

describe('refusals write nothing', () => {
  it('an enabled asset, the master native coin, a sender not ours, more than held', async () => {
    const c = await child();
    await eth.sendToken('USDC', c.address, '3');
    const usdcId = eth.token('USDC');
    const walletUsdc = (await h.api('GET', `${base()}/assets`)).body.data.find((a: any) => a.asset.symbol === 'USDC');
    if (walletUsdc && !walletUsdc.isActive) await h.api('PATCH', `${base()}/assets/${walletUsdc.id}`, { body: { isActive: true } });
    const before = await counts();
    const cases: [Record<string, unknown>, number, string][] = [
      [{ senderAddress: c.address, tokenAddress: usdcId.address, amount: '3' }, 422, 'SALVAGE_NOT_NEEDED'],
      [{ senderAddress: wallet().address, amount: '0.1' }, 422, 'SALVAGE_NOT_NEEDED'],
      [{ senderAddress: fresh(), tokenAddress: lost, amount: '1' }, 422, 'SENDER_NOT_IN_WALLET'],
      [{ senderAddress: c.address, tokenAddress: lost, amount: '1' }, 422, 'INSUFFICIENT_BALANCE'],
      [{ senderAddress: c.address, tokenAddress: fresh(), amount: '1' }, 422, 'NOT_A_TOKEN'],
      [{ senderAddress: c.address, tokenAddress: lost, amount: '0' }, 400, 'VALIDATION_ERROR'],
      [{ senderAddress: 'nope', tokenAddress: lost, amount: '1' }, 400, 'VALIDATION_ERROR'],
      // A catalogued token's contract as the recipient: what is sent there is lost.
      [{ senderAddress: c.address, tokenAddress: lost, amount: '1', recipientAddress: usdcId.address }, 400, 'VALIDATION_ERROR'],
    ];
    for (const [over, status, code] of cases) {
      const res = await h.api('POST', `${base()}/salvage`, {
        body: { recipientAddress: fresh(), blockchainId: blockchainId(eth), ...over },
      });
      expect([res.status, res.body.error], JSON.stringify(over)).toEqual([status, code]);
    }
    expect(await counts()).toEqual(before);
  });
});
