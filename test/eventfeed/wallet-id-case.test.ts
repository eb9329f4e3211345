/**
 * `walletId` in the feed's query is a UUID, which names a wallet whatever its case (the schema
 * takes either). Spelt in upper case it must scope the list and the stream as the lower-case
 * spelling does: a wallet key naming its own wallet is answered, and a stream is woken by the
 * wallet's events as they commit (not only by its heartbeat, which here is a minute away).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, type Harness, type TestWallet } from '../support/harness.js';
import { openStream, type SseConnection } from '../support/sse.js';
import { eventually } from '../support/fixtures.js';

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
  const list = () => h.api('GET', `/v1/events?walletId=${a.id.toUpperCase()}`, { key: a.apiKey });
  const res = await list();
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  // Listed once no older transaction is open anywhere in the test cluster (another file's may
  // be: the feed's horizon): polled.
  const ids = await eventually(
    async () => ((await list()).body.data as { id: string }[]).map((x) => x.id),
    (found) => found.includes(e.id),
    20_000,
  );
  expect(ids).toContain(e.id);
});

it('a stream scoped by an upper-case walletId is woken by the wallet events as they commit', async () => {
  const conn = await openStream(h.baseUrl, h.businessKey, { query: `walletId=${a.id.toUpperCase()}` });
  open.push(conn);
  expect(conn.status).toBe(200);
  // The stream reads its start before it waits: give it that moment, then write.
  await new Promise((r) => setTimeout(r, 300));
  const e = await trigger(a);
  // Woken as it commits, far sooner than the heartbeat (a minute); an earlier event of the
  // wallet held behind another file's open transaction when the stream opened may come too.
  await eventually(
    async () => conn.events().map((x) => x.id),
    (ids) => ids.includes(e.id),
    20_000,
  );
  expect(conn.events().every((x) => x.walletId === a.id)).toBe(true);
  conn.close();
});
