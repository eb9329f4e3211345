/**
 * Bad withdrawal requests: each is a 4xx, and nothing is written (transactions, outbound
 * rows, nonces, events, idempotency keys) and nothing is broadcast. Amount rules are also
 * checked property-based, on the validation function and through the HTTP endpoint.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sql } from 'kysely';
import { getAddress, type Address } from 'viem';
import { MAX_UINT256, formatAmount } from '../../src/lib/money.js';
import { uuidv7 } from '../../src/lib/ids.js';
import { parseWithdrawalAmount } from '../../src/modules/withdrawals/validate.js';
import {
  assetOf,
  chainOf,
  counts,
  eventually,
  newChild,
  randomAddress,
  settledTx,
  startWorld,
  withdraw,
  type TestChain,
  type World,
} from './world.js';

let w: World;
let eth: TestChain;
const ETH = 'devnet-eth';
const BSC = 'devnet-bsc';
let usdc: ReturnType<typeof assetOf>;

beforeAll(async () => {
  w = await startWorld();
  eth = chainOf(w.h, ETH);
  usdc = assetOf(w.h, ETH, 'USDC');
  await eth.sendToken('USDC', w.h.wallets[ETH]!.address, '1000');
});
afterAll(async () => {
  await w?.stop();
});

const master = () => w.h.wallets[ETH]!.address as Address;

/** Sends `body` and expects `status` with nothing written and nothing sent. */
async function refused(body: unknown, status: number, opts: Parameters<typeof withdraw>[3] = {}, error?: string) {
  const before = await counts(w.h);
  const sent = await eth.pub.getTransactionCount({ address: master(), blockTag: 'pending' });
  const res = await withdraw(w.h, ETH, body, opts);
  expect(res.status, `${JSON.stringify(body)} -> ${JSON.stringify(res.body)}`).toBe(status);
  expect(res.body).toMatchObject({ statusCode: status, error: expect.any(String), requestId: expect.any(String) });
  if (error) expect(res.body.error).toBe(error);
  expect(await counts(w.h)).toEqual(before);
  expect(await eth.pub.getTransactionCount({ address: master(), blockTag: 'pending' })).toBe(sent);
  return res.body;
}

/** A valid EIP-55 address with the case of one letter flipped: the checksum no longer matches. */
function brokenChecksum(address: Address): string {
  const i = [...address].findIndex((c, k) => k > 1 && /[a-fA-F]/.test(c));
  const c = address[i]!;
  return address.slice(0, i) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + address.slice(i + 1);
}

describe('bad input writes nothing and sends nothing', () => {
  it.each([
    ['0', 'must be greater than 0'],
    ['0.000000', 'must be greater than 0'],
    ['-1', 'plain'],
    ['1e3', 'plain'],
    ['1.1234567', 'more than 6 decimal places'],
    [`1${'0'.repeat(78)}`, 'too large'],
    ['', 'plain'],
    [' 1', 'plain'],
    ['01', 'plain'],
    ['1.', 'plain'],
    ['.5', 'plain'],
    ['0x10', 'plain'],
    ['1,5', 'plain'],
    ['NaN', 'plain'],
  ])('amount %j is a 400', async (amount, message) => {
    const body = await refused({ assetId: usdc.id, address: randomAddress(), amount }, 400, {}, 'VALIDATION_ERROR');
    expect(body.message).toContain(message);
    expect(body.details[0].field).toBe('amount');
  });

  it('an amount sent as a number, not a string, is a 400', async () => {
    await refused({ assetId: usdc.id, address: randomAddress(), amount: 5 }, 400, {}, 'VALIDATION_ERROR');
  });

  it.each([
    ['not an address', 'abc'],
    ['too short', '0x1234'],
    ['not hex', `0x${'g'.repeat(40)}`],
    ['checksum broken', brokenChecksum(getAddress('0x8ba1f109551bd432803012645ac136ddd64dba72'))],
    ['zero address', `0x${'0'.repeat(40)}`],
  ])('destination %s is a 400', async (_what, address) => {
    const body = await refused({ assetId: usdc.id, address, amount: '1' }, 400, {}, 'VALIDATION_ERROR');
    expect(body.details[0].field).toBe('address');
  });

  it("destination the token's own contract (any case) is a 400: tokens sent there are lost", async () => {
    for (const address of [usdc.address, usdc.address.toLowerCase()]) {
      const body = await refused({ assetId: usdc.id, address, amount: '1' }, 400, {}, 'VALIDATION_ERROR');
      expect(body.details[0]).toMatchObject({ field: 'address', message: expect.stringContaining('is the contract of USDC') });
    }
  });

  it('all-lowercase and checksummed forms of an address are both accepted (no checksum to check in lowercase)', async () => {
    const to = randomAddress();
    for (const address of [to.toLowerCase(), to]) {
      const res = await withdraw(w.h, ETH, { assetId: usdc.id, address, amount: '0.01' }, { fee: true });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
  });

  it('unknown fields, missing fields and single/batch mixes are 400s', async () => {
    const to = randomAddress();
    await refused({ assetId: usdc.id, address: to, ammount: '1' }, 400);
    await refused({ assetId: usdc.id, address: to, amount: '1', extra: true }, 400);
    await refused({ assetId: usdc.id, address: to }, 400);
    await refused({}, 400);
    await refused({ assetId: usdc.id, assets: [{ id: usdc.id, amount: '1', address: to }] }, 400);
    await refused({ reference: 'x', assets: [{ id: usdc.id, amount: '1', address: to }] }, 400);
    await refused({ assets: [] }, 400);
    await refused({ assets: [{ id: usdc.id, amount: '1', address: to, oops: 1 }] }, 400);
    await refused({ assetId: 'not-a-uuid', address: to, amount: '1' }, 400);
    await refused({ assetId: usdc.id, address: to, amount: '1', metadata: 'text' }, 400);
    await refused(
      {
        assets: [
          { id: usdc.id, amount: '1', address: to, reference: 'same' },
          { id: usdc.id, amount: '2', address: to, reference: 'same' },
        ],
      },
      400,
    );
  });

  it('a batch with one bad item is refused whole, whichever item it is', async () => {
    const good = () => ({ id: usdc.id, amount: '1', address: randomAddress() });
    for (const bad of [
      { id: usdc.id, amount: '0', address: randomAddress() },
      { id: usdc.id, amount: '1', address: '0x1234' },
      { id: usdc.id, amount: '1.0000001', address: randomAddress() },
      { id: usdc.id, amount: '1', address: `0x${'0'.repeat(40)}` },
    ]) {
      const body = await refused({ assets: [good(), good(), bad] }, 400, {}, 'VALIDATION_ERROR');
      expect(body.details[0].field).toMatch(/^assets\.2\./);
    }
    await refused({ assets: [good(), { ...good(), id: uuidv7() }, good()] }, 404, {}, 'NOT_FOUND');
  });

  it('a foreign or unknown asset is a 404; an asset of the chain not enabled on the wallet is a 422', async () => {
    const to = randomAddress();
    await refused({ assetId: assetOf(w.h, BSC, 'USDC').id, address: to, amount: '1' }, 404, {}, 'NOT_FOUND');
    await refused({ assetId: uuidv7(), address: to, amount: '1' }, 404, {}, 'NOT_FOUND');
    const native = w.h.services.catalogue.findChain(ETH, 'testnet')!.assets.find((a) => a.is_native)!;
    await refused({ assetId: native.id, address: to, amount: '1' }, 422, {}, 'ASSET_NOT_ENABLED');
  });

  it('more than the balance (or than what pending withdrawals leave) is a 422 INSUFFICIENT_BALANCE', async () => {
    const balance = await eth.balanceOf('USDC', master());
    const to = randomAddress();
    await refused({ assetId: usdc.id, address: to, amount: formatAmount(balance + 1n, 6) }, 422, {}, 'INSUFFICIENT_BALANCE');
    const child = await newChild(w.h, ETH);
    await eth.sendToken('USDC', child.address, '5');
    // The child holds the token but no coin for gas.
    await refused({ assetId: usdc.id, address: to, amount: '1' }, 422, { addressId: child.id }, 'INSUFFICIENT_BALANCE');
  });

  it('funds a pending auto-settlement leg is about to send from the master are held back too', async () => {
    const balance = await eth.balanceOf('USDC', master());
    const chain = w.h.services.catalogue.findChain(ETH, 'testnet')!;
    const legId = uuidv7();
    // Stands in for an AUTO_SETTLEMENT transfer leg queued but not yet mined.
    await sql`
      INSERT INTO transactions (id, wallet_id, asset_id, chain_id, reference, type, status, stage, confirmed, amount, currency,
                                sender_address, recipient_address, network, created_channel)
      VALUES (${legId}, ${w.h.wallets[ETH]!.id}, ${usdc.id}, ${chain.id}, ${`leg-${legId}`}, 'AUTO_SETTLEMENT', 'PENDING', 'created',
              false, ${(balance - 1_000_000n).toString()}, 'USDC', ${master()}, ${randomAddress()}, 'testnet', 'api')`.execute(
      w.h.database.db,
    );
    try {
      await refused({ assetId: usdc.id, address: randomAddress(), amount: '2' }, 422, {}, 'INSUFFICIENT_BALANCE');
    } finally {
      await sql`DELETE FROM transactions WHERE id = ${legId}`.execute(w.h.database.db);
    }
  });

  it('foreign wallets and addresses are 404s, exactly like unknown ones', async () => {
    const bscKey = w.h.wallets[BSC]!.apiKey;
    const before = await counts(w.h);
    const res = await w.h.api('POST', `/v1/wallets/${w.h.wallets[ETH]!.id}/withdraw`, {
      key: bscKey,
      body: { assetId: usdc.id, address: randomAddress(), amount: '1' },
    });
    expect(res.status).toBe(404);
    const child = await newChild(w.h, BSC);
    const viaEth = await withdraw(w.h, ETH, { assetId: usdc.id, address: randomAddress(), amount: '1' }, { addressId: child.id });
    expect(viaEth.status).toBe(404);
    expect(await counts(w.h)).toEqual(before);
  });

  it('a sign-only request with bad input writes nothing either', async () => {
    const child = await newChild(w.h, ETH);
    await refused({ assetId: usdc.id, address: randomAddress(), amount: '-1' }, 400, { addressId: child.id, sign: true });
    await refused({ assetId: usdc.id, address: randomAddress(), amount: '1' }, 422, { addressId: child.id, sign: true });
  });

  it('a malformed Idempotency-Key header is a 400', async () => {
    await refused({ assetId: usdc.id, address: randomAddress(), amount: '1' }, 400, { headers: { 'idempotency-key': 'has space' } });
    await refused({ assetId: usdc.id, address: randomAddress(), amount: '1' }, 400, { headers: { 'idempotency-key': 'x'.repeat(256) } });
  });
});

describe('whitelisted beneficiaries', () => {
  it('with an active whitelisted beneficiary, only it may receive; inactive or deleted ones do not count', async () => {
    const walletId = w.h.wallets[ETH]!.id;
    const allowed = randomAddress();
    const other = randomAddress();
    const id = uuidv7();
    const insert = (bid: string, address: string, extra: { active?: boolean; deleted?: boolean; whitelisted?: boolean }) =>
      sql`INSERT INTO beneficiaries (id, wallet_id, name, address, is_whitelisted, is_active, deleted_at)
          VALUES (${bid}, ${walletId}, 'b', ${address}, ${extra.whitelisted ?? true}, ${extra.active ?? true},
                  ${extra.deleted ? new Date() : null})`.execute(w.h.database.db);
    // Beneficiaries that are not whitelisted, not active or deleted do not switch whitelisting on.
    // (One live beneficiary per address and wallet: the inactive one has an address of its own.)
    await insert(uuidv7(), other, { whitelisted: false });
    await insert(uuidv7(), randomAddress(), { active: false });
    await insert(uuidv7(), other, { deleted: true });
    const free = await withdraw(w.h, ETH, { assetId: usdc.id, address: randomAddress(), amount: '0.1' });
    expect(free.status).toBe(200);
    await settledTx(w.h, ETH, free.body.data.id, 'SUCCESS');

    await insert(id, allowed.toLowerCase(), {});
    try {
      const body = await refused({ assetId: usdc.id, address: other, amount: '0.1' }, 422, {}, 'NOT_WHITELISTED');
      expect(body.details[0].field).toBe('address');
      await refused(
        {
          assets: [
            { id: usdc.id, amount: '0.1', address: allowed },
            { id: usdc.id, amount: '0.1', address: other },
          ],
        },
        422,
        {},
        'NOT_WHITELISTED',
      );
      const ok = await withdraw(w.h, ETH, { assetId: usdc.id, address: allowed, amount: '0.1' });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      await settledTx(w.h, ETH, ok.body.data.id, 'SUCCESS');
      expect(await eth.balanceOf('USDC', allowed)).toBe(100_000n);
      await eventually(
        () => counts(w.h),
        (c) => c.events === 2,
      ); // both withdraw.success events are in
    } finally {
      await sql`UPDATE beneficiaries SET deleted_at = now() WHERE id = ${id}`.execute(w.h.database.db);
    }
  });
});

/** The rule: a canonical decimal, within the asset's decimals, above 0, at most a uint256. */
function acceptable(s: string, decimals: number): boolean {
  const m = /^(0|[1-9]\d*)(?:\.(\d+))?$/.exec(s);
  if (!m) return false;
  const fraction = m[2] ?? '';
  if (fraction.length > decimals) return false;
  const units = BigInt(m[1]! + fraction.padEnd(decimals, '0'));
  return units > 0n && units <= MAX_UINT256;
}

const amountStrings = (decimals: number) =>
  fc.oneof(
    // Decimal-looking strings, including leading zeros, long fractions and empty parts.
    fc
      .tuple(fc.stringMatching(/^\d{0,80}$/), fc.option(fc.stringMatching(/^\d{0,25}$/)))
      .map(([whole, fraction]) => (fraction === null ? whole : `${whole}.${fraction}`)),
    // Around the uint256 boundary, in the asset's units.
    fc.bigInt({ min: MAX_UINT256 - 3n, max: MAX_UINT256 + 3n }).map((u) => formatAmount(u, decimals)),
    fc.bigInt({ min: 0n, max: 10n ** 30n }).map((u) => formatAmount(u, decimals)),
    // Anything from the characters people get wrong.
    fc.string({ unit: fc.constantFrom(...'0123456789.-+eE x,_'.split('')), maxLength: 12 }),
    fc.string({ maxLength: 8 }),
  );

describe('amount rules, property-based', () => {
  it('the validation function accepts exactly the canonical positive decimals within the decimals and uint256', () => {
    for (const decimals of [0, 6, 18]) {
      fc.assert(
        fc.property(amountStrings(decimals), (s) => {
          let accepted: boolean;
          try {
            const units = parseWithdrawalAmount(s, decimals);
            accepted = true;
            // And what it accepts it reads exactly.
            expect(formatAmount(units, decimals)).toBe(s.includes('.') ? s.replace(/\.?0+$/, '') : s);
          } catch (err) {
            expect((err as { code?: string }).code).toBe('VALIDATION_ERROR');
            accepted = false;
          }
          expect(accepted).toBe(acceptable(s, decimals));
        }),
        { numRuns: 2000 },
      );
    }
  });

  it('the HTTP endpoint refuses with 400 exactly the amounts the rule refuses, and writes nothing', async () => {
    const before = await counts(w.h);
    await fc.assert(
      fc.asyncProperty(amountStrings(6), async (amount) => {
        // The network-fee endpoint runs the same checks as a withdrawal and never writes.
        const res = await withdraw(w.h, ETH, { assetId: usdc.id, address: randomAddress(), amount }, { fee: true });
        if (acceptable(amount, 6)) expect([200, 422], `${amount} -> ${JSON.stringify(res.body)}`).toContain(res.status);
        else expect(res.status, `${amount} -> ${JSON.stringify(res.body)}`).toBe(400);
      }),
      { numRuns: 150 },
    );
    const res = await withdraw(w.h, ETH, { assetId: usdc.id, address: randomAddress(), amount: '0' });
    expect(res.status).toBe(400);
    expect(await counts(w.h)).toEqual(before);
  });
});

// Last: it pays, and the tests above count every event and row.
describe('ids in the body', () => {
  it('an enabled asset named by its id in capitals is that asset (UUIDs have no case), single and batch', async () => {
    const wallet = w.h.wallets[ETH]!;
    const list = await w.h.api('GET', `/v1/wallets/${wallet.id}/assets`, { key: wallet.apiKey });
    const walletAssetId = list.body.data.find((a: { asset: { id: string } }) => a.asset.id === usdc.id).id as string;
    for (const id of [usdc.id.toUpperCase(), walletAssetId.toUpperCase()]) {
      const single = await withdraw(w.h, ETH, { assetId: id, address: randomAddress(), amount: '0.5' });
      expect(single.status, JSON.stringify(single.body)).toBe(200);
      expect(single.body.data.asset.id).toBe(usdc.id);
      const batch = await withdraw(w.h, ETH, { assets: [{ id, address: randomAddress(), amount: '0.25' }] });
      expect(batch.status, JSON.stringify(batch.body)).toBe(200);
      expect(batch.body.data[0].asset.id).toBe(usdc.id);
      // Settled: nothing left in flight when the harness stops.
      await settledTx(w.h, ETH, single.body.data.id, 'SUCCESS');
      await settledTx(w.h, ETH, batch.body.data[0].id, 'SUCCESS');
    }
  });
});
