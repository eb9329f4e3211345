/**
 * Logs objects that carry secrets (nested, in arrays, in errors and their causes, in
 * messages and URLs) through the real logger and checks that none survives, while
 * everything else is written as it was.
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { HDKey } from '@scure/bip32';
import { base58 } from '@scure/base';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import { createLogger } from './logger.js';
import { addSecretUrl, CENSOR, redactLine } from './redact.js';

function capture() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: createLogger('debug', sink), text: () => lines.join(''), lines };
}

const hex32 = () => randomBytes(32).toString('hex');
const apiKey = () => `sk_test_${randomBytes(32).toString('base64url')}`;
const mnemonic = (words: 12 | 15 | 18 | 21 | 24) => generateMnemonic(wordlist, (words / 3) * 32);
const xprv = () => HDKey.fromMasterSeed(randomBytes(32)).privateExtendedKey;
const tprv = () => HDKey.fromMasterSeed(randomBytes(32), { private: 0x04358394, public: 0x043587cf }).privateExtendedKey;

describe('the logger redacts secrets', () => {
  it('by name at any depth: data.address.privateKey, res.body.data.apiKey, seed, xprv, secret, password, headers', () => {
    const { logger, text } = capture();
    const secrets = {
      pk: `0x${hex32()}`,
      key: apiKey(),
      seed: hex32(),
      x: xprv(),
      s: hex32(),
      pw: 'correct horse battery staple',
      h: apiKey(),
    };
    logger.info({ data: { address: { id: 'a1', privateKey: secrets.pk } } }, 'export');
    logger.info({ res: { body: { data: { apiKey: secrets.key, id: 'w1' } } } }, 'created');
    logger.info({ wallet: { nested: { deeper: { seed: secrets.seed, xprv: secrets.x, webhookSecret: secrets.s } } } });
    logger.info({ user: { password: secrets.pw }, req: { headers: { 'x-api-key': secrets.h } } });
    logger.info({ seed: Buffer.from(secrets.seed, 'hex') }, 'a Buffer named seed');
    const out = text();
    for (const v of Object.values(secrets)) expect(out).not.toContain(v);
    expect(out).not.toContain(JSON.stringify([...Buffer.from(secrets.seed, 'hex')]).slice(1, 30));
    expect(out).toContain(CENSOR);
    // The rest of each object is kept.
    expect(out).toContain('"id":"a1"');
    expect(out).toContain('"id":"w1"');
  });

  it('in arrays, errors (message, stack, own properties, causes) and messages', () => {
    const { logger, text } = capture();
    const secrets = { a: apiKey(), b: apiKey(), m: mnemonic(24), c: apiKey(), x: tprv(), k: hex32() };
    logger.info({ keys: [{ privateKey: `0x${secrets.k}` }, { apiKey: secrets.a }] }, 'array');
    const err = Object.assign(new Error(`upstream refused key ${secrets.b}`), {
      mnemonic: secrets.m,
      config: { headers: { authorization: `Bearer ${secrets.c}` } },
    });
    (err as Error & { cause?: unknown }).cause = new Error(`derivation failed for ${secrets.x}`);
    logger.error({ err }, 'request failed');
    logger.warn(`could not restore wallet from "${mnemonic(12)}"`);
    const out = text();
    for (const v of Object.values(secrets)) expect(out).not.toContain(v);
    expect(out).toContain('upstream refused key');
    expect(out).toContain('"type":"Error"');
    for (const line of out.trim().split('\n')) JSON.parse(line); // still JSON
  });

  it('by shape under any name: API keys, 12 to 24 word mnemonics, xprv and tprv, and 32-byte hex in a key-named field', () => {
    const { logger, text } = capture();
    const shaped = [
      apiKey(),
      `sk_live_${randomBytes(32).toString('base64url')}`,
      `sk_biz_${randomBytes(32).toString('base64url')}`,
      xprv(),
      tprv(),
    ];
    const phrases = [mnemonic(12), mnemonic(15), mnemonic(18), mnemonic(21), mnemonic(24)];
    const hexKeys = [hex32(), `0x${hex32()}`];
    logger.info({
      note: `copied ${shaped[0]} into the ticket`,
      list: shaped.slice(1),
      words: phrases,
      multiline: phrases[0]!.replace(/ /g, '\n'),
    });
    logger.info({ signingKey: hexKeys[0], sk: hexKeys[1] });
    const out = text();
    for (const v of [...shaped, ...phrases, ...hexKeys]) expect(out).not.toContain(v);
    for (const p of phrases) expect(out).not.toContain(p.split(' ').slice(0, 12).join(' '));
    expect(out).toContain('copied [redacted] into the ticket');
  });

  it('secret query parameters in logged URLs, any case: x-api-key, apiKey, key, token', async () => {
    const { logger, text } = capture();
    const keys = [apiKey(), apiKey(), 'opaque-token-without-a-prefix', 'another-opaque-value'];
    const urls = [
      `/v1/wallets?x-api-key=${keys[0]}`,
      `/v1/wallets?page=1&ApiKey=${keys[1]}`,
      `/v1/wallets?TOKEN=${keys[2]}&limit=2`,
      `/v1/wallets?%6Bey=${keys[3]}`,
    ];
    for (const url of urls) logger.info({ req: { method: 'GET', url, ip: '127.0.0.1' } }, 'incoming request');
    logger.info({ link: `http://127.0.0.1/x?key=${keys[3]}` }, `GET /v1/x?token=${keys[2]}`);
    const out = text();
    for (const k of keys) expect(out).not.toContain(k);
    expect(out).toContain('page=1&ApiKey=[redacted]');
    expect(out).toContain('&limit=2');
  });

  it('an invitation link: its token is in the path (a bearer credential for a new account)', () => {
    const { logger, text } = capture();
    const token = '8g_WD7wMKtrQ5mUpIW6QM-60yzkOlV6GMrOhsIq52Yk';
    logger.info({ req: { method: 'GET', url: `/dashboard/join/${token}`, ip: '127.0.0.1' } }, 'incoming request');
    logger.info({ req: { method: 'POST', url: `/dashboard/join/${token}?x=1`, ip: '127.0.0.1' } }, 'incoming request');
    const out = text();
    expect(out).not.toContain(token);
    expect(out).toContain('/dashboard/join/[redacted]?x=1');
  });

  it("the password of a URL's userinfo: a DATABASE_URL or an RPC URL in a message or an error", () => {
    const { logger, text } = capture();
    const password = 'Hunter2-not-a-word';
    logger.error({ err: new Error(`cannot connect to postgres://wallet:${password}@db:5432/wallet`) }, 'start failed');
    logger.warn(`retrying postgresql://u:${password}@[::1]/db and wss://rpc:${password}@node.example/ws`);
    const out = text();
    expect(out).not.toContain(password);
    expect(out).toContain('postgres://wallet:[redacted]@db:5432/wallet');
    expect(out).toContain('wss://rpc:[redacted]@node.example/ws');
    for (const line of out.trim().split('\n')) JSON.parse(line);
  });

  it("the password of a URL's userinfo with a quote in it (valid: new URL and pg read it)", () => {
    const { logger, text } = capture();
    for (const password of ["Hunter2'not-a-word", 'Hunter2"not-a-word']) {
      expect(new URL(`postgres://wallet:${password}@db:5432/wallet`).host).toBe('db:5432');
      logger.error({ err: new Error(`cannot connect to postgres://wallet:${password}@db:5432/wallet`) }, 'start failed');
    }
    const out = text();
    expect(out).not.toContain('not-a-word');
    for (const line of out.trim().split('\n')) {
      JSON.parse(line);
      expect(line).toContain('postgres://wallet:[redacted]@db:5432/wallet');
    }
  });
});

describe("the configured chains' node URLs (addSecretUrl)", () => {
  it('lose everything after the host, as written, as the URL parser writes them, and inside JSON strings', () => {
    const { logger, text } = capture();
    const key = randomBytes(16).toString('hex');
    addSecretUrl(`https://eth-mainnet.g.alchemy.com/v2/${key}`);
    addSecretUrl(`https://user:pw@Node.Example:8443/${key}/rpc`);
    addSecretUrl(`wss://mainnet.infura.io/ws/v3/${key}?x=1`);
    addSecretUrl('http://127.0.0.1:8545');
    logger.error({ err: new Error(`HTTP request failed.\n\nURL: https://eth-mainnet.g.alchemy.com/v2/${key}`) }, 'request failed');
    // viem strips the userinfo through new URL, which lowercases the host.
    logger.warn({ err: `URL: https://node.example:8443/${key}/rpc` }, 'indexer step failed');
    logger.warn(`socket closed: wss://mainnet.infura.io/ws/v3/${key}?x=1`);
    logger.info({ rpcUrl: 'http://127.0.0.1:8545', other: 'https://eth-mainnet.g.alchemy.com/v2' }, 'started');
    const out = text();
    expect(out).not.toContain(key);
    expect(out).toContain(`URL: https://eth-mainnet.g.alchemy.com/${CENSOR}`);
    expect(out).toContain(`https://node.example:8443/${CENSOR}`);
    expect(out).toContain(`wss://mainnet.infura.io/${CENSOR}`);
    // A URL with nothing after its host, and text that is not a registered URL, are kept.
    expect(out).toContain('"rpcUrl":"http://127.0.0.1:8545"');
    expect(out).toContain('"other":"https://eth-mainnet.g.alchemy.com/v2"');
    for (const line of out.trim().split('\n')) JSON.parse(line);
  });
});

describe('the logger keeps what is not a secret', () => {
  it('transaction hashes, ids, prefixes, big integers and ordinary prose pass unchanged', () => {
    const { logger, lines } = capture();
    const hash = `0x${hex32()}`;
    logger.info(
      {
        txHash: hash,
        hash,
        apiKeyId: 'k-1',
        keyPrefix: 'sk_test_abc',
        amount: 123456789012345678901234567890n,
        token: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
      },
      'the quick brown fox jumps over the lazy dog and then keeps running far away',
    );
    logger.info({ showPrivateKey: true, password: null }, 'flags');
    expect(lines[1]).toContain('"showPrivateKey":true,"password":null');
    const line = lines[0]!;
    expect(line).toContain(hash);
    expect(line).toContain('"apiKeyId":"k-1"');
    expect(line).toContain('"keyPrefix":"sk_test_abc"');
    expect(line).toContain('123456789012345678901234567890');
    expect(line).toContain('0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48');
    expect(line).toContain('the quick brown fox');
  });

  it('eleven BIP39 words are prose, twelve are a mnemonic', () => {
    const words = mnemonic(12).split(' ');
    expect(redactLine(JSON.stringify({ msg: words.slice(0, 11).join(' ') }))).toContain(words.slice(0, 11).join(' '));
    expect(redactLine(JSON.stringify({ msg: `xyzzy: ${words.join(' ')} <-` }))).toBe(JSON.stringify({ msg: 'xyzzy: [redacted] <-' }));
  });

  it('a line with nothing suspect is returned as the same string (the hot path)', () => {
    const line = '{"level":30,"time":1,"reqId":"r1","res":{"statusCode":200},"responseTime":1.2,"msg":"request completed"}\n';
    expect(redactLine(line)).toBe(line);
  });
});

describe('ed25519 (Solana) secret keys', () => {
  // As ed25519 wallets, key tools and the Solana stand-in's faucet hold them: `secretKey`,
  // base58 of the 64-byte secret key (seed || public key), or its bytes.
  const ed25519Secret = () => base58.encode(randomBytes(64));
  it('by name (secretKey, secret_key, privKey, signingKey) and as base58 of 64 bytes in a key-named property', () => {
    const { logger, text } = capture();
    const secrets = [ed25519Secret(), ed25519Secret(), ed25519Secret(), ed25519Secret(), ed25519Secret()];
    const bytes = [...randomBytes(64)];
    logger.info({ faucet: { address: 'So1ana', secretKey: secrets[0] } }, 'faucet');
    logger.info({ secret_key: secrets[1], privKey: secrets[2] });
    logger.info({ signingKey: secrets[3] });
    logger.info({ key: secrets[4] }, 'a key-named property');
    logger.info({ keypair: { secretKey: bytes } }, 'a keypair');
    const out = text();
    for (const v of secrets) expect(out).not.toContain(v);
    expect(out).not.toContain(bytes.slice(0, 8).join(','));
    expect(out).toContain('"address":"So1ana"');
    // A 64-byte base58 value under a name that is no key (a Solana transaction signature) stays.
    const signature = ed25519Secret();
    expect(redactLine(JSON.stringify({ signature }))).toContain(signature);
  });

  it('as its 64 bytes (a solana-keygen keypair file: a JSON array) in a key-named property', () => {
    const { logger, text } = capture();
    const a = [...randomBytes(64)];
    const b = [...randomBytes(64)];
    logger.info({ key: a }, 'a key as bytes');
    logger.info({ faucet: { keypair: b } }, 'a keypair file');
    const out = text();
    expect(out).not.toContain(a.join(','));
    expect(out).not.toContain(b.join(','));
    // 64 bytes under a name that is no key (a signature's bytes) stay.
    const sig = [...randomBytes(64)];
    expect(redactLine(JSON.stringify({ signature: sig }))).toContain(sig.join(','));
  });
});

describe('redactLine on odd input', () => {
  it('handles escaped quotes and backslashes, odd property names and text that is not JSON', () => {
    const key = apiKey();
    const line = `${JSON.stringify({ 'we"ird\\name': 'x', msg: `say "hi" \\ ${key}`, 'private"Key': 'a secret' })}\n`;
    const out = redactLine(line);
    expect(out).not.toContain(key);
    expect(JSON.parse(out)).toEqual({ 'we"ird\\name': 'x', msg: 'say "hi" \\ [redacted]', 'private"Key': '[redacted]' });
    expect(redactLine(`not json: ${key}\n`)).toBe('not json: [redacted]\n');
  });
});

describe('redactLine, property-based', () => {
  it('always writes valid JSON, keeps lines without secrets, and removes a secret planted anywhere', () => {
    const key = apiKey();
    const phrase = mnemonic(12);
    const plain = fc
      .jsonValue({ maxDepth: 4 })
      .filter(
        (v) => !/key|secret|seed|prv|priv|mnemonic|pass|pwd|token|auth|cookie|session|kek|sig|sk_|whsec_/i.test(JSON.stringify(v) ?? ''),
      );
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 4 }),
        plain,
        fc.array(fc.string({ maxLength: 6 }), { maxLength: 5 }),
        fc.constantFrom('apiKey', 'note', 'seed', 'x'),
        (value, clean, path, name) => {
          // Anything: still one JSON value after redaction.
          const any = `${JSON.stringify({ value })}\n`;
          expect(() => JSON.parse(redactLine(any))).not.toThrow();
          // Nothing suspect: the same line.
          const untouched = `${JSON.stringify({ clean })}\n`;
          expect(JSON.parse(redactLine(untouched))).toEqual(JSON.parse(untouched));
          // A secret at the end of a random path, by name or by shape: gone.
          const planted = path.reduceRight<unknown>((inner, k) => ({ [k]: inner, other: value }), { [name]: `${key} ${phrase}` });
          const out = redactLine(`${JSON.stringify({ planted })}\n`);
          expect(out).not.toContain(key);
          expect(out).not.toContain(phrase);
        },
      ),
      { seed: 42, numRuns: 300 },
    );
  });
});
