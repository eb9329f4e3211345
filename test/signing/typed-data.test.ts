import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { recoverTypedDataAddress, type TypedDataDefinition } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { derivePrivateKey } from '../../src/keys/hd.js';
import { EVM_ACCOUNT_PATH } from '../../src/chains/evm/derivation.js';
import { verifyWebhook } from '../../packages/sdk/src/webhooks/index.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { eventually } from '../support/fixtures.js';
import { CONTRACT, mail } from './eip712-example.js';

let h: Harness;
let receiver: Receiver;

beforeAll(async () => {
  h = await startHarness({ worker: true });
  receiver = await startReceiver();
  for (const w of Object.values(h.wallets)) {
    expect((await h.api('PATCH', `/v1/wallets/${w.id}`, { key: w.apiKey, body: { webhookUrl: receiver.url } })).status).toBe(200);
  }
});
afterAll(async () => {
  await receiver?.close();
  await h?.stop();
});

async function masterKey(slug: string) {
  const mnemonic = await h.services.wallets.openMnemonic(h.wallets[slug]!.id);
  return privateKeyToAccount(derivePrivateKey(mnemonic, EVM_ACCOUNT_PATH, 0));
}

async function signedCount(): Promise<number> {
  const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM transactions WHERE type = 'SIGNED'`.execute(h.database.db);
  return Number(rows[0]!.n);
}

function sign(slug: string, body: unknown, key?: string | null) {
  const w = h.wallets[slug]!;
  return h.api('POST', `/v1/wallets/${w.id}/signing/typed-data`, { key: key === undefined ? w.apiKey : key, body });
}

describe('typed-data signing', () => {
  for (const slug of ['devnet-eth', 'devnet-bsc']) {
    it(`signs with the master key on ${slug}: recoverable, identical to viem's own signature, recorded, event sent`, async () => {
      const w = h.wallets[slug]!;
      const body = mail();
      const res = await sign(slug, body);
      expect(res.status).toBe(200);
      const t = res.body.data;
      expect(t).toMatchObject({ type: 'SIGNED', status: 'SUCCESS', confirmed: true, network: 'testnet', senderAddress: w.address });
      expect(t.blockchain.slug).toBe(slug);
      const sig = t.signedTransaction;
      expect(Object.keys(sig).sort()).toEqual(['r', 's', 'signature', 'v']);
      expect(typeof sig.v).toBe('number');
      expect([27, 28]).toContain(sig.v);
      expect(sig.r).toMatch(/^0x[0-9a-f]{64}$/);
      expect(sig.signature).toMatch(/^0x[0-9a-f]{130}$/);

      const definition = { ...body, primaryType: 'Mail' } as unknown as TypedDataDefinition;
      expect(await recoverTypedDataAddress({ ...definition, signature: sig.signature })).toBe(w.address);
      expect(await (await masterKey(slug)).signTypedData(definition)).toBe(sig.signature);

      const stored = await h.api('GET', `/v1/wallets/${w.id}/transactions/${t.id}`, { key: w.apiKey });
      expect(stored.body.data.signedTransaction).toEqual(sig);
      expect(stored.body.data.response).toMatchObject({ primaryType: 'Mail' });

      const events = await eventually(
        async () => receiver.requests.filter((r) => r.body.includes(t.id)),
        (r) => r.length === 1,
      );
      const hook = verifyWebhook<Record<string, any>>({
        body: events[0]!.body,
        headers: events[0]!.headers,
        apiKey: w.apiKey,
        replay: false,
      });
      expect(hook.event).toBe('signed.success');
      expect(hook.data).toMatchObject({ id: t.id, type: 'SIGNED', signedTransaction: sig });
    });
  }

  it('handles an explicit primaryType, EIP712Domain in types, a salt, arrays of structs and integers as strings', async () => {
    const body = {
      domain: { name: 'Orders', version: '2', chainId: 31337, verifyingContract: CONTRACT, salt: `0x${'ab'.repeat(32)}` },
      primaryType: 'Order',
      types: {
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'version', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
          { name: 'salt', type: 'bytes32' },
        ],
        Item: [
          { name: 'token', type: 'address' },
          { name: 'amount', type: 'uint256' },
          { name: 'delta', type: 'int64' },
        ],
        Order: [
          { name: 'items', type: 'Item[]' },
          { name: 'pair', type: 'uint8[2]' },
          { name: 'memo', type: 'bytes' },
          { name: 'tag', type: 'bytes4' },
          { name: 'ok', type: 'bool' },
        ],
      },
      message: {
        items: [
          { token: CONTRACT, amount: '115792089237316195423570985008687907853269984665640564039457584007913129639935', delta: -5 },
          { token: CONTRACT, amount: 7, delta: '-9223372036854775808' },
        ],
        pair: [1, '2'],
        memo: '0x',
        tag: '0xdeadbeef',
        ok: true,
      },
    };
    const res = await sign('devnet-eth', body);
    expect(res.status).toBe(200);
    const definition = {
      ...body,
      message: {
        ...body.message,
        items: [
          { token: CONTRACT, amount: 2n ** 256n - 1n, delta: -5n },
          { token: CONTRACT, amount: 7n, delta: -(2n ** 63n) },
        ],
        pair: [1, 2],
      },
    } as unknown as TypedDataDefinition;
    expect(await recoverTypedDataAddress({ ...definition, signature: res.body.data.signedTransaction.signature })).toBe(
      h.wallets['devnet-eth']!.address,
    );
    expect(await (await masterKey('devnet-eth')).signTypedData(definition)).toBe(res.body.data.signedTransaction.signature);
  });

  it('ignores message members that are not in the type, as eth_signTypedData_v4 does', async () => {
    const body = mail();
    const res = await sign('devnet-eth', { ...body, message: { ...body.message, note: 'not signed', to: { ...body.message.to, age: 3 } } });
    expect(res.status).toBe(200);
    const expected = await (
      await masterKey('devnet-eth')
    ).signTypedData({ ...body, primaryType: 'Mail' } as unknown as TypedDataDefinition);
    expect(res.body.data.signedTransaction.signature).toBe(expected);
  });

  it('signs a recursive type when primaryType is given', async () => {
    const body = {
      domain: { name: 'Tree', version: '1', chainId: 1, verifyingContract: CONTRACT },
      primaryType: 'Node',
      types: {
        Node: [
          { name: 'label', type: 'string' },
          { name: 'children', type: 'Node[]' },
        ],
      },
      message: { label: 'root', children: [{ label: 'leaf', children: [] }] },
    };
    const res = await sign('devnet-eth', body);
    expect(res.status).toBe(200);
    const recovered = await recoverTypedDataAddress({
      ...(body as unknown as TypedDataDefinition),
      signature: res.body.data.signedTransaction.signature,
    });
    expect(recovered).toBe(h.wallets['devnet-eth']!.address);
  });
});

describe('malformed typed data is a 400 and writes nothing', () => {
  const base = mail();
  const withTypes = (types: unknown) => ({ ...base, types });
  const withMessage = (message: unknown) => ({ ...base, message });
  const cases: [string, unknown, string][] = [
    ['types not arrays', withTypes({ Person: { name: 'string' }, Mail: base.types.Mail }), 'types.Person'],
    ['a member without a type', withTypes({ ...base.types, Person: [{ name: 'name' }] }), 'types.Person.0.type'],
    ['an unknown referenced type', withTypes({ ...base.types, Mail: [{ name: 'from', type: 'Persn' }] }), 'types.Mail.0.type'],
    ['a bad Solidity type', withTypes({ ...base.types, Person: [{ name: 'age', type: 'uint7' }] }), 'types.Person.0.type'],
    ['the uint alias', withTypes({ ...base.types, Person: [{ name: 'age', type: 'uint' }] }), 'types.Person.0.type'],
    ['bytes33', withTypes({ ...base.types, Person: [{ name: 'b', type: 'bytes33' }] }), 'types.Person.0.type'],
    ['a malformed array', withTypes({ ...base.types, Person: [{ name: 'b', type: 'string[0]' }] }), 'types.Person.0.type'],
    [
      'a member twice',
      withTypes({ ...base.types, Person: [...base.types.Person, { name: 'name', type: 'string' }] }),
      'types.Person.2.name',
    ],
    ['an empty struct', withTypes({ ...base.types, Person: [] }), 'types.Person'],
    ['a struct named like a type', withTypes({ ...base.types, uint256: [{ name: 'a', type: 'bool' }] }), 'types.uint256'],
    ['two roots (primaryType not inferable)', withTypes({ ...base.types, Other: [{ name: 'a', type: 'bool' }] }), 'primaryType'],
    [
      'only a cycle (primaryType not inferable)',
      withTypes({ A: [{ name: 'b', type: 'B' }], B: [{ name: 'a', type: 'A' }] }),
      'primaryType',
    ],
    ['a primaryType that is not a type', { ...base, primaryType: 'Letter' }, 'primaryType'],
    ['no struct at all', withTypes({}), 'types'],
    ['a missing domain field', { ...base, domain: { name: 'x', version: '1', chainId: 1 } }, 'domain.verifyingContract'],
    ['a missing domain name', { ...base, domain: { version: '1', chainId: 1, verifyingContract: CONTRACT } }, 'domain.name'],
    ['a bad verifyingContract', { ...base, domain: { ...base.domain, verifyingContract: '0x1234' } }, 'domain.verifyingContract'],
    [
      'a bad checksum',
      { ...base, domain: { ...base.domain, verifyingContract: CONTRACT.replace('Cc', 'cC') } },
      'domain.verifyingContract',
    ],
    ['a bad salt', { ...base, domain: { ...base.domain, salt: '0x12' } }, 'domain.salt'],
    ['a string chainId', { ...base, domain: { ...base.domain, chainId: '1' } }, 'domain.chainId'],
    ['an unknown domain field', { ...base, domain: { ...base.domain, extra: 1 } }, 'domain.extra'],
    [
      'an EIP712Domain that leaves out a domain field',
      withTypes({ ...base.types, EIP712Domain: [{ name: 'name', type: 'string' }] }),
      'types.EIP712Domain',
    ],
    [
      'an EIP712Domain that lists a member twice',
      withTypes({
        ...base.types,
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'name', type: 'string' },
          { name: 'version', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
        ],
      }),
      'types.EIP712Domain',
    ],
    ['a missing message member', withMessage({ ...base.message, contents: undefined }), 'message.contents'],
    ['a bad nested address', withMessage({ ...base.message, to: { name: 'Bob', wallet: '0x12' } }), 'message.to.wallet'],
    ['a number for a string', withMessage({ ...base.message, contents: 5 }), 'message.contents'],
    ['a missing body part', { domain: base.domain, types: base.types }, 'message'],
  ];
  const ints = {
    ...base,
    primaryType: 'P',
    types: {
      P: [
        { name: 'a', type: 'uint8' },
        { name: 'b', type: 'int8' },
        { name: 'c', type: 'uint256[2]' },
      ],
    },
  };
  cases.push(
    ['a negative uint', { ...ints, message: { a: '-1', b: 0, c: [1, 2] } }, 'message.a'],
    ['an int out of range', { ...ints, message: { a: 1, b: 128, c: [1, 2] } }, 'message.b'],
    ['an exponent', { ...ints, message: { a: '1e3', b: 0, c: [1, 2] } }, 'message.a'],
    ['a fraction', { ...ints, message: { a: 1.5, b: 0, c: [1, 2] } }, 'message.a'],
    ['a fixed array of the wrong length', { ...ints, message: { a: 1, b: 0, c: [1] } }, 'message.c'],
  );

  for (const [name, body, field] of cases) {
    it(name, async () => {
      const before = await signedCount();
      const res = await sign('devnet-eth', body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(await signedCount()).toBe(before);
    });
  }
});

describe('tenancy', () => {
  it('is 404 for another wallet or business and 401 without a key; nothing is signed', async () => {
    const before = await signedCount();
    const eth = h.wallets['devnet-eth']!;
    expect((await sign('devnet-eth', mail(), h.wallets['devnet-bsc']!.apiKey)).status).toBe(404);
    const other = await h.services.businesses.create('Other');
    expect((await sign('devnet-eth', mail(), other.apiKey)).status).toBe(404);
    expect((await sign('devnet-eth', mail(), null)).status).toBe(401);
    const unknown = await h.api('POST', `/v1/wallets/00000000-0000-4000-8000-000000000000/signing/typed-data`, {
      key: eth.apiKey,
      body: mail(),
    });
    expect(unknown.status).toBe(404);
    expect(await signedCount()).toBe(before);
  });
});
