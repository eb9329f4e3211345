import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFunctionData, erc20Abi, type Address } from 'viem';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf } from '../support/chain.js';
import { ABI, TRY_AGGREGATE, call, writtenRows } from './support.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

function read(slug: string, body: unknown, opts: { addressId?: string; key?: string | null } = {}) {
  const w = h.wallets[slug]!;
  const path = opts.addressId ? `/v1/wallets/${w.id}/addresses/${opts.addressId}/contracts/read` : `/v1/wallets/${w.id}/contracts/read`;
  return h.api('POST', path, { key: opts.key === undefined ? w.apiKey : opts.key, body });
}

async function newAddress(slug: string) {
  const w = h.wallets[slug]!;
  const res = await h.api('POST', `/v1/wallets/${w.id}/addresses`, { key: w.apiKey, body: {} });
  return res.body.data as { id: string; address: string };
}

describe('contract reads', () => {
  for (const [slug, decimals] of [
    ['devnet-eth', 6],
    ['devnet-bsc', 18],
  ] as const) {
    it(`reads USDC balanceOf, decimals and symbol on ${slug}, one value or an array in call order`, async () => {
      const chain = chainOf(h, slug);
      const usdc = chain.token('USDC').address;
      const w = h.wallets[slug]!;
      await chain.sendToken('USDC', w.address, '12.5');
      const expected = (await chain.balanceOf('USDC', w.address)).toString();

      const one = await read(slug, { calls: [call(usdc, 'balanceOf', [w.address])] });
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({ statusCode: 200, data: expected });

      const several = await read(slug, {
        calls: [call(usdc, 'decimals'), call(usdc, 'symbol'), call(usdc, 'balanceOf', [chain.faucet])],
      });
      expect(several.status).toBe(200);
      expect(several.body.data).toEqual([String(decimals), 'USDC', (await chain.balanceOf('USDC', chain.faucet)).toString()]);
    });
  }

  it('reads from a child address, with a full ABI and a method given by signature', async () => {
    const chain = chainOf(h, 'devnet-eth');
    const child = await newAddress('devnet-eth');
    await chain.sendToken('USDT', child.address, '3');
    const usdt = chain.token('USDT').address;
    const res = await read(
      'devnet-eth',
      { calls: [{ address: usdt, method: 'balanceOf(address)', parameters: [child.address], abi: erc20Abi }] },
      { addressId: child.id },
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toBe('3000000');
  });

  it('encodes arrays of structs as JSON, with bigints and bytes as strings', async () => {
    const chain = chainOf(h, 'devnet-eth');
    const usdc = chain.token('USDC').address as Address;
    const w = h.wallets['devnet-eth']!;
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [w.address as Address] });
    const res = await read('devnet-eth', {
      calls: [
        {
          address: chain.config.multicall3!,
          method: 'tryAggregate',
          parameters: [false, [{ target: usdc, callData: data }, [usdc, '0x12345678']]],
          abi: [TRY_AGGREGATE],
        },
      ],
    });
    expect(res.status).toBe(200);
    const parsed = JSON.parse(res.body.data);
    const balance = await chain.balanceOf('USDC', w.address);
    expect(parsed).toEqual([
      { success: true, returnData: `0x${balance.toString(16).padStart(64, '0')}` },
      { success: false, returnData: '0x' },
    ]);
  });

  it('overloads: picked by parameter count, or by full signature when the arguments fit several', async () => {
    const chain = chainOf(h, 'devnet-eth');
    const usdc = chain.token('USDC').address;
    const w = h.wallets['devnet-eth']!;
    const byId = { ...ABI.balanceOf, inputs: [{ name: 'id', type: 'uint256' }] };
    const twoArgs = {
      ...ABI.balanceOf,
      inputs: [
        { name: 'a', type: 'address' },
        { name: 'id', type: 'uint256' },
      ],
    };
    const abi = [twoArgs, ABI.balanceOf, byId];
    const expected = (await chain.balanceOf('USDC', w.address)).toString();
    const ambiguous = await read('devnet-eth', { calls: [{ address: usdc, method: 'balanceOf', parameters: [w.address], abi }] });
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.details[0]).toMatchObject({ field: 'calls.0.method' });
    expect(ambiguous.body.details[0].message).toContain('full signature');
    const chosen = await read('devnet-eth', { calls: [{ address: usdc, method: 'balanceOf(address)', parameters: [w.address], abi }] });
    expect(chosen.body.data).toBe(expected);
    const single = await read('devnet-eth', {
      calls: [{ address: usdc, method: 'balanceOf', parameters: [w.address], abi: [twoArgs, ABI.balanceOf] }],
    });
    expect(single.body.data).toBe(expected);
  });

  it('a reverting read is a 422 with the decoded reason, even when the ABI lacks the error', async () => {
    const chain = chainOf(h, 'devnet-eth');
    const child = await newAddress('devnet-eth');
    const res = await read(
      'devnet-eth',
      { calls: [call(chain.token('USDC').address, 'transfer', [chain.faucet, '1'])] },
      { addressId: child.id },
    );
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('CONTRACT_REVERTED');
    expect(res.body.message).toContain(`ERC20InsufficientBalance(${child.address}, 0, 1)`);
  });

  it('an address without code is a 422 NOT_A_CONTRACT', async () => {
    const res = await read('devnet-eth', { calls: [call(h.wallets['devnet-eth']!.address, 'decimals')] });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('NOT_A_CONTRACT');
  });
});

/** The address with the case of its first letter flipped: still hex, no longer its checksum. */
function badChecksum(address: string): string {
  const i = address.slice(2).search(/[a-fA-F]/) + 2;
  const c = address[i]!;
  return address.slice(0, i) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + address.slice(i + 1);
}

describe('bad input is a 400 naming the field', () => {
  const usdc = () => chainOf(h, 'devnet-eth').token('USDC').address;
  const owner = () => h.wallets['devnet-eth']!.address;
  const cases: [string, () => unknown, string][] = [
    ['no calls', () => ({ calls: [] }), 'calls'],
    ['too many calls', () => ({ calls: Array.from({ length: 21 }, () => call(usdc(), 'decimals')) }), 'calls'],
    ['a missing field', () => ({ calls: [{ address: usdc(), method: 'decimals', abi: [ABI.decimals] }] }), 'calls.0.parameters'],
    ['an unknown field', () => ({ calls: [{ ...call(usdc(), 'decimals'), value: '1' }] }), 'calls.0.value'],
    ['a bad contract address', () => ({ calls: [call('0x1234', 'decimals')] }), 'calls.0.address'],
    ['a bad EIP-55 checksum', () => ({ calls: [call(badChecksum(usdc()), 'decimals')] }), 'calls.0.address'],
    ['a method not in the ABI', () => ({ calls: [call(usdc(), 'decimals', [], [ABI.symbol])] }), 'calls.0.method'],
    ['a wrong parameter count', () => ({ calls: [call(usdc(), 'balanceOf', [])] }), 'calls.0.parameters'],
    ['a bad address parameter', () => ({ calls: [call(usdc(), 'balanceOf', ['0xnope'])] }), 'calls.0.parameters.0'],
    ['an exponent for a uint', () => ({ calls: [call(usdc(), 'transfer', [owner(), '1e3'])] }), 'calls.0.parameters.1'],
    ['a negative uint', () => ({ calls: [call(usdc(), 'transfer', [owner(), '-1'])] }), 'calls.0.parameters.1'],
    ['a uint above 2^256', () => ({ calls: [call(usdc(), 'transfer', [owner(), (2n ** 256n).toString()])] }), 'calls.0.parameters.1'],
    ['an unsafe JSON number', () => ({ calls: [call(usdc(), 'transfer', [owner(), 1e21])] }), 'calls.0.parameters.1'],
    ['an empty ABI', () => ({ calls: [call(usdc(), 'decimals', [], [])] }), 'calls.0.abi'],
    ['an ABI that is not an array', () => ({ calls: [{ ...call(usdc(), 'decimals'), abi: { decimals: 1 } }] }), 'calls.0.abi'],
    [
      'an ABI entry of unknown type',
      () => ({ calls: [call(usdc(), 'decimals', [], [{ ...ABI.decimals, type: 'method' }])] }),
      'calls.0.abi.0',
    ],
    [
      'a bad Solidity type in the ABI',
      () => ({ calls: [call(usdc(), 'balanceOf', [owner()], [{ ...ABI.balanceOf, outputs: [{ name: '', type: 'uint7' }] }])] }),
      'calls.0.abi.0.outputs.0.type',
    ],
    [
      'the uint alias in the ABI',
      () => ({ calls: [call(usdc(), 'balanceOf', [owner()], [{ ...ABI.balanceOf, outputs: [{ name: '', type: 'uint' }] }])] }),
      'calls.0.abi.0.outputs.0.type',
    ],
    [
      'a function without inputs',
      () => ({ calls: [call(usdc(), 'decimals', [], [{ type: 'function', name: 'decimals', outputs: [] }])] }),
      'calls.0.abi',
    ],
    [
      'a tuple without components',
      () => ({ calls: [call(usdc(), 'decimals', [], [{ ...ABI.decimals, outputs: [{ name: '', type: 'tuple' }] }])] }),
      'calls.0.abi.0.outputs.0.components',
    ],
    ['a non-UUID address id', () => ({ calls: [call(usdc(), 'decimals')] }), 'addressId'],
  ];
  for (const [name, body, field] of cases) {
    it(name, async () => {
      const before = await writtenRows(h);
      const res =
        field === 'addressId'
          ? await h.api('POST', `/v1/wallets/${h.wallets['devnet-eth']!.id}/addresses/nope/contracts/read`, { body: body() })
          : await read('devnet-eth', body());
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(await writtenRows(h)).toEqual(before);
    });
  }
});

describe('tenancy', () => {
  it("is 404 for another wallet's key, another business, another wallet's address; 401 without a key", async () => {
    const usdc = chainOf(h, 'devnet-eth').token('USDC').address;
    const body = { calls: [call(usdc, 'decimals')] };
    expect((await read('devnet-eth', body, { key: h.wallets['devnet-bsc']!.apiKey })).status).toBe(404);
    const other = await h.services.businesses.create('Other');
    expect((await read('devnet-eth', body, { key: other.apiKey })).status).toBe(404);
    expect((await read('devnet-eth', body, { key: null })).status).toBe(401);
    const bscChild = await newAddress('devnet-bsc');
    expect((await read('devnet-eth', body, { addressId: bscChild.id })).status).toBe(404);
    // The business key reaches both wallets, but an address only under its own wallet.
    expect((await read('devnet-eth', body, { key: h.businessKey })).status).toBe(200);
    expect((await read('devnet-eth', body, { key: h.businessKey, addressId: bscChild.id })).status).toBe(404);
  });
});

describe('OpenAPI', () => {
  it('documents the contract and signing endpoints', async () => {
    const spec = await fetch(`${h.baseUrl}/openapi.json`).then((r) => r.json());
    const paths = Object.keys(spec.paths);
    for (const p of [
      '/v1/wallets/{walletId}/contracts/read',
      '/v1/wallets/{walletId}/contracts/write',
      '/v1/wallets/{walletId}/contracts/network-fee',
      '/v1/wallets/{walletId}/addresses/{addressId}/contracts/read',
      '/v1/wallets/{walletId}/addresses/{addressId}/contracts/write',
      '/v1/wallets/{walletId}/addresses/{addressId}/contracts/network-fee',
      '/v1/wallets/{walletId}/addresses/{addressId}/contracts/write/sign',
      '/v1/wallets/{walletId}/signing/typed-data',
    ]) {
      expect(paths).toContain(p);
    }
    expect(
      spec.paths['/v1/wallets/{walletId}/contracts/write'].post.requestBody.content['application/json'].schema.properties.calls.maxItems,
    ).toBe(20);
  });
});
