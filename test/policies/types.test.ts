/**
 * Policies on the other kinds of payout: a sign-only withdrawal (SIGN_ONLY) is refused before
 * anything is signed, a contract write (CONTRACT_WRITE) by what it moves, an API swap (SWAP)
 * and an asset recovery (SALVAGE) before anything is reserved or written (neither can wait
 * for approval), and an auto-settlement (AUTO_SETTLEMENT, initiated by the service) fails
 * with the rule's reason before anything is sent. Typed data is signed as a CONTRACT_WRITE:
 * a token permit as the approve it is, anything else as no amount to its verifying contract.
 */
import { sql } from 'kysely';
import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ABI } from '../contracts/support.js';
import { eventually } from '../support/fixtures.js';
import { uuidv7 } from '../../src/lib/ids.js';
import type { ApprovalSpec } from '../../src/modules/policies/rules.js';
import { insertPolicy } from '../../src/modules/policies/store.js';
import { randomAddress } from '../withdrawals/world.js';
import { CONTRACT, mail, permit } from '../signing/eip712-example.js';
import { getAddress } from 'viem';
import { ETH, footprint, fundedWallet, policy, startPolicyWorld, type PolicyWorld } from './world.js';

let w: PolicyWorld;

beforeAll(async () => {
  w = await startPolicyWorld();
}, 120_000);
afterAll(async () => {
  await w?.stop();
});

describe('policies on other payouts', () => {
  it('sign-only withdrawals: a SIGN_ONLY rule refuses before signing; a WITHDRAW rule does not apply', async () => {
    const wallet = await fundedWallet(w, 'sign-only', '50');
    await policy(w, {
      name: 'no signatures over 10',
      priority: 1,
      walletId: wallet.id,
      conditions: { types: ['SIGN_ONLY'], amount: { min: '10', currency: 'ASSET' } },
      action: 'BLOCK',
    });
    await policy(w, {
      name: 'broadcast payouts held',
      priority: 2,
      walletId: wallet.id,
      conditions: { types: ['WITHDRAW'] },
      action: 'BLOCK',
    });
    const sign = (amount: string) =>
      w.h.api('POST', `/v1/wallets/${wallet.id}/withdraw/sign`, {
        key: wallet.apiKey,
        body: { assetId: w.usdc.id, address: randomAddress(), amount },
      });
    const refused = await sign('11');
    expect(refused.status).toBe(422);
    expect(refused.body.error).toBe('POLICY_BLOCKED');
    expect(refused.body.message).toContain('no signatures over 10');
    expect((await footprint(w, wallet.id)).transactions).toBe(0);
    const signed = await sign('5');
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    expect(signed.body.data).toMatchObject({ type: 'SIGNED', status: 'SUCCESS' });
    const broadcast = await w.h.api('POST', `/v1/wallets/${wallet.id}/withdraw`, {
      key: wallet.apiKey,
      body: { assetId: w.usdc.id, address: randomAddress(), amount: '5' },
    });
    expect(broadcast.body.message).toContain('broadcast payouts held');
  });

  it('contract writes: judged by what the call moves', async () => {
    const wallet = await fundedWallet(w, 'contracts', '50');
    const rule = await policy(w, {
      name: 'contract transfers of 10 USDC or more',
      priority: 1,
      walletId: wallet.id,
      conditions: { types: ['CONTRACT_WRITE'], assets: ['USDC'], amount: { min: '10', currency: 'ASSET' } },
      action: 'BLOCK',
    });
    const usdc = w.eth.token('USDC').address;
    const write = (units: string) =>
      w.h.api('POST', `/v1/wallets/${wallet.id}/contracts/write`, {
        key: wallet.apiKey,
        body: { calls: [{ address: usdc, method: 'transfer', parameters: [randomAddress(), units], abi: [ABI.transfer] }] },
      });
    const big = await write('20000000');
    expect(big.status).toBe(422);
    expect(big.body.error).toBe('POLICY_BLOCKED');
    expect(big.body.details[0]).toEqual({ field: 'calls.0', message: `blocked by policy ${rule.id}` });
    expect(await footprint(w, wallet.id)).toEqual({ transactions: 0, outbound: 0, approvals: 0 });
    const small = await write('5000000');
    expect(small.status, JSON.stringify(small.body)).toBe(200);
    expect(small.body.data).toMatchObject({ type: 'CUSTOM_SMART_CONTRACT', status: 'PENDING' });
  });

  it('typed data: a permit is weighed as the approve it is, other typed data as a call to its contract', async () => {
    const wallet = await fundedWallet(w, 'typed-data', '50');
    const big = await policy(w, {
      name: 'no permits of 10 USDC or more',
      priority: 1,
      walletId: wallet.id,
      conditions: { types: ['CONTRACT_WRITE'], assets: ['USDC'], amount: { min: '10', currency: 'ASSET' } },
      action: 'BLOCK',
    });
    await policy(w, {
      name: 'one signature for the mail contract',
      priority: 2,
      walletId: wallet.id,
      conditions: { types: ['CONTRACT_WRITE'], velocity: { measure: 'COUNT', scope: 'DESTINATION', windowSeconds: 86_400, limit: '1' } },
      action: 'BLOCK',
    });
    const spender = getAddress(randomAddress());
    const permit = (value: string, owner = wallet.address) => signTyped(wallet, permitOf(owner, spender, value));
    const refused = await permit('20000000');
    expect(refused.status, JSON.stringify(refused.body)).toBe(422);
    expect(refused.body.error).toBe('POLICY_BLOCKED');
    expect(refused.body.details[0]).toEqual({ field: 'message', message: `blocked by policy ${big.id}` });
    expect(await footprint(w, wallet.id)).toEqual({ transactions: 0, outbound: 0, approvals: 0 });
    // Another owner's permit grants nothing of the wallet's: no amount, judged as a call to the token.
    const foreign = await permit('20000000', randomAddress());
    expect(foreign.status, JSON.stringify(foreign.body)).toBe(200);
    const small = await permit('5000000');
    expect(small.status, JSON.stringify(small.body)).toBe(200);
    expect(small.body.data).toMatchObject({ type: 'SIGNED', status: 'SUCCESS' });
    const { rows } = await sql<{ policy_type: string; policy_amount: string; policy_destination: string }>`
      SELECT policy_type, policy_amount::text, policy_destination FROM transactions WHERE id = ${small.body.data.id}`.execute(
      w.h.database.db,
    );
    expect(rows[0]).toEqual({ policy_type: 'CONTRACT_WRITE', policy_amount: '5000000', policy_destination: spender });
    // Typed data that is no permit: one signature for its contract, then its window is full.
    const sign = () => signTyped(wallet, mail());
    expect((await sign()).status).toBe(200);
    const second = await sign();
    expect(second.status).toBe(422);
    expect(second.body.message).toContain('one signature for the mail contract');
    const { rows: mailRows } = await sql<{ n: string }>`
      SELECT count(*)::text AS n FROM transactions WHERE wallet_id = ${wallet.id} AND policy_destination = ${CONTRACT}`.execute(
      w.h.database.db,
    );
    expect(mailRows[0]!.n).toBe('1');
  });

  it('typed data: a USDC transfer authorisation is a transfer; authorisations obey the chain, the whitelist and the contract-write setting', async () => {
    const wallet = await fundedWallet(w, 'typed-data-rules', '50');
    await policy(w, {
      name: 'contract transfers: 10 USDC a day',
      priority: 1,
      walletId: wallet.id,
      conditions: {
        types: ['CONTRACT_WRITE'],
        assets: ['USDC'],
        velocity: { measure: 'SUM', scope: 'WALLET', windowSeconds: 86_400, limit: '10', currency: 'ASSET' },
      },
      action: 'BLOCK',
    });
    const to = getAddress(randomAddress());
    const authorise = (value: string) =>
      signTyped(wallet, {
        domain: { name: 'USD Coin', version: '2', chainId: 31337, verifyingContract: w.eth.token('USDC').address },
        types: {
          TransferWithAuthorization: [
            { name: 'from', type: 'address' },
            { name: 'to', type: 'address' },
            { name: 'value', type: 'uint256' },
            { name: 'validAfter', type: 'uint256' },
            { name: 'validBefore', type: 'uint256' },
            { name: 'nonce', type: 'bytes32' },
          ],
        },
        message: { from: wallet.address, to, value, validAfter: 0, validBefore: 1_900_000_000, nonce: `0x${'22'.repeat(32)}` },
      });
    expect((await authorise('6000000')).status).toBe(200);
    const over = await authorise('6000000');
    expect(over.status).toBe(422);
    expect(over.body.message).toContain('contract transfers: 10 USDC a day');

    // Another chain's permit: the service weighs nothing there.
    const otherChain = await signTyped(wallet, {
      ...permitOf(wallet.address, to, '1'),
      domain: { ...permitOf(wallet.address, to, '1').domain, chainId: 1 },
    });
    expect(otherChain.status).toBe(400);
    expect(otherChain.body.details[0].field).toBe('domain.chainId');
    // With a whitelist, a permit's spender must be on it, as an approve's is.
    const listed = await w.h.api('POST', `/v1/wallets/${wallet.id}/beneficiaries`, {
      key: wallet.apiKey,
      body: { name: 'payee', address: randomAddress(), isWhitelisted: true },
    });
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    const notListed = await signTyped(wallet, permitOf(wallet.address, to, '1'));
    expect(notListed.status).toBe(422);
    expect(notListed.body.error).toBe('NOT_WHITELISTED');
    // Contract writes switched off: no typed data either.
    const off = await w.h.api('PATCH', `/v1/wallets/${wallet.id}`, {
      key: wallet.apiKey,
      body: { configurations: { contractWrites: { isActive: false, allowedContracts: [] } } },
    });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    const disabled = await signTyped(wallet, mail());
    expect([disabled.status, disabled.body.error]).toEqual([422, 'CONTRACT_WRITES_DISABLED']);
    const { rows } = await sql<{ n: string }>`SELECT count(*)::text AS n FROM transactions WHERE wallet_id = ${wallet.id}`.execute(
      w.h.database.db,
    );
    expect(rows[0]!.n).toBe('1');
  });

  it('API swaps: a SWAP rule refuses before anything is reserved or written; the dry run says the same', async () => {
    const wallet = await fundedWallet(w, 'swaps', '50');
    const usdt = w.h.services.catalogue.findChain(ETH, 'testnet')!.assets.find((a) => a.symbol === 'USDT')!.id;
    const rule = await policy(w, {
      name: 'no swaps of 10 USDC or more',
      priority: 1,
      walletId: wallet.id,
      conditions: { types: ['SWAP'], assets: ['USDC'], amount: { min: '10', currency: 'ASSET' } },
      action: 'BLOCK',
    });
    const recipient = randomAddress();
    const swap = (amount: string) =>
      w.h.api('POST', `/v1/wallets/${wallet.id}/swaps/execute`, {
        key: wallet.apiKey,
        body: { fromAssetId: w.usdc.id, toAssetId: usdt, amount, recipientAddress: recipient },
      });
    const dry = await w.h.api('POST', '/v1/policies/evaluate', {
      key: w.manager.apiKey,
      body: { type: 'SWAP', walletId: wallet.id, assetId: w.usdc.id, amount: '20', address: recipient },
    });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body.data).toMatchObject({ action: 'BLOCK', policy: { id: rule.id } });

    const refused = await swap('20');
    expect(refused.status, JSON.stringify(refused.body)).toBe(422);
    expect(refused.body.error).toBe('POLICY_BLOCKED');
    expect(refused.body.message).toContain('no swaps of 10 USDC or more');
    expect(refused.body.details[0]).toEqual({ field: 'amount', message: `blocked by policy ${rule.id}` });
    expect(await footprint(w, wallet.id)).toEqual({ transactions: 0, outbound: 0, approvals: 0 });
    const swaps = await sql<{ n: string }>`SELECT count(*)::text AS n FROM swaps WHERE wallet_id = ${wallet.id}`.execute(w.h.database.db);
    expect(swaps.rows[0]!.n).toBe('0');
    expect(await w.eth.balanceOf('USDC', wallet.address)).toBe(50_000_000n);
    expect(await w.eth.balanceOf('USDT', wallet.address)).toBe(0n);
    expect(await w.eth.balanceOf('USDT', recipient)).toBe(0n);

    const allowed = await swap('5');
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    expect(allowed.body.data).toMatchObject({ type: 'SWAP', status: 'PENDING' });
  });

  it('recoveries: a rule holding SALVAGE for approval refuses it (it cannot wait), writing nothing', async () => {
    const wallet = await fundedWallet(w, 'salvage', '0');
    const child = await w.h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body: { disableAutoSweep: true } });
    const address = (child.body.data as { address: Address }).address;
    await w.eth.rpc('anvil_setBalance', [address, '0xDE0B6B3A7640000']); // 1 ETH left at the child
    const approval: ApprovalSpec = { approvers: { roles: ['owner'] }, quorum: 1, ttlSeconds: 600 };
    const body = {
      name: 'recoveries held',
      priority: 1,
      walletId: wallet.id,
      conditions: { types: ['SALVAGE'] },
      action: 'REQUIRE_APPROVAL',
      approval,
    };
    // The API never writes such a rule (only withdrawals can wait)...
    const created = await w.h.api('POST', '/v1/policies', { key: w.manager.apiKey, body });
    expect(created.status).toBe(400);
    expect(created.body.details[0].field).toBe('conditions.types');
    // ...one written by hand (a restored backup, an older version) still cannot hold a recovery.
    const rule = await insertPolicy(w.h.database.db, uuidv7(), w.h.businessId, {
      walletId: wallet.id,
      addressId: null,
      name: body.name,
      priority: 1,
      isActive: true,
      conditions: { types: ['SALVAGE'] },
      action: 'REQUIRE_APPROVAL',
      approval,
    });
    const recipient = randomAddress();
    const salvage = () =>
      w.h.api('POST', `/v1/wallets/${wallet.id}/salvage`, {
        key: wallet.apiKey,
        body: {
          senderAddress: address,
          recipientAddress: recipient,
          amount: '0.5',
          blockchainId: w.h.services.catalogue.findChain(ETH, 'testnet')!.row.blockchain_id,
        },
      });
    const refused = await salvage();
    expect(refused.status, JSON.stringify(refused.body)).toBe(422);
    expect(refused.body.error).toBe('POLICY_BLOCKED');
    expect(refused.body.message).toContain('recoveries held');
    expect(refused.body.message).toContain('cannot wait for');
    expect(refused.body.details[0]).toEqual({ field: 'amount', message: `blocked by policy ${rule.id}` });
    expect(await footprint(w, wallet.id)).toEqual({ transactions: 0, outbound: 0, approvals: 0 });
    expect(await w.eth.pub.getBalance({ address })).toBe(10n ** 18n);
    expect(await w.eth.pub.getBalance({ address: recipient as Address })).toBe(0n);

    // Without the rule, the same recovery goes ahead.
    expect((await w.h.api('DELETE', `/v1/policies/${rule.id}`, { key: w.manager.apiKey })).status).toBe(200);
    const allowed = await salvage();
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    expect(allowed.body.data).toMatchObject({ type: 'SALVAGE', status: 'PENDING' });
  });

  it('auto-settlements: a rule on AUTO_SETTLEMENT fails the settlement before anything is sent', { timeout: 90_000 }, async () => {
    const wallet = await fundedWallet(w, 'auto-settlement', '0');
    expect(
      (await w.h.api('PATCH', `/v1/wallets/${wallet.id}/auto-settlements`, { key: wallet.apiKey, body: { isActive: true } })).status,
    ).toBe(200);
    const child = await w.h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body: { disableAutoSweep: true } });
    const address = child.body.data as { id: string; address: string };
    await w.eth.rpc('anvil_setBalance', [address.address, '0x56BC75E2D63100000']);
    const dest = randomAddress();
    const rule = await w.h.api('POST', `/v1/wallets/${wallet.id}/addresses/${address.id}/auto-settlements/rules`, {
      key: wallet.apiKey,
      body: {
        name: 'forward',
        order: 'RECOMMENDED',
        slippageTolerance: '1',
        source: { assets: ['USDC'], blockchain: ETH, minAmount: '0', maxAmount: null },
        destination: { asset: 'USDC', address: dest, blockchain: ETH },
      },
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(200);
    await policy(w, {
      name: 'no automatic forwarding',
      priority: 1,
      walletId: wallet.id,
      conditions: { types: ['AUTO_SETTLEMENT'], initiators: { system: true } },
      action: 'BLOCK',
    });

    await w.eth.sendToken('USDC', address.address, '25');
    await w.eth.mine(5);
    const indexer = w.h.services.deposits.indexer(w.h.services.catalogue.findChain(ETH, 'testnet')!);
    for (let i = 0; i < 1000 && (await indexer.step()) !== 'idle'; i++);
    const settled = await eventually(
      async () =>
        (
          await sql<{ status: string; error: string | null }>`
            SELECT s.status, s.error FROM auto_settlements s JOIN transactions d ON d.id = s.deposit_id
             WHERE d.wallet_id = ${wallet.id}`.execute(w.h.database.db)
        ).rows,
      (rows) => rows.length === 1 && rows[0]!.status !== 'pending',
      60_000,
    );
    expect(settled[0]!.status).toBe('failed');
    expect(settled[0]!.error).toContain('no automatic forwarding');
    expect(await w.eth.balanceOf('USDC', dest)).toBe(0n);
    expect(await w.eth.balanceOf('USDC', address.address)).toBe(25_000_000n);
    expect((await footprint(w, wallet.id)).outbound).toBe(0);
  });
});

function signTyped(wallet: { id: string; apiKey: string }, body: unknown) {
  return w.h.api('POST', `/v1/wallets/${wallet.id}/signing/typed-data`, { key: wallet.apiKey, body });
}

/** An EIP-2612 permit of the devnet's USDC. */
function permitOf(owner: string, spender: string, value: string) {
  return permit(w.eth.token('USDC').address, 31337, getAddress(owner), spender, value);
}
