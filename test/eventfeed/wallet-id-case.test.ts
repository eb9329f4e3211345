/**
 * `walletId` in the feed's query is a UUID, which names a wallet whatever its case (the schema
 * takes either). Spelt in upper case it must scope the list and the stream as the lower-case
 * spelling does: a wallet key naming its own wallet is answered, and a stream is woken by the
 * wallet's events as they commit (not only by its heartbeat, which here is a minute away).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, type Harness, type TestWallet } from '../support/harness.js';
import { openStream, type SseConnection } from '../support/sse.js';

let h: Harness;
let a: TestWallet;
const open: SseConnection[] = [];

beforeAll(async () => {
  h = await startHarness({ worker: true, services: { eventStreams: { heartbeatMs: 60_000 } } });
  a = h.wallets['devnet-eth']!;
});
afterAll(async () => {
  for (const c of open) c.close();
  await h?.stop();
});

const trigger = async (w: TestWallet) => {
  const res = await h.api('POST', `/v1/wallets/${w.id}/webhooks/trigger`, { key: w.apiKey, body: { event: 'deposit.success' } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { id: string };
};

it("a wallet key may name its own wallet in upper case in the feed's query", async () => {
  const e = await trigger(a);
  const res = await h.api('GET', `/v1/events?walletId=${a.id.toUpperCase()}`, { key: a.apiKey });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data.map((x: { id: string }) => x.id)).toContain(e.id);
});

it('a stream scoped by an upper-case walletId is woken by the wallet events as they commit', async () => {
  const conn = await openStream(h.baseUrl, h.businessKey, { query: `walletId=${a.id.toUpperCase()}` });
  open.push(conn);
  expect(conn.status).toBe(200);
  // The stream reads its start before it waits: give it that moment, then write.
  await new Promise((r) => setTimeout(r, 300));
  const e = await trigger(a);
  await conn.waitForEvents(1, 5_000);
  expect(conn.events().map((x) => x.id)).toEqual([e.id]);
  conn.close();
});
