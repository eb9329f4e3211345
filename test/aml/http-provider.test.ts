/**
 * The built-in HTTP screening provider against endpoints that misbehave: a redirect (which
 * must not carry the API key anywhere) and an answer too large to buffer. No database: the
 * provider is called directly, as the screening runner calls it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainHandle } from '../../src/modules/catalogue/service.js';
import { httpProvider, MAX_ANSWER_BYTES } from '../../src/modules/aml/http-provider.js';

const KEY = 'provider-key-under-test';
const chain = {} as ChainHandle; // the Chainalysis protocol does not read the chain

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('http screening provider', () => {
  const elsewhereHeaders: Record<string, string | string[] | undefined>[] = [];
  let elsewhere: Server;
  let provider: Server;
  let elsewhereUrl = '';
  let providerUrl = '';

  beforeAll(async () => {
    // Where a redirect points: it answers as a provider would, so following it would succeed.
    elsewhere = createServer((req, res) => {
      elsewhereHeaders.push(req.headers);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"identifications":[]}');
    });
    elsewhereUrl = await listen(elsewhere);
    provider = createServer((req, res) => {
      const address = decodeURIComponent(req.url!.split('/').at(-1)!);
      if (address === 'redirected') return void res.writeHead(302, { location: `${elsewhereUrl}/api/v1/address/redirected` }).end();
      if (address === 'huge') {
        // No content-length: the size is only learnt by reading.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"identifications":[');
        const chunk = '{"category":"sanctions","name":"x","description":"' + 'y'.repeat(16 * 1024) + '"},';
        for (let sent = 0; sent < MAX_ANSWER_BYTES * 2; sent += chunk.length) res.write(chunk);
        return void res.end('{}]}');
      }
      if (address === 'declared-huge') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(MAX_ANSWER_BYTES + 1) });
        return void res.end('{"identifications":[]}'.padEnd(MAX_ANSWER_BYTES + 1, ' '));
      }
      if (address === 'not-json') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>');
      const listed = address === 'listed';
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ identifications: listed ? [{ category: 'sanctions' }] : [] }));
    });
    providerUrl = await listen(provider);
  });

  afterAll(async () => {
    await new Promise((resolve) => elsewhere.close(resolve));
    await new Promise((resolve) => provider.close(resolve));
  });

  const screen = (address: string) =>
    httpProvider({ kind: 'chainalysis', url: providerUrl, apiKey: KEY }).screen(chain, [address], new AbortController().signal);

  it('answers listed and clean addresses', async () => {
    expect(await screen('listed')).toEqual([true]);
    expect(await screen('clean')).toEqual([false]);
  });

  it('does not follow a redirect, so the API key never leaves for another host', async () => {
    await expect(screen('redirected')).rejects.toThrow('HTTP 302 from the chainalysis API');
    expect(elsewhereHeaders).toEqual([]);
  });

  it('refuses an answer larger than the cap, declared or not', async () => {
    await expect(screen('huge')).rejects.toThrow(`answered more than ${MAX_ANSWER_BYTES} bytes`);
    await expect(screen('declared-huge')).rejects.toThrow(`answered more than ${MAX_ANSWER_BYTES} bytes`);
  });

  it('refuses an answer that is not the documented JSON', async () => {
    await expect(screen('not-json')).rejects.toThrow('answered without identifications');
  });
});
