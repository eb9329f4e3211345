/**
 * Withdrawals as clients written for the described service call them (issue 12): the gas
 * fields they send (`gasLimit`, `gasPrice`, `nonce`/`nounce`), master sign-only at
 * `withdraw/sign` and the `withdraw/sign-only` spelling on both, and the network fee in
 * the documented shape.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  formatEther,
  parseEther,
  parseTransaction,
  parseUnits,
  recoverTransactionAddress,
  type Address,
  type Hash,
  type Hex,
  type TransactionSerialized,
} from 'viem';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import {
  assetOf,
  chainOf,
  counts,
  enableNative,
  newChild,
  outboundOf,
  randomAddress,
  settledTx,
  startWorld,
  waitForEvent,
  withdraw,
  type TestChain,
  type World,
} from './world.js';

let w: World;
let eth: TestChain;
const ETH = 'devnet-eth';

beforeAll(async () => {
  w = await startWorld({ specs: [DEVNET_CHAINS[0]!] });
  eth = chainOf(w.h, ETH);
  await eth.sendToken('USDC', master(), '1000');
});
afterAll(async () => {
  await w?.stop();
});

const master = () => w.h.wallets[ETH]!.address as Address;
const walletId = () => w.h.wallets[ETH]!.id;
const post = (path: string, body: unknown) => w.h.api('POST', `/v1/wallets/${walletId()}${path}`, { key: w.h.wallets[ETH]!.apiKey, body });
const usdcBody = (amount = '1') => ({ assetId: assetOf(w.h, ETH, 'USDC').id, address: randomAddress(), amount });
/** A fee cap comfortably above what the devnet asks now. */
const generousGasPrice = async () => (await eth.pub.estimateFeesPerGas()).maxFeePerGas * 3n;

function expect400(res: { status: number; body: any }, field: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body).toMatchObject({ statusCode: 400, error: 'VALIDATION_ERROR' });
  expect(res.body.details[0].field).toBe(field);
}

describe('withdraw fields clients send: gasLimit, gasPrice, nonce, nounce', () => {
  it('a broadcast withdrawal is signed with the gasLimit and gasPrice given (string or number), and is mined', async () => {
    const gasPrice = await generousGasPrice();
    const body = { ...usdcBody('2'), gasLimit: '90000', gasPrice: gasPrice.toString() };
    const res = await withdraw(w.h, ETH, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ type: 'WITHDRAW', status: 'PENDING', amount: '2' });
    const done = await settledTx(w.h, ETH, res.body.data.id, 'SUCCESS');
    const sent = await eth.pub.getTransaction({ hash: done.hash as Hash });
    expect(sent.gas).toBe(90_000n);
    expect(sent.maxFeePerGas).toBe(gasPrice);
    expect(await eth.balanceOf('USDC', body.address)).toBe(parseUnits('2', 6));
    const [row] = await outboundOf(w.h, res.body.data.id);
    expect(row!.max_fee_per_gas).toBe(gasPrice.toString());

    // JSON numbers, as some clients send them; from a child address too.
    const child = await newChild(w.h, ETH);
    await eth.sendToken('USDC', child.address, '5');
    await eth.rpc('anvil_setBalance', [child.address, `0x${parseEther('1').toString(16)}`]);
    const fromChild = await withdraw(w.h, ETH, { ...usdcBody('1'), gasLimit: 80000, gasPrice: Number(gasPrice) }, { addressId: child.id });
    expect(fromChild.status, JSON.stringify(fromChild.body)).toBe(200);
    const mined = await settledTx(w.h, ETH, fromChild.body.data.id, 'SUCCESS');
    expect((await eth.pub.getTransaction({ hash: mined.hash as Hash })).gas).toBe(80_000n);
  });

  it('sign-only honours them in the raw transaction; network-fee prices them', async () => {
    const gasPrice = await generousGasPrice();
    const signed = await withdraw(w.h, ETH, { ...usdcBody(), gasLimit: '70000', gasPrice: gasPrice.toString() }, { sign: true });
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    const raw = parseTransaction(signed.body.data.signedTransaction as Hex);
    expect(raw).toMatchObject({ gas: 70_000n, maxFeePerGas: gasPrice });
    expect(raw.maxPriorityFeePerGas! <= gasPrice).toBe(true);

    const fee = await withdraw(w.h, ETH, { ...usdcBody(), gasLimit: '70000', gasPrice: gasPrice.toString() }, { fee: true });
    expect(fee.status, JSON.stringify(fee.body)).toBe(200);
    expect(fee.body.data.networkFee).toBe(formatEther(70_000n * gasPrice));
  });

  it('a gasLimit below the estimate, a gasPrice below the network fee, or a nonce is a 400 naming the field; nothing is written', async () => {
    const before = await counts(w.h);
    for (const opts of [{}, { sign: true }, { fee: true }]) {
      // An ERC-20 transfer needs far more than a plain transfer's 21000 gas.
      const low = await withdraw(w.h, ETH, { ...usdcBody(), gasLimit: '21000' }, opts);
      expect400(low, 'gasLimit');
      expect(low.body.message).toMatch(/below the network's estimate of \d+ gas/);
      expect400(await withdraw(w.h, ETH, { ...usdcBody(), gasPrice: '1' }, opts), 'gasPrice');
      expect400(await withdraw(w.h, ETH, { ...usdcBody(), gasLimit: '0' }, opts), 'gasLimit');
      expect400(await withdraw(w.h, ETH, { ...usdcBody(), gasLimit: '1.5' }, opts), 'gasLimit');
      for (const field of ['nonce', 'nounce']) {
        const res = await withdraw(w.h, ETH, { ...usdcBody(), [field]: 7 }, opts);
        expect400(res, field);
        expect(res.body.message).toContain('the service manages nonces');
      }
      // Strict bodies: other unknown fields stay refused.
      expect((await withdraw(w.h, ETH, { ...usdcBody(), gas: '90000' }, opts)).status).toBe(400);
    }
    // Batch requests take them too, for every item.
    const batch = { assets: [1, 2].map(() => ({ id: assetOf(w.h, ETH, 'USDC').id, amount: '1', address: randomAddress() })) };
    expect400(await withdraw(w.h, ETH, { ...batch, gasLimit: '21000' }), 'gasLimit');
    expect400(await withdraw(w.h, ETH, { ...batch, nounce: '3' }), 'nounce');
    expect(await counts(w.h)).toEqual(before);
  });
});

describe('sign-only paths: withdraw/sign on the master, withdraw/sign-only on both', () => {
  it('POST /withdraw/sign (master), /withdraw/sign-only (master) and .../addresses/{a}/withdraw/sign-only: SIGNED by the sender, signed.success', async () => {
    const child = await newChild(w.h, ETH);
    await eth.sendToken('USDC', child.address, '5');
    await eth.rpc('anvil_setBalance', [child.address, `0x${parseEther('1').toString(16)}`]);
    const cases = [
      { path: '/withdraw/sign', signer: master() },
      { path: '/withdraw/sign-only', signer: master() },
      { path: `/addresses/${child.id}/withdraw/sign-only`, signer: child.address },
    ];
    for (const { path, signer } of cases) {
      const body = usdcBody('1.5');
      const res = await post(path, body);
      expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body).toMatchObject({ statusCode: 200, message: 'Transaction signed successfully' });
      const t = res.body.data;
      expect(t).toMatchObject({
        type: 'SIGNED',
        status: 'SUCCESS',
        confirmed: true,
        amount: '1.5',
        senderAddress: signer,
        recipientAddress: body.address,
      });
      expect(typeof t.signedTransaction).toBe('string');
      expect(await recoverTransactionAddress({ serializedTransaction: t.signedTransaction as TransactionSerialized })).toBe(signer);
      await waitForEvent(w, ETH, t.id, 'signed.success');
      // What was signed is real: it mines and moves the tokens.
      expect((await eth.sendRaw(t.signedTransaction as Hex)).status).toBe('success');
      expect(await eth.balanceOf('USDC', body.address)).toBe(parseUnits('1.5', 6));
    }
    // The same rules as the canonical routes: a bad body is a 400, another wallet's address a 404.
    expect((await post('/withdraw/sign-only', { ...usdcBody(), amount: '0' })).status).toBe(400);
    expect((await post(`/addresses/${randomUUID()}/withdraw/sign-only`, usdcBody())).status).toBe(404);
  });

  it('the OpenAPI document lists withdraw/sign as a route and withdraw/sign-only as deprecated aliases naming it', async () => {
    const spec = await fetch(`${w.h.baseUrl}/openapi.json`).then((r) => r.json());
    const master = spec.paths['/v1/wallets/{walletId}/withdraw/sign']?.post;
    expect(master).toBeDefined();
    expect(master.deprecated).toBeUndefined();
    for (const [alias, canonical] of [
      ['/v1/wallets/{walletId}/withdraw/sign-only', '/v1/wallets/{walletId}/withdraw/sign'],
      ['/v1/wallets/{walletId}/addresses/{addressId}/withdraw/sign-only', '/v1/wallets/{walletId}/addresses/{addressId}/withdraw/sign'],
    ] as const) {
      const op = spec.paths[alias]?.post;
      expect(op, alias).toBeDefined();
      expect(op.deprecated).toBe(true);
      expect(op.description).toContain(`Alias of \`${canonical}\``);
    }
  });
});

describe('network fee response shape', () => {
  it('single: { networkFee, nativeBalance, nativeBalanceInUSD } plus the deprecated fee and balance', async () => {
    const res = await post('/withdraw/network-fee', usdcBody());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const d = res.body.data;
    expect(d).toEqual({
      networkFee: expect.stringMatching(/^0\.\d+$/),
      nativeBalance: expect.stringMatching(/^\d+(\.\d+)?$/),
      nativeBalanceInUSD: null,
      fee: d.networkFee,
      balance: d.nativeBalance,
    });
    expect(parseEther(d.nativeBalance)).toBe(await eth.pub.getBalance({ address: master() }));
  });

  it('batch: fees per item in request order and totalNetworkFee, their sum', async () => {
    const usdc = assetOf(w.h, ETH, 'USDC');
    // A native item costs 21000 gas (plus the 20% margin), a token item more: the order shows in fees.
    const nativeId = await enableNative(w.h, ETH);
    const body = {
      assets: [
        { id: usdc.id, amount: '1', address: randomAddress() },
        { id: nativeId, amount: '0.001', address: randomAddress() },
      ],
      gasPrice: (await generousGasPrice()).toString(),
    };
    const res = await post('/withdraw/network-fee', body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const d = res.body.data;
    expect(Object.keys(d).sort()).toEqual([
      'balance',
      'fee',
      'fees',
      'nativeBalance',
      'nativeBalanceInUSD',
      'networkFee',
      'totalNetworkFee',
    ]);
    expect(d.fees).toHaveLength(2);
    const [token, native] = d.fees.map((f: string) => parseEther(f));
    expect(token).toBeGreaterThan(native);
    expect(native).toBe(25_200n * BigInt(body.gasPrice));
    expect(parseEther(d.totalNetworkFee)).toBe(token + native);
    expect(d.networkFee).toBe(d.totalNetworkFee);
    expect(d.fee).toBe(d.networkFee);
  });
});
