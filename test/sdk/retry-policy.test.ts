/**
 * The SDK's retry and reconnect policies against a fetch answering what the service answers:
 * a 503 DATABASE_BUSY ("it may have taken effect in part") is not sent again for a POST the
 * service does not answer once per Idempotency-Key; a stream closed with reason `error`
 * reconnects after the service's `retry:`, not in a tight loop.
 */
import { describe, expect, it } from 'vitest';
import { WalletClient } from '../../packages/sdk/src/index.js';

const WALLET = '0195f3c2-0000-7000-8000-000000000001';

describe('retries of non-idempotent POSTs', () => {
  it('does not send a contract write again after 503 DATABASE_BUSY ("it may have taken effect in part")', async () => {
    const sent: { method: string; path: string; key: string | null }[] = [];
    const fake: typeof fetch = async (input, init) => {
      sent.push({
        method: init?.method ?? 'GET',
        path: new URL(String(input)).pathname,
        key: new Headers(init?.headers).get('idempotency-key'),
      });
      // The service's answer when the pool wait ran out mid-request (src/http/errors.ts fromDatabase).
      return new Response(
        JSON.stringify({
          statusCode: 503,
          error: 'DATABASE_BUSY',
          message:
            'The database connections of this instance stayed busy and this request was cut short; it may have taken effect in part. Send it again with the same reference or Idempotency-Key, or look it up first.',
          requestId: 'req-1',
        }),
        { status: 503, headers: { 'content-type': 'application/json' } },
      );
    };
    const client = new WalletClient({ baseUrl: 'http://wallet.test', apiKey: 'sk_test_x', fetch: fake, maxRetryDelayMs: 1 });
    await expect(
      client.contracts.write(WALLET, {
        address: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
        method: 'transfer',
        parameters: ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8', '1000000'],
        abi: [],
      } as never),
    ).rejects.toMatchObject({ code: 'DATABASE_BUSY' });
    // The service ignores Idempotency-Key on this route (docs/sdk.md): each send is a new write.
    expect(sent).toHaveLength(1);
  });
});

describe("a 503 that is not the service's own", () => {
  it("does not send a swap again after a proxy's 503 (the upstream reset mid-request: it may have been done)", async () => {
    const sent: { path: string; key: string | null }[] = [];
    const fake: typeof fetch = async (input, init) => {
      sent.push({ path: new URL(String(input)).pathname, key: new Headers(init?.headers).get('idempotency-key') });
      // Envoy's answer (an Istio or similar front) when the service's connection closed before
      // it answered, e.g. the process died after committing: no service error body.
      return new Response('upstream connect error or disconnect/reset before headers. reset reason: connection termination', {
        status: 503,
        headers: { 'content-type': 'text/plain' },
      });
    };
    const client = new WalletClient({ baseUrl: 'http://wallet.test', apiKey: 'sk_test_x', fetch: fake, maxRetryDelayMs: 1 });
    await expect(client.swaps.execute(WALLET, { fromAssetId: WALLET, toAssetId: WALLET, amount: '10' } as never)).rejects.toMatchObject({
      status: 503,
      code: 'HTTP_503',
    });
    // The service ignores Idempotency-Key on this route: a second send would be a second swap.
    expect(sent).toHaveLength(1);
  });

  it("still sends a POST again after the service's own 503 CHAIN_UNAVAILABLE (nothing was written)", async () => {
    let calls = 0;
    const fake: typeof fetch = async () => {
      calls++;
      if (calls === 1) {
        return new Response(
          JSON.stringify({ statusCode: 503, error: 'CHAIN_UNAVAILABLE', message: "A chain's RPC endpoint failed", requestId: 'r' }),
          { status: 503, headers: { 'content-type': 'application/json' } },
        );
      }
      return new Response(JSON.stringify({ statusCode: 200, message: 'ok', data: { id: 'x' } }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    };
    const client = new WalletClient({ baseUrl: 'http://wallet.test', apiKey: 'sk_test_x', fetch: fake, maxRetryDelayMs: 1 });
    await expect(client.swaps.execute(WALLET, { fromAssetId: WALLET, toAssetId: WALLET, amount: '10' } as never)).resolves.toEqual({
      id: 'x',
    });
    expect(calls).toBe(2);
  });
});

describe('POSTs that are reads', () => {
  // A proxy's 503 (no service body) and a broken connection say nothing of what the service did:
  // harmless to send again where the request moves nothing, as for a GET.
  const envoy = () =>
    new Response('upstream connect error or disconnect/reset before headers. reset reason: connection termination', {
      status: 503,
      headers: { 'content-type': 'text/plain' },
    });
  const ok = (data: unknown) =>
    new Response(JSON.stringify({ statusCode: 200, message: 'ok', data }), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });

  it("a withdrawal's network-fee, a contract read and a swap quote are sent again after a proxy's 503", async () => {
    const calls = new Map<string, number>();
    const fake: typeof fetch = async (input) => {
      const path = new URL(String(input)).pathname;
      const n = (calls.get(path) ?? 0) + 1;
      calls.set(path, n);
      return n === 1 ? envoy() : ok({ fee: '0.001' });
    };
    const client = new WalletClient({ baseUrl: 'http://wallet.test', apiKey: 'sk_test_x', fetch: fake, maxRetryDelayMs: 1 });
    await expect(client.withdrawals.networkFee(WALLET, { assetId: WALLET, address: WALLET, amount: '1' } as never)).resolves.toEqual({
      fee: '0.001',
    });
    await expect(client.contracts.read(WALLET, { address: WALLET, method: 'x', abi: [] } as never)).resolves.toEqual({ fee: '0.001' });
    await expect(client.swaps.quote(WALLET, { fromAssetId: WALLET, toAssetId: WALLET, amount: '1' } as never)).resolves.toEqual({
      fee: '0.001',
    });
    expect([...calls.values()]).toEqual([2, 2, 2]);
  });

  it("a withdrawal's network-fee is sent again after a broken connection", async () => {
    let calls = 0;
    const fake: typeof fetch = async () => {
      calls++;
      if (calls === 1) throw new TypeError('fetch failed: other side closed');
      return ok({ fee: '0.001' });
    };
    const client = new WalletClient({ baseUrl: 'http://wallet.test', apiKey: 'sk_test_x', fetch: fake, maxRetryDelayMs: 1 });
    await expect(client.withdrawals.networkFee(WALLET, { assetId: WALLET, address: WALLET, amount: '1' } as never)).resolves.toEqual({
      fee: '0.001',
    });
    expect(calls).toBe(2);
  });
});

describe('event stream reconnects', () => {
  it('honours the server\'s `retry: 1000` (or backs off) after `stream.closed` reason "error"', async () => {
    let connections = 0;
    const fake: typeof fetch = async () => {
      connections++;
      // What src/modules/eventfeed/stream.ts writes when its read loop fails: the retry hint, then the close.
      const text =
        'retry: 1000\n: open after 5.00000000-0000-0000-0000-000000000000\n\n' +
        'event: stream.closed\ndata: {"reason":"error","message":"the stream failed; reconnect with Last-Event-ID"}\n\n';
      return new Response(text, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    };
    const client = new WalletClient({ baseUrl: 'http://wallet.test', apiKey: 'sk_test_x', fetch: fake });
    const stream = client.events.stream();
    const reading = (async () => {
      for await (const _ of stream) void _;
    })().catch(() => undefined);
    await new Promise((r) => setTimeout(r, 500));
    stream.close();
    await reading;
    // The server asked for 1 s between attempts: at most the first connection and one more.
    expect(connections).toBeLessThanOrEqual(2);
  });
});
