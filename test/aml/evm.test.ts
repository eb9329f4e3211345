/**
 * AML screening on an EVM chain, through HTTP against the real service, devnet and
 * PostgreSQL (docs/aml.md): the lookup; payouts to a blacklisted (Circle's list, read on
 * the devnet USDC) and a sanctioned (the devnet sanctions oracle) address refused with
 * nothing signed, for every kind of payout (a token permit's spender too); the OFAC list imported from a sample SDN file
 * with the real CLI, replaced while the service runs, a removed address paid again; a
 * deposit from a listed sender credited, FLAGGED, held from its sweep until released (its
 * native coin never paying another sweep's fee, and nothing held once a reorg took it); an
 * HTTP provider that times out blocking payouts (fail closed) and showing in /readyz; and
 * 1,000 lookups costing a handful of node calls.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletClient, encodeFunctionData, erc20Abi, http, parseUnits, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { devnetChain } from '../../src/devnet/chain.js';
import { setDevnetBlacklisted, setDevnetSanctioned } from '../../src/devnet/sanctions.js';
import { EvmAdapter } from '../../src/chains/evm/adapter.js';
import { AmlService, httpProvider } from '../../src/modules/aml/service.js';
import { createLogger } from '../../src/lib/logger.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';
import { startProviderDouble, type ProviderDouble } from '../support/aml-provider.js';
import { verifyWebhook } from '../../packages/sdk/src/webhooks/index.js';
import { permit } from '../signing/eip712-example.js';
import { amlImport, blockedAudit, LISTED, lookup, lookupUntil, REMOVED, SDN, SDN_NEXT, seedOf, written } from './support.js';

const SLUG = 'devnet-eth';
let h: Harness;
let c: TestChain;
let receiver: Receiver;
let double: ProviderDouble;
let wallet: { id: string; apiKey: string; address: string };
let usdc: { id: string; address: Address };
const random = () => privateKeyToAccount(`0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')}` as Hex).address;

beforeAll(async () => {
  double = await startProviderDouble();
  h = await startHarness({
    specs: [DEVNET_CHAINS[0]!],
    worker: true,
    services: {
      outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 },
      amlProviders: [httpProvider({ kind: 'chainalysis', url: double.url, apiKey: double.apiKey })],
    },
    // No answer is reused (list changes show at once); a provider is tried again at once.
    aml: { timeoutMs: 3_000, cacheTtlMs: 0, retryMs: 0, http: null },
  });
  c = chainOf(h, SLUG);
  receiver = await startReceiver();
  wallet = h.wallets[SLUG]!;
  await h.api('PATCH', `/v1/wallets/${wallet.id}`, { key: wallet.apiKey, body: { webhookUrl: receiver.url } });
  const asset = h.services.catalogue.findChain(SLUG, 'testnet')!.assets.find((a) => a.symbol === 'USDC')!;
  usdc = { id: asset.id, address: asset.address as Address };
  await c.sendToken('USDC', wallet.address, '1000');
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await h?.stop();
  await double?.stop();
});

const pay = (to: string, body: Record<string, unknown> = {}, path = 'withdraw') =>
  h.api('POST', `/v1/wallets/${wallet.id}/${path}`, { key: wallet.apiKey, body: { assetId: usdc.id, amount: '1', address: to, ...body } });

describe('AML screening on EVM', () => {
  it('looks an address up: every provider in force, a 400 naming a bad address or an unknown chain', async () => {
    const clean = await lookup(h, wallet.apiKey, wallet.id, random());
    expect(clean).toMatchObject({ isBlacklisted: false, status: 'CLEAR', lists: [], failed: [] });
    expect(clean.provider.split(', ').sort()).toEqual(['chainalysis', 'circle', 'sanctions-oracle', 'tether']);
    const business = await h.api('GET', `/v1/aml/lookup?address=${random()}&blockchain=${SLUG}`, { key: h.businessKey });
    expect(business.status).toBe(200);
    expect(business.body).toMatchObject({
      message: 'Anti Money Laundering lookup',
      statusCode: 200,
      data: { blockchain: SLUG, network: 'testnet' },
    });
    const bad = await h.api('GET', `/v1/aml/lookup?address=0x1234&blockchain=${SLUG}`, { key: h.businessKey });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].field).toBe('address');
    const unknown = await h.api('GET', `/v1/aml/lookup?address=${random()}&blockchain=no-such-chain`, { key: h.businessKey });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details[0].field).toBe('blockchain');
    const missing = await h.api('GET', `/v1/aml/lookup?address=${random()}`, { key: h.businessKey });
    expect(missing.status).toBe(400);
    expect(missing.body.details[0].field).toBe('blockchain');
    // The wallet shows what screens it.
    const w = await h.api('GET', `/v1/wallets/${wallet.id}`, { key: wallet.apiKey });
    expect(w.body.data.configurations.aml).toMatchObject({ onDepositHit: 'HOLD', onProviderFailure: 'BLOCK' });
    expect(w.body.data.configurations.aml.providers).toContain('sanctions-oracle');
  });

  it('refuses a blacklisted and a sanctioned recipient, in every kind of payout, with nothing signed and the attempt audited', async () => {
    const blacklisted = random();
    const sanctioned = random();
    await setDevnetBlacklisted(c.config.rpcUrl, c.config.chainId, usdc.address, blacklisted);
    await setDevnetSanctioned(c.config.rpcUrl, c.config.chainId, [sanctioned]);
    const child = (await h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body: {} })).body.data as { id: string };
    const before = await written(h);
    const nonce = await c.pub.getTransactionCount({ address: wallet.address as Address });

    const one = await pay(blacklisted);
    expect(one.status).toBe(422);
    expect(one.body.error).toBe('AML_BLOCKED');
    expect(one.body.message).toContain("Circle's blacklist");
    expect(one.body.details).toEqual([{ field: 'address', message: 'on circle' }]);
    const two = await pay(sanctioned);
    expect(two.status).toBe(422);
    expect(two.body.message).toContain('the sanctions oracle');
    const batch = await h.api('POST', `/v1/wallets/${wallet.id}/withdraw`, {
      key: wallet.apiKey,
      body: {
        assets: [
          { id: usdc.id, amount: '1', address: random() },
          { id: usdc.id, amount: '1', address: sanctioned },
        ],
      },
    });
    expect(batch.status).toBe(422);
    expect(batch.body.details[0].field).toBe('assets.1.address');
    const signOnly = await h.api('POST', `/v1/wallets/${wallet.id}/addresses/${child.id}/withdraw/sign`, {
      key: wallet.apiKey,
      body: { assetId: usdc.id, amount: '1', address: blacklisted },
    });
    expect(signOnly.status).toBe(422);
    expect(signOnly.body.error).toBe('AML_BLOCKED');
    const contract = await h.api('POST', `/v1/wallets/${wallet.id}/contracts/write`, {
      key: wallet.apiKey,
      body: { address: usdc.address, method: 'transfer', parameters: [sanctioned, '1000000'], abi: erc20Abi },
    });
    expect(contract.status, JSON.stringify(contract.body)).toBe(422);
    expect(contract.body.error).toBe('AML_BLOCKED');
    // A permit is an approve signed off chain: its spender is screened before the key signs.
    const permitted = await h.api('POST', `/v1/wallets/${wallet.id}/signing/typed-data`, {
      key: wallet.apiKey,
      body: permit(usdc.address, c.config.chainId, wallet.address, sanctioned, '1000000'),
    });
    expect(permitted.status, JSON.stringify(permitted.body)).toBe(422);
    expect(permitted.body.error).toBe('AML_BLOCKED');
    expect(permitted.body.details).toEqual([{ field: 'message.spender', message: 'on sanctions-oracle' }]);
    const beneficiary = await h.api('POST', `/v1/wallets/${wallet.id}/beneficiaries`, {
      key: wallet.apiKey,
      body: { name: 'listed', address: sanctioned, isWhitelisted: true },
    });
    expect(beneficiary.status).toBe(422);
    expect(beneficiary.body.details[0].field).toBe('address');
    const rule = await h.api('POST', `/v1/wallets/${wallet.id}/auto-settlements/rules`, {
      key: wallet.apiKey,
      body: {
        name: 'to a listed address',
        source: { assets: ['USDC'], blockchain: SLUG },
        destination: { asset: 'USDC', address: blacklisted, blockchain: SLUG },
      },
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(422);
    expect(rule.body.details[0].field).toBe('destination.address');
    const watched = await h.api('POST', `/v1/wallets/${wallet.id}/addresses/whitelist`, {
      key: wallet.apiKey,
      body: { address: blacklisted },
    });
    expect(watched.status, JSON.stringify(watched.body)).toBe(422);
    expect(watched.body.error).toBe('AML_BLOCKED');

    // Nothing reserved, signed or sent; each attempt in the audit log.
    const after = await written(h);
    expect({ ...after, blocked: 0 }).toEqual({ ...before, blocked: 0 });
    expect(after.blocked - before.blocked).toBe(9);
    expect(await c.pub.getTransactionCount({ address: wallet.address as Address })).toBe(nonce);
    const [latest] = await blockedAudit(h);
    expect(latest!.actor).toMatch(/^api-key:/);
    expect(latest!.details.operation).toBe('address-whitelist');
    expect(latest!.details.hits).toEqual([{ address: blacklisted, field: 'address', lists: ['circle'] }]);

    // Off the lists again: paid.
    await setDevnetBlacklisted(c.config.rpcUrl, c.config.chainId, usdc.address, blacklisted, false);
    const paid = await pay(blacklisted);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.data.amlScreening).toMatchObject({ status: 'CLEAR', isBlacklisted: false });
  });

  it('imports the OFAC list from an SDN file with the CLI, replaces it while running, and pays a removed address again', async () => {
    const first = await amlImport(h, SDN);
    expect(first).toMatchObject({ list: 'ofac', format: 'sdn-xml', publishedAt: '2026-03-14', entries: 8 });
    const listed = await lookupUntil(h, wallet.apiKey, wallet.id, REMOVED.evm, true);
    expect(listed.lists).toEqual(['ofac']);
    expect(listed.message).toContain('the OFAC SDN list');
    const refused = await pay(REMOVED.evm);
    expect(refused.status).toBe(422);
    expect(refused.body.message).toContain('OFAC');

    const next = await amlImport(h, SDN_NEXT);
    expect(next).toMatchObject({ publishedAt: '2026-03-21', entries: 4, replaced: 8 });
    await lookupUntil(h, wallet.apiKey, wallet.id, REMOVED.evm, false);
    expect((await lookup(h, wallet.apiKey, wallet.id, LISTED.evm)).lists).toEqual(['ofac']);
    const paid = await pay(REMOVED.evm);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    await eventually(
      () => c.balanceOf('USDC', REMOVED.evm),
      (b) => b === parseUnits('1', 6),
      30_000,
    );
  });

  it('credits a deposit from a listed sender, FLAGGED and held from its sweep until released, then sweeps it', async () => {
    // The sender is on the OFAC list (sdn-next.xml, imported above).
    const sender = privateKeyToAccount(`0x${Buffer.from(seedOf('listed-sender')).toString('hex')}`);
    expect(sender.address).toBe(LISTED.evm);
    await c.rpc('anvil_setBalance', [sender.address, '0x56BC75E2D63100000']);
    await c.sendToken('USDC', sender.address, '50');
    const child = (await h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body: {} })).body.data as {
      id: string;
      address: Address;
    };
    const payer = createWalletClient({
      chain: devnetChain(c.config.chainId, c.config.rpcUrl),
      transport: http(c.config.rpcUrl),
      account: sender,
    });
    const hash = await payer.sendTransaction({
      to: usdc.address,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [child.address, parseUnits('25', 6)] }),
    });
    await c.pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    await c.mine(3);
    const indexer = h.services.deposits.indexer(h.services.catalogue.findChain(SLUG, 'testnet')!);
    const id = await eventually(
      async () => {
        await indexer.step();
        const { rows } = await sql<{ id: string; status: string }>`
          SELECT id, status FROM transactions WHERE type = 'DEPOSIT' AND hash = ${hash}`.execute(h.database.db);
        return rows;
      },
      (r) => r[0]?.status === 'SUCCESS',
      30_000,
    ).then((r) => r[0]!.id);
    const get = async () => (await h.api('GET', `/v1/wallets/${wallet.id}/transactions/${id}`, { key: wallet.apiKey })).body.data;
    const deposit = await get();
    expect(deposit.status).toBe('SUCCESS');
    expect(deposit.amount).toBe('25');
    expect(deposit.amlScreening).toMatchObject({ status: 'FLAGGED', isBlacklisted: true, lists: ['ofac'], held: true });

    // The webhook shows the screening.
    const success = await eventually(
      async () =>
        receiver.requests
          .map((r) => verifyWebhook<Record<string, any>>({ body: r.body, headers: r.headers, apiKey: wallet.apiKey, replay: false }))
          .find((e) => e.event === 'deposit.success' && e.data.id === id),
      (e) => e !== undefined,
      20_000,
    );
    expect(success!.data.amlScreening).toMatchObject({ status: 'FLAGGED', held: true });

    // Not swept: the sweep job ran and left it; a manual sweep is refused.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await c.balanceOf('USDC', child.address)).toBe(parseUnits('25', 6));
    const manual = await h.api('POST', `/v1/wallets/${wallet.id}/transactions/sweep/assets`, {
      key: wallet.apiKey,
      body: { transactionId: id },
    });
    expect(manual.status, JSON.stringify(manual.body)).toBe(422);
    expect(manual.body.error).toBe('AML_HELD');

    // Released by an operator (a business key; a wallet key may not), then swept.
    const byWalletKey = await h.api('POST', `/v1/wallets/${wallet.id}/transactions/${id}/aml/release`, { key: wallet.apiKey });
    expect(byWalletKey.status).toBe(403);
    const released = await h.api('POST', `/v1/wallets/${wallet.id}/transactions/${id}/aml/release`, { key: h.businessKey });
    expect(released.status, JSON.stringify(released.body)).toBe(200);
    expect(released.body.data.amlScreening).toMatchObject({ status: 'FLAGGED', held: false });
    expect(released.body.data.amlScreening.releasedBy).toMatch(/^api-key:/);
    const again = await h.api('POST', `/v1/wallets/${wallet.id}/transactions/${id}/aml/release`, { key: h.businessKey });
    expect(again.status).toBe(409);
    const swept = await eventually(get, (t) => t.assetSwept === true, 60_000);
    expect(swept.assetSweptRecipientAddress).toBe(wallet.address);
    expect(await c.balanceOf('USDC', child.address)).toBe(0n);
    const { rows } = await sql`SELECT 1 FROM audit_log WHERE action = 'aml.released' AND target_id = ${id}`.execute(h.database.db);
    expect(rows.length).toBe(1);
  });

  it('never pays a token sweep’s network fee from native coin held from a listed sender: the master tops the child up', async () => {
    const sender = privateKeyToAccount(`0x${Buffer.from(seedOf('listed-sender')).toString('hex')}`);
    const child = (await h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body: {} })).body.data as {
      id: string;
      address: Address;
    };
    const indexer = h.services.deposits.indexer(h.services.catalogue.findChain(SLUG, 'testnet')!);
    const depositOf = (hash: string) =>
      eventually(
        async () => {
          await indexer.step();
          const { rows } = await sql<{ id: string; status: string }>`
            SELECT id, status FROM transactions WHERE type = 'DEPOSIT' AND hash = ${hash}`.execute(h.database.db);
          return rows;
        },
        (r) => r[0]?.status === 'SUCCESS',
        30_000,
      ).then((r) => r[0]!.id);

    // 0.05 ETH from the listed sender: credited and held (enough to pay a token transfer's gas many times over).
    const eth = h.services.catalogue.findChain(SLUG, 'testnet')!.assets.find((a) => a.is_native)!;
    const enabled = await h.api('PATCH', `/v1/wallets/${wallet.id}/assets/${eth.id}`, { key: wallet.apiKey, body: { isActive: true } });
    expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);
    await c.rpc('anvil_setBalance', [sender.address, '0x56BC75E2D63100000']);
    const payer = createWalletClient({
      chain: devnetChain(c.config.chainId, c.config.rpcUrl),
      transport: http(c.config.rpcUrl),
      account: sender,
    });
    const heldHash = await payer.sendTransaction({ to: child.address, value: parseUnits('0.05', 18) });
    await c.pub.waitForTransactionReceipt({ hash: heldHash, pollingInterval: 50 });
    await c.mine(3);
    const heldId = await depositOf(heldHash);
    const get = async (id: string) => (await h.api('GET', `/v1/wallets/${wallet.id}/transactions/${id}`, { key: wallet.apiKey })).body.data;
    expect((await get(heldId)).amlScreening).toMatchObject({ status: 'FLAGGED', held: true });

    // Then USDC from a clean sender: swept to the master as usual.
    const clean = await c.sendToken('USDC', child.address, '10');
    await c.mine(3);
    const cleanId = await depositOf(clean.transactionHash);
    await eventually(
      () => get(cleanId),
      (t) => t.assetSwept === true,
      60_000,
    );
    expect(await c.balanceOf('USDC', child.address)).toBe(0n);
    // The held coin is all still there: the sweep's gas came from a top-up by the master.
    expect(await c.pub.getBalance({ address: child.address })).toBeGreaterThanOrEqual(parseUnits('0.05', 18));
    const { rows } = await sql<{ topup_outbound_id: string | null }>`
      SELECT s.topup_outbound_id FROM sweeps s JOIN transactions t ON t.sweep_id = s.id WHERE t.id = ${cleanId}`.execute(h.database.db);
    expect(rows[0]?.topup_outbound_id).not.toBeNull();
  });

  it('a held deposit reorged away (FAILED) no longer holds its address: the next deposit there is swept', async () => {
    const sender = privateKeyToAccount(`0x${Buffer.from(seedOf('listed-sender')).toString('hex')}`);
    await c.rpc('anvil_setBalance', [sender.address, '0x56BC75E2D63100000']);
    await c.sendToken('USDC', sender.address, '5');
    const child = (await h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body: {} })).body.data as {
      id: string;
      address: Address;
    };
    const indexer = h.services.deposits.indexer(h.services.catalogue.findChain(SLUG, 'testnet')!);
    const recorded = (hash: string, status: string) =>
      eventually(
        async () => {
          await indexer.step();
          const { rows } = await sql<{ id: string; status: string; aml_held: boolean }>`
            SELECT id, status, aml_held FROM transactions WHERE type = 'DEPOSIT' AND hash = ${hash}`.execute(h.database.db);
          return rows;
        },
        (r) => r[0]?.status === status,
        30_000,
      ).then((r) => r[0]!);

    const snap = await c.snapshot();
    const payer = createWalletClient({
      chain: devnetChain(c.config.chainId, c.config.rpcUrl),
      transport: http(c.config.rpcUrl),
      account: sender,
    });
    const flaggedHash = await payer.sendTransaction({
      to: usdc.address,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [child.address, parseUnits('5', 6)] }),
    });
    await c.pub.waitForTransactionReceipt({ hash: flaggedHash, pollingInterval: 50 });
    // Recorded while its block can still be replaced: PENDING, held.
    expect(await recorded(flaggedHash, 'PENDING')).toMatchObject({ aml_held: true });
    await c.revert(snap);
    await c.sendFiller();
    await c.mine(3);
    expect(await recorded(flaggedHash, 'FAILED')).toMatchObject({ aml_held: true });

    const clean = await c.sendToken('USDC', child.address, '7');
    await c.mine(3);
    const { id } = await recorded(clean.transactionHash, 'SUCCESS');
    const get = async () => (await h.api('GET', `/v1/wallets/${wallet.id}/transactions/${id}`, { key: wallet.apiKey })).body.data;
    await eventually(get, (t) => t.assetSwept === true, 30_000);
    expect(await c.balanceOf('USDC', child.address)).toBe(0n);
  });

  it('keeps a held deposit at its child address from the wallet key: a withdrawal from the child spends only what is not held', async () => {
    const sender = privateKeyToAccount(`0x${Buffer.from(seedOf('listed-sender')).toString('hex')}`);
    await c.rpc('anvil_setBalance', [sender.address, '0x56BC75E2D63100000']);
    await c.sendToken('USDC', sender.address, '25');
    const child = (await h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body: {} })).body.data as {
      id: string;
      address: Address;
    };
    const indexer = h.services.deposits.indexer(h.services.catalogue.findChain(SLUG, 'testnet')!);
    const confirmed = (hash: string) =>
      eventually(
        async () => {
          await indexer.step();
          const { rows } = await sql<{ id: string; status: string; aml_held: boolean }>`
            SELECT id, status, aml_held FROM transactions WHERE type = 'DEPOSIT' AND hash = ${hash}`.execute(h.database.db);
          return rows;
        },
        (r) => r[0]?.status === 'SUCCESS',
        30_000,
      ).then((r) => r[0]!);
    const payer = createWalletClient({
      chain: devnetChain(c.config.chainId, c.config.rpcUrl),
      transport: http(c.config.rpcUrl),
      account: sender,
    });
    const flaggedHash = await payer.sendTransaction({
      to: usdc.address,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [child.address, parseUnits('25', 6)] }),
    });
    await c.pub.waitForTransactionReceipt({ hash: flaggedHash, pollingInterval: 50 });
    await c.mine(3);
    expect(await confirmed(flaggedHash)).toMatchObject({ aml_held: true });
    // A clean deposit beside it: not swept either (the address holds a held deposit of the asset).
    const clean = await c.sendToken('USDC', child.address, '10');
    await c.mine(3);
    expect(await confirmed(clean.transactionHash)).toMatchObject({ aml_held: false });
    // The child pays its own gas on EVM.
    await c.rpc('anvil_setBalance', [child.address, '0x16345785D8A0000']);
    expect(await c.balanceOf('USDC', child.address)).toBe(parseUnits('35', 6));

    const fromChild = (amount: string) =>
      h.api('POST', `/v1/wallets/${wallet.id}/addresses/${child.id}/withdraw`, {
        key: wallet.apiKey,
        body: { assetId: usdc.id, amount, address: random() },
      });
    // The held 25 USDC are not the wallet key's to move: only an operator's release frees them.
    const refused = await fromChild('35');
    expect(refused.status, JSON.stringify(refused.body)).toBe(422);
    expect(refused.body.error).toBe('INSUFFICIENT_BALANCE');
    expect((await fromChild('10.000001')).status).toBe(422);
    const allowed = await fromChild('10');
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
  });

  it('tops up the gas of a child’s swap its held native coin would have paid, as a sweep’s: the swap is accepted', async () => {
    const sender = privateKeyToAccount(`0x${Buffer.from(seedOf('listed-sender')).toString('hex')}`);
    await c.rpc('anvil_setBalance', [sender.address, '0x56BC75E2D63100000']);
    const chain = h.services.catalogue.findChain(SLUG, 'testnet')!;
    const eth = chain.assets.find((a) => a.is_native)!;
    const usdt = chain.assets.find((a) => a.symbol === 'USDT')!;
    const enabled = await h.api('PATCH', `/v1/wallets/${wallet.id}/assets/${eth.id}`, { key: wallet.apiKey, body: { isActive: true } });
    expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);
    const child = (await h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body: { disableAutoSweep: true } })).body
      .data as { id: string; address: Address };
    const indexer = h.services.deposits.indexer(chain);
    const payer = createWalletClient({
      chain: devnetChain(c.config.chainId, c.config.rpcUrl),
      transport: http(c.config.rpcUrl),
      account: sender,
    });
    // 0.05 ETH from the listed sender, held: ample gas on chain, none of it the wallet's to spend.
    const heldHash = await payer.sendTransaction({ to: child.address, value: parseUnits('0.05', 18) });
    await c.pub.waitForTransactionReceipt({ hash: heldHash, pollingInterval: 50 });
    await c.mine(3);
    const held = await eventually(
      async () => {
        await indexer.step();
        const { rows } = await sql<{ status: string; aml_held: boolean }>`
          SELECT status, aml_held FROM transactions WHERE type = 'DEPOSIT' AND hash = ${heldHash}`.execute(h.database.db);
        return rows;
      },
      (r) => r[0]?.status === 'SUCCESS',
      30_000,
    );
    expect(held[0]).toMatchObject({ aml_held: true });
    await c.sendToken('USDC', child.address, '20');

    const swap = await h.api('POST', `/v1/wallets/${wallet.id}/addresses/${child.id}/swaps/execute`, {
      key: wallet.apiKey,
      body: { fromAssetId: usdc.id, toAssetId: usdt.id, amount: '10' },
    });
    expect(
      { status: swap.status, code: swap.body.error },
      `refused, its top-up reckoned as if the held coin paid the gas: ${swap.body.message}`,
    ).toEqual({ status: 200, code: undefined });
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM outbound_txs WHERE from_address = ${wallet.address} AND purpose = 'swap-topup'
         AND to_address = ${child.address}`.execute(h.database.db);
    expect(rows[0]!.n).toBe(1);
    // Its legs run to the end (their confirmations need blocks: one per look), the held coin untouched.
    const done = await eventually(
      async () => {
        await c.mine();
        return (await h.api('GET', `/v1/wallets/${wallet.id}/transactions/${swap.body.data.id}`, { key: wallet.apiKey })).body.data;
      },
      (t) => t.status !== 'PENDING',
      30_000,
    );
    expect(done.status).toBe('SUCCESS');
    expect(await c.pub.getBalance({ address: child.address })).toBeGreaterThanOrEqual(parseUnits('0.05', 18));
  });

  it('blocks payouts while a provider times out (fail closed), shows it in /readyz, and lets them through NOT_SCREENED when the wallet allows', async () => {
    double.mode = 'hang';
    try {
      const before = await written(h);
      const refused = await pay(random());
      expect(refused.status, JSON.stringify(refused.body)).toBe(503);
      expect(refused.body.error).toBe('AML_UNAVAILABLE');
      expect(refused.body.message).toContain('chainalysis: timed out');
      expect({ ...(await written(h)), blocked: 0 }).toEqual({ ...before, blocked: 0 });
      const lookedUp = await lookup(h, wallet.apiKey, wallet.id, random());
      expect(lookedUp).toMatchObject({ status: 'NOT_SCREENED', failed: ['chainalysis'] });

      const ready = await fetch(`${h.baseUrl}/readyz`).then((r) => r.json() as Promise<Record<string, any>>);
      const provider = ready.aml.providers.find(
        (p: { provider: string; chain: string }) => p.provider === 'chainalysis' && p.chain.startsWith(SLUG),
      );
      expect(provider).toMatchObject({ status: 'failing' });
      expect(provider.lastError).toContain('timed out');

      // Relaxing the setting takes the business key.
      const patch = { configurations: { aml: { onProviderFailure: 'ALLOW' } } };
      expect((await h.api('PATCH', `/v1/wallets/${wallet.id}`, { key: wallet.apiKey, body: patch })).status).toBe(403);
      const relaxed = await h.api('PATCH', `/v1/wallets/${wallet.id}`, { key: h.businessKey, body: patch });
      expect(relaxed.status).toBe(200);
      expect(relaxed.body.data.configurations.aml.onProviderFailure).toBe('ALLOW');
      const through = await pay(random());
      expect(through.status, JSON.stringify(through.body)).toBe(200);
      expect(through.body.data.amlScreening).toMatchObject({ status: 'NOT_SCREENED', failed: ['chainalysis'] });
      // Stricter again: any key.
      expect(
        (
          await h.api('PATCH', `/v1/wallets/${wallet.id}`, {
            key: wallet.apiKey,
            body: { configurations: { aml: { onProviderFailure: 'BLOCK' } } },
          })
        ).status,
      ).toBe(200);
    } finally {
      double.mode = 'ok';
    }
    expect((await pay(random())).status).toBe(200);
    const ready = await fetch(`${h.baseUrl}/readyz`).then((r) => r.json() as Promise<Record<string, any>>);
    expect(ready.aml.providers.find((p: { provider: string }) => p.provider === 'chainalysis').status).toBe('ok');
  });

  it('a swap and a contract write let through unscreened on a wallet that allows it are marked NOT_SCREENED, as a withdrawal is', async () => {
    const relaxed = await h.api('PATCH', `/v1/wallets/${wallet.id}`, {
      key: h.businessKey,
      body: { configurations: { aml: { onProviderFailure: 'ALLOW' } } },
    });
    expect(relaxed.status).toBe(200);
    double.mode = 'error';
    try {
      const usdt = h.services.catalogue.findChain(SLUG, 'testnet')!.assets.find((a) => a.symbol === 'USDT')!;
      const swap = await h.api('POST', `/v1/wallets/${wallet.id}/swaps/execute`, {
        key: wallet.apiKey,
        body: { fromAssetId: usdc.id, toAssetId: usdt.id, amount: '1', recipientAddress: random() },
      });
      expect(swap.status, JSON.stringify(swap.body)).toBe(200);
      const contract = await h.api('POST', `/v1/wallets/${wallet.id}/contracts/write`, {
        key: wallet.apiKey,
        body: { address: usdc.address, method: 'transfer', parameters: [random(), '1000000'], abi: erc20Abi },
      });
      expect(contract.status, JSON.stringify(contract.body)).toBe(200);
      for (const id of [swap.body.data.id, contract.body.data.id]) {
        const t = (await h.api('GET', `/v1/wallets/${wallet.id}/transactions/${id}`, { key: wallet.apiKey })).body.data;
        expect(t.amlScreening, `${t.type} ${id}`).toMatchObject({ status: 'NOT_SCREENED', failed: ['chainalysis'] });
      }
    } finally {
      double.mode = 'ok';
      await h.api('PATCH', `/v1/wallets/${wallet.id}`, {
        key: wallet.apiKey,
        body: { configurations: { aml: { onProviderFailure: 'BLOCK' } } },
      });
    }
  });

  it('an unscreened deposit an operator released and that was swept stays released when the re-screen finds its sender listed', async () => {
    const sender = privateKeyToAccount(`0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')}` as Hex);
    await c.rpc('anvil_setBalance', [sender.address, '0x56BC75E2D63100000']);
    await c.sendToken('USDC', sender.address, '20');
    const child = (await h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body: {} })).body.data as {
      id: string;
      address: Address;
    };
    const indexer = h.services.deposits.indexer(h.services.catalogue.findChain(SLUG, 'testnet')!);
    const confirmed = (hash: string) =>
      eventually(
        async () => {
          await indexer.step();
          const { rows } = await sql<{ id: string; status: string; aml_held: boolean }>`
            SELECT id, status, aml_held FROM transactions WHERE type = 'DEPOSIT' AND hash = ${hash}`.execute(h.database.db);
          return rows;
        },
        (r) => r[0]?.status === 'SUCCESS',
        30_000,
      ).then((r) => r[0]!);
    const get = async (id: string) => (await h.api('GET', `/v1/wallets/${wallet.id}/transactions/${id}`, { key: wallet.apiKey })).body.data;
    const payer = createWalletClient({
      chain: devnetChain(c.config.chainId, c.config.rpcUrl),
      transport: http(c.config.rpcUrl),
      account: sender,
    });
    // The HTTP provider fails while the deposit is recorded: NOT_SCREENED, held (the wallet fails closed).
    double.mode = 'error';
    let first: { id: string; aml_held: boolean };
    try {
      const hash = await payer.sendTransaction({
        to: usdc.address,
        data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [child.address, parseUnits('20', 6)] }),
      });
      await c.pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      await c.mine(3);
      first = await confirmed(hash);
    } finally {
      double.mode = 'ok';
    }
    expect(first.aml_held).toBe(true);
    expect((await get(first.id)).amlScreening).toMatchObject({ status: 'NOT_SCREENED', held: true });
    // An operator releases it; it is swept.
    const released = await h.api('POST', `/v1/wallets/${wallet.id}/transactions/${first.id}/aml/release`, { key: h.businessKey });
    expect(released.status, JSON.stringify(released.body)).toBe(200);
    await eventually(
      () => get(first.id),
      (t) => t.assetSwept === true,
      30_000,
    );

    // The re-screen (the job, run here) now finds the sender listed: what it found is recorded,
    // but the operator's release stands (the money already left the address).
    double.listed.add(sender.address);
    await h.services.aml.rescreenDeposits([first.id]);
    const after = await get(first.id);
    expect(after.amlScreening).toMatchObject({ status: 'FLAGGED', lists: ['chainalysis'], held: false, releasedBy: expect.any(String) });
    const { rows } = await sql<{ aml_held: boolean }>`SELECT aml_held FROM transactions WHERE id = ${first.id}`.execute(h.database.db);
    expect(rows[0]!.aml_held).toBe(false);
    // A clean deposit to the same address afterwards is swept as usual.
    const clean = await c.sendToken('USDC', child.address, '3');
    await c.mine(3);
    const second = await confirmed(clean.transactionHash);
    await eventually(
      () => get(second.id),
      (t) => t.assetSwept === true,
      30_000,
    );
  });

  it('1,000 lookups at once cost a few node calls (Multicall3), whatever their number', async () => {
    let calls = 0;
    const proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (d: Buffer) => chunks.push(d));
      req.on('end', async () => {
        calls += 1;
        const answer = await fetch(c.config.rpcUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: Buffer.concat(chunks),
        });
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(Buffer.from(await answer.arrayBuffer()));
      });
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      const handle = h.services.catalogue.findChain(SLUG, 'testnet')!;
      const rpcUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const counted = { ...handle, id: `${handle.id}-counted`, adapter: new EvmAdapter({ ...handle.config, rpcUrl }) };
      const addresses = Array.from({ length: 1_000 }, random);
      const sanctioned = addresses[421]!;
      await setDevnetSanctioned(c.config.rpcUrl, c.config.chainId, [sanctioned]);
      // A screening service of the on-chain lists alone, with a generous timeout: what is
      // counted is node calls, and under a loaded machine (a suite beside it, 2 cores) a
      // 500-lookup aggregate through the proxy in this process could pass the harness's 3 s
      // while the HTTP double's 1,000 requests shared the same event loop.
      const s = h.services;
      const onChain = new AmlService(
        {
          db: s.db,
          catalogue: s.catalogue,
          wallets: s.wallets,
          transactions: s.transactions,
          audit: s.audit,
          events: s.events,
          changes: s.changes,
          logger: createLogger('silent'),
        },
        { timeoutMs: 60_000, cacheTtlMs: 0, retryMs: 0 },
      );
      expect(onChain.providersOf(counted)).toEqual(['circle', 'tether', 'sanctions-oracle']);
      const results = await Promise.all(addresses.map((a) => onChain.screen(counted, [a]).then((r) => r[0]!)));
      expect(results.flatMap((r) => r.failed)).toEqual([]);
      expect(results.filter((r) => r.status === 'FLAGGED').map((r) => r.address)).toEqual([sanctioned]);
      // 3 on-chain lists (tether, circle, the oracle), 1,000 addresses: batches of at most 500
      // lookups, 400 calls an aggregate3, so a few eth_calls each.
      expect(calls).toBeGreaterThan(0);
      expect(calls).toBeLessThanOrEqual(12);
    } finally {
      proxy.close();
    }
  });
});
