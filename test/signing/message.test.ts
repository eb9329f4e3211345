/**
 * Message signing (issue 12 item 6) and the typed-data alias (item 5), as clients written
 * for the described service call them: `POST .../signing/message` (alias `sign/message`)
 * with `{ message }` on the master and on a child address, and `POST .../sign/typed-data`.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { recoverMessageAddress, recoverTypedDataAddress, type Hex, type TypedDataDefinition } from 'viem';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { verifyWebhook } from '../../packages/sdk/src/webhooks/index.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { eventually } from '../support/fixtures.js';
import { mail } from './eip712-example.js';

let h: Harness;
let receiver: Receiver;
const ETH = 'devnet-eth';

beforeAll(async () => {
  h = await startHarness({ specs: [DEVNET_CHAINS[0]!], worker: true });
  receiver = await startReceiver();
  const w = h.wallets[ETH]!;
  expect((await h.api('PATCH', `/v1/wallets/${w.id}`, { key: w.apiKey, body: { webhookUrl: receiver.url } })).status).toBe(200);
});
afterAll(async () => {
  await receiver?.close();
  await h?.stop();
});

const wallet = () => h.wallets[ETH]!;
const post = (path: string, body: unknown) => h.api('POST', `/v1/wallets/${wallet().id}${path}`, { key: wallet().apiKey, body });

async function signedCount(): Promise<number> {
  const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM transactions WHERE type = 'SIGNED'`.execute(h.database.db);
  return Number(rows[0]!.n);
}

/** The verified `signed.success` webhook of a transaction. */
async function signedEvent(id: string) {
  const [hook] = await eventually(
    async () => receiver.requests.filter((r) => r.body.includes(id)),
    (r) => r.length === 1,
  );
  return verifyWebhook<Record<string, any>>({ body: hook!.body, headers: hook!.headers, apiKey: wallet().apiKey, replay: false });
}

async function child(): Promise<{ id: string; address: string }> {
  const res = await post('/addresses', { disableAutoSweep: true });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

describe('message signing (EIP-191)', () => {
  it('POST /signing/message { message }: a SIGNED Transaction whose { r, s, v, signature } recovers to the master, signed.success sent', async () => {
    const message = 'Sign in to Example Pay: nonce 8f2c';
    const res = await post('/signing/message', { message });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ statusCode: 200, message: 'Message signed successfully' });
    const t = res.body.data;
    expect(t).toMatchObject({ type: 'SIGNED', status: 'SUCCESS', confirmed: true, senderAddress: wallet().address });
    const sig = t.signedTransaction;
    expect(Object.keys(sig).sort()).toEqual(['r', 's', 'signature', 'v']);
    expect([27, 28]).toContain(sig.v);
    expect(sig.signature).toMatch(/^0x[0-9a-f]{130}$/);
    expect(await recoverMessageAddress({ message, signature: sig.signature })).toBe(wallet().address);
    const stored = await h.api('GET', `/v1/wallets/${wallet().id}/transactions/${t.id}`, { key: wallet().apiKey });
    expect(stored.body.data.signedTransaction).toEqual(sig);
    expect(stored.body.data.response).toMatchObject({ kind: 'EIP-191', encoding: 'text', message });
    const hook = await signedEvent(t.id);
    expect(hook).toMatchObject({ event: 'signed.success', data: { id: t.id, type: 'SIGNED', signedTransaction: sig } });
  });

  it('0x-hex is signed as bytes; the alias sign/message gives the same signature', async () => {
    const raw = '0x48656c6c6f2c20776f726c6421' as Hex; // "Hello, world!"
    const res = await post('/signing/message', { message: raw });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const sig = res.body.data.signedTransaction;
    expect(await recoverMessageAddress({ message: { raw }, signature: sig.signature })).toBe(wallet().address);
    // Bytes and the same text sign the same EIP-191 digest.
    const text = await post('/sign/message', { message: 'Hello, world!' });
    expect(text.status, JSON.stringify(text.body)).toBe(200);
    expect(text.body.data).toMatchObject({ type: 'SIGNED', status: 'SUCCESS' });
    expect(text.body.data.signedTransaction).toEqual(sig);
  });

  it('on a child address (canonical and alias): signed by the child key, linked to the address', async () => {
    const c = await child();
    for (const path of [`/addresses/${c.id}/signing/message`, `/addresses/${c.id}/sign/message`]) {
      const message = `child ${path}`;
      const res = await post(path, { message });
      expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200);
      const t = res.body.data;
      expect(t).toMatchObject({ type: 'SIGNED', status: 'SUCCESS', senderAddress: c.address, address: { id: c.id } });
      expect(await recoverMessageAddress({ message, signature: t.signedTransaction.signature })).toBe(c.address);
      expect((await signedEvent(t.id)).event).toBe('signed.success');
    }
    expect((await post(`/addresses/${randomUUID()}/signing/message`, { message: 'x' })).status).toBe(404);
  });

  it('bad bodies are 400s naming the field, and sign nothing', async () => {
    const before = await signedCount();
    for (const path of ['/signing/message', '/sign/message']) {
      for (const body of [
        {},
        { message: '' },
        { message: '0xabc' },
        { message: '0x' },
        { message: 'hi', encoding: 'utf8' },
        { message: 7 },
      ]) {
        const res = await post(path, body);
        expect(res.status, `${path} ${JSON.stringify(body)} ${JSON.stringify(res.body)}`).toBe(400);
        expect(res.body).toMatchObject({ statusCode: 400, error: 'VALIDATION_ERROR' });
      }
      const odd = await post(path, { message: '0xabc' });
      expect(odd.body.details).toEqual([{ field: 'message', message: expect.stringContaining('even') }]);
    }
    expect(await signedCount()).toBe(before);
  });
});

describe('typed-data alias', () => {
  it('POST /sign/typed-data answers as /signing/typed-data: the same signature, recoverable to the master', async () => {
    const body = mail();
    const alias = await post('/sign/typed-data', body);
    expect(alias.status, JSON.stringify(alias.body)).toBe(200);
    expect(alias.body).toMatchObject({ statusCode: 200, message: 'Typed data signed successfully' });
    expect(alias.body.data).toMatchObject({ type: 'SIGNED', status: 'SUCCESS', confirmed: true, senderAddress: wallet().address });
    const canonical = await post('/signing/typed-data', body);
    expect(alias.body.data.signedTransaction).toEqual(canonical.body.data.signedTransaction);
    const definition = { ...body, primaryType: 'Mail' } as unknown as TypedDataDefinition;
    expect(await recoverTypedDataAddress({ ...definition, signature: alias.body.data.signedTransaction.signature })).toBe(wallet().address);
    expect((await signedEvent(alias.body.data.id)).event).toBe('signed.success');
    expect((await post('/sign/typed-data', { ...body, extra: 1 })).status).toBe(400);
  });

  it('the OpenAPI document lists the new routes, and each alias as deprecated naming its canonical route', async () => {
    const spec = await fetch(`${h.baseUrl}/openapi.json`).then((r) => r.json());
    for (const path of ['/v1/wallets/{walletId}/signing/message', '/v1/wallets/{walletId}/addresses/{addressId}/signing/message']) {
      const op = spec.paths[path]?.post;
      expect(op, path).toBeDefined();
      expect(op.deprecated).toBeUndefined();
      expect(op.requestBody.content['application/json'].schema.required).toEqual(['message']);
    }
    for (const [alias, canonical] of [
      ['/v1/wallets/{walletId}/sign/typed-data', '/v1/wallets/{walletId}/signing/typed-data'],
      ['/v1/wallets/{walletId}/sign/message', '/v1/wallets/{walletId}/signing/message'],
      ['/v1/wallets/{walletId}/addresses/{addressId}/sign/message', '/v1/wallets/{walletId}/addresses/{addressId}/signing/message'],
    ] as const) {
      const op = spec.paths[alias]?.post;
      expect(op, alias).toBeDefined();
      expect(op.deprecated).toBe(true);
      expect(op.description).toContain(`Alias of \`${canonical}\``);
    }
  });
});
