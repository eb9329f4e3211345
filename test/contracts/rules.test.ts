/**
 * Contract writes that move the wallet's funds obey the withdrawal rules: the beneficiary
 * whitelist for transfer, transferFrom, approve, increaseAllowance and native value, judged
 * by the calldata's selector (an ABI that lies about the name changes nothing), and the
 * wallet's contract-write setting (off, or an allow-list). Refusals write nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erc20Abi, getAddress, type Address } from 'viem';
import {
  approve,
  chainOf,
  erc20,
  sendAs,
  child,
  expectRefused,
  freshWallet,
  increaseAllowance,
  randomAddress,
  settled,
  startRulesHarness,
  transfer,
  transferFrom,
  units,
  usdcOf,
  whitelist,
  withdraw,
  write,
  written,
  ETH,
  type Harness,
} from './rules-world.js';
import { ABI, call, TRY_AGGREGATE } from './support.js';

let h: Harness;

beforeAll(async () => {
  h = await startRulesHarness();
});
afterAll(async () => {
  await h?.stop();
});

const allowanceOf = (owner: string, spender: string) =>
  chainOf(h, ETH).pub.readContract({
    address: usdcOf(h),
    abi: erc20Abi,
    functionName: 'allowance',
    args: [owner as Address, spender as Address],
  });

describe('the whitelist applies to contract writes that move the wallet funds', () => {
  it('transfer: to a non-whitelisted address is 422 NOT_WHITELISTED and writes nothing; to the beneficiary it is sent', async () => {
    const w = await freshWallet(h);
    const beneficiary = randomAddress();
    await whitelist(h, w, beneficiary);
    const other = randomAddress();
    expectRefused(await withdraw(h, w, other, '10'), 422, 'NOT_WHITELISTED');

    const before = await written(h, w);
    const refused = await write(h, w, [transfer(h, other, 10)]);
    expectRefused(refused, 422, 'NOT_WHITELISTED');
    expect(refused.body.message).toContain(other);
    expect(refused.body.details).toEqual([{ field: 'calls.0', message: 'not a whitelisted beneficiary' }]);
    expect(await written(h, w)).toEqual(before);

    const ok = await write(h, w, [transfer(h, beneficiary, 10)]);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    await settled(h, w, ok.body.data.id);
    expect(await chainOf(h, ETH).balanceOf('USDC', beneficiary)).toBe(10_000_000n);
  });

  // (The zero address too, where the token's own code does not refuse it first, as the devnet's does: 422 CONTRACT_REVERTED.)
  it("transfer: to a precompiled contract or the token's own contract is a 400 that writes nothing", async () => {
    const w = await freshWallet(h);
    const before = await written(h, w);
    const cases: [string, string][] = [
      ['0x0000000000000000000000000000000000000004', "the recipient is a precompiled contract's address (0x…01 to 0x…3ff are reserved)"],
      [getAddress(usdcOf(h)), 'the recipient is the contract of USDC'],
    ];
    for (const [to, message] of cases) {
      const refused = await write(h, w, [transfer(h, to, 1)]);
      expectRefused(refused, 400, 'VALIDATION_ERROR');
      expect(refused.body.details, to).toEqual([{ field: 'calls.0', message }]);
    }
    expect(await written(h, w)).toEqual(before);
  });

  it('approve and increaseAllowance: the spender must be whitelisted; revoking (0) needs nothing', async () => {
    const w = await freshWallet(h);
    const beneficiary = randomAddress();
    await whitelist(h, w, beneficiary);
    const other = randomAddress();
    const before = await written(h, w);
    for (const c of [approve(h, other, 1), increaseAllowance(h, other, 1)]) {
      expectRefused(await write(h, w, [c]), 422, 'NOT_WHITELISTED');
    }
    expect(await written(h, w)).toEqual(before);

    const granted = await write(h, w, [approve(h, beneficiary, 5), increaseAllowance(h, beneficiary, 2)]);
    expect(granted.status, JSON.stringify(granted.body)).toBe(200);
    for (const t of granted.body.data) await settled(h, w, t.id);
    expect(await allowanceOf(w.address, beneficiary)).toBe(7_000_000n);

    // Setting an allowance to 0 moves nothing: allowed for anyone.
    const revoked = await write(h, w, [approve(h, other, 0), approve(h, beneficiary, 0)]);
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    for (const t of revoked.body.data) await settled(h, w, t.id);
    expect(await allowanceOf(w.address, beneficiary)).toBe(0n);
  });

  it('transferFrom: a child pulling from the master obeys the whitelist', async () => {
    const w = await freshWallet(h);
    const c = await child(h, w);
    const beneficiary = randomAddress();
    await whitelist(h, w, beneficiary);
    // The wallet's own addresses cannot be beneficiaries, so with a whitelist the master
    // cannot approve its child through the service: the allowance was granted on chain
    // (before these rules, or with the key used elsewhere).
    await sendAs(chainOf(h, ETH), w.address, usdcOf(h), erc20('approve', [c.address, 30_000_000n]));

    const before = await written(h, w);
    expectRefused(await write(h, w, [transferFrom(h, w.address, randomAddress(), 10)], { addressId: c.id }), 422, 'NOT_WHITELISTED');
    expectRefused(
      await write(h, w, [transferFrom(h, w.address, randomAddress(), 10)], { addressId: c.id, sign: true }),
      422,
      'NOT_WHITELISTED',
    );
    expect(await written(h, w)).toEqual(before);

    const ok = await write(h, w, [transferFrom(h, w.address, beneficiary, 30)], { addressId: c.id });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    await settled(h, w, ok.body.data.id);
    expect(await chainOf(h, ETH).balanceOf('USDC', beneficiary)).toBe(30_000_000n);
    expect(await chainOf(h, ETH).balanceOf('USDC', w.address)).toBe(70_000_000n);
  });

  it('native value: the receiving contract must be whitelisted; a non-payable function cannot take value', async () => {
    const w = await freshWallet(h, '0');
    const chain = chainOf(h, ETH);
    const multicall = chain.config.multicall3 as Address;
    await whitelist(h, w, randomAddress());
    const payable = { address: multicall, method: 'tryAggregate', parameters: [false, []], abi: [TRY_AGGREGATE], value: '0.25' };

    const before = await written(h, w);
    expectRefused(await write(h, w, [payable]), 422, 'NOT_WHITELISTED');
    const nonPayable = await write(h, w, [{ ...transfer(h, randomAddress(), 0), value: '1' }]);
    expectRefused(nonPayable, 400, 'VALIDATION_ERROR');
    expect(nonPayable.body.details[0].field).toBe('calls.0.value');
    expectRefused(await write(h, w, [{ ...payable, value: '0.1234567890123456789' }]), 400, 'VALIDATION_ERROR');
    expect(await written(h, w)).toEqual(before);

    await whitelist(h, w, multicall);
    const held = await chain.pub.getBalance({ address: multicall });
    const ok = await write(h, w, [payable]);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    await settled(h, w, ok.body.data.id);
    expect(await chain.pub.getBalance({ address: multicall })).toBe(held + 250_000_000_000_000_000n);
  });

  it('a child address is held to the same rules, for write and write/sign', async () => {
    const w = await freshWallet(h, '0');
    const c = await child(h, w);
    await chainOf(h, ETH).sendToken('USDC', c.address, '5');
    await whitelist(h, w, randomAddress());
    const before = await written(h, w);
    for (const sign of [false, true]) {
      expectRefused(await write(h, w, [transfer(h, randomAddress(), 1)], { addressId: c.id, sign }), 422, 'NOT_WHITELISTED');
      expectRefused(await write(h, w, [approve(h, randomAddress(), 1)], { addressId: c.id, sign }), 422, 'NOT_WHITELISTED');
    }
    expect(await written(h, w)).toEqual(before);
  });

  it('decreaseAllowance only lowers what a spender may take: the whitelist does not apply', async () => {
    const w = await freshWallet(h);
    await whitelist(h, w, randomAddress());
    // decreaseAllowance only lowers what a spender may take.
    const dec = {
      address: usdcOf(h),
      method: 'decreaseAllowance(address,uint256)',
      parameters: [randomAddress(), '0'],
      abi: [{ ...ABI.approve, name: 'decreaseAllowance' }],
    };
    const ok = await write(h, w, [dec]);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    await settled(h, w, ok.body.data.id);
  });
});

describe('an ABI that lies about the function', () => {
  it("is judged by the selector: sign_szabo_bytecode(bytes16,uint128) is approve's 0x095ea7b3", async () => {
    const w = await freshWallet(h);
    await whitelist(h, w, randomAddress());
    const lying = {
      address: usdcOf(h),
      method: 'sign_szabo_bytecode',
      // As the token reads it: approve(0xdeadbeef00000000000000000000000000000000, 100 USDC).
      parameters: ['0x000000000000000000000000deadbeef', units(100)],
      abi: [
        {
          type: 'function',
          name: 'sign_szabo_bytecode',
          stateMutability: 'nonpayable',
          inputs: [
            { name: 'a', type: 'bytes16' },
            { name: 'b', type: 'uint128' },
          ],
          outputs: [],
        },
      ],
    };
    const spender = getAddress(`0xdeadbeef${'0'.repeat(32)}`);
    const before = await written(h, w);
    const refused = await write(h, w, [lying]);
    expectRefused(refused, 422, 'NOT_WHITELISTED');
    expect(refused.body.message.toLowerCase()).toContain(spender.toLowerCase());
    expect(await written(h, w)).toEqual(before);

    // Once the "spender" is whitelisted the call goes through, and it is an approve as far
    // as the reservation goes: the 100 USDC it lets go are no longer available.
    await whitelist(h, w, spender);
    const ok = await write(h, w, [lying]);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    await settled(h, w, ok.body.data.id);
    expect(await allowanceOf(w.address, spender)).toBe(100_000_000n);
    expectRefused(await withdraw(h, w, spender, '1'), 422, 'INSUFFICIENT_BALANCE');
  });

  it("many_msg_babbage(bytes1) has transfer's selector but not its arguments: 400, nothing written", async () => {
    const w = await freshWallet(h);
    const lying = {
      address: usdcOf(h),
      method: 'many_msg_babbage',
      parameters: ['0x01'],
      abi: [
        { type: 'function', name: 'many_msg_babbage', stateMutability: 'nonpayable', inputs: [{ name: 'x', type: 'bytes1' }], outputs: [] },
      ],
    };
    const before = await written(h, w);
    const res = await write(h, w, [lying]);
    expectRefused(res, 400, 'VALIDATION_ERROR');
    expect(res.body.message).toContain('transfer(address,uint256)');
    expect(await written(h, w)).toEqual(before);
  });
});

describe('the wallet setting configurations.contractWrites', () => {
  const patch = (w: { id: string }, contractWrites: unknown, key: string) =>
    h.api('PATCH', `/v1/wallets/${w.id}`, { key, body: { configurations: { contractWrites } } });

  it('is on and unrestricted by default; switched off, every write variant is 422 CONTRACT_WRITES_DISABLED while reads work', async () => {
    const w = await freshWallet(h);
    const c = await child(h, w);
    const got = await h.api('GET', `/v1/wallets/${w.id}`, { key: w.apiKey });
    expect(got.body.data.configurations.contractWrites).toEqual({ isActive: true, allowedContracts: [] });

    // A wallet key may switch writes off (a restriction)...
    const off = await patch(w, { isActive: false }, w.apiKey);
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body.data.configurations.contractWrites).toEqual({ isActive: false, allowedContracts: [] });
    const before = await written(h, w);
    const refused = await write(h, w, [transfer(h, randomAddress(), 1)]);
    expectRefused(refused, 422, 'CONTRACT_WRITES_DISABLED');
    expectRefused(await write(h, w, [transfer(h, randomAddress(), 1)], { addressId: c.id }), 422, 'CONTRACT_WRITES_DISABLED');
    expectRefused(await write(h, w, [transfer(h, randomAddress(), 1)], { addressId: c.id, sign: true }), 422, 'CONTRACT_WRITES_DISABLED');
    expect(await written(h, w)).toEqual(before);
    const read = await h.api('POST', `/v1/wallets/${w.id}/contracts/read`, {
      key: w.apiKey,
      body: { calls: [call(usdcOf(h), 'balanceOf', [w.address])] },
    });
    expect(read.body.data).toBe(units(100));
    const fee = await h.api('POST', `/v1/wallets/${w.id}/contracts/network-fee`, {
      key: w.apiKey,
      body: { calls: [transfer(h, randomAddress(), 1)] },
    });
    expect(fee.status).toBe(200);

    // ...but only the business key may switch them on again.
    expectRefused(await patch(w, { isActive: true }, w.apiKey), 403, 'FORBIDDEN');
    expect((await patch(w, { isActive: true }, h.businessKey)).status).toBe(200);
    const ok = await write(h, w, [transfer(h, randomAddress(), 1)]);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });

  it('an allow-list limits writes to the listed contracts (422 CONTRACT_NOT_ALLOWED); entries are validated and checksummed', async () => {
    const w = await freshWallet(h);
    const chain = chainOf(h, ETH);
    const usdc = usdcOf(h);
    const usdt = chain.token('USDT').address;

    const bad = await patch(w, { allowedContracts: [usdc, 'not-an-address'] }, h.businessKey);
    expectRefused(bad, 400, 'VALIDATION_ERROR');
    expect(bad.body.details[0].field).toBe('configurations.contractWrites.allowedContracts.1');

    const set = await patch(w, { allowedContracts: [usdc.toLowerCase(), usdc] }, w.apiKey);
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.data.configurations.contractWrites).toEqual({ isActive: true, allowedContracts: [usdc] });

    const before = await written(h, w);
    const refused = await write(h, w, [transfer(h, randomAddress(), 1), call(usdt, 'transfer', [randomAddress(), '1'])]);
    expectRefused(refused, 422, 'CONTRACT_NOT_ALLOWED');
    expect(refused.body.details).toEqual([{ field: 'calls.1.address', message: 'not an allowed contract' }]);
    expect(await written(h, w)).toEqual(before);
    const ok = await write(h, w, [transfer(h, randomAddress(), 1)]);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);

    // Widening (another contract, or no list at all) needs the business key.
    expectRefused(await patch(w, { allowedContracts: [usdc, usdt] }, w.apiKey), 403, 'FORBIDDEN');
    expectRefused(await patch(w, { allowedContracts: [] }, w.apiKey), 403, 'FORBIDDEN');
    expect((await patch(w, { allowedContracts: [] }, h.businessKey)).status).toBe(200);
    const any = await write(h, w, [call(usdt, 'approve', [randomAddress(), '0'])]);
    expect(any.status, JSON.stringify(any.body)).toBe(200);
  });
});
