/**
 * The logger's cost per line with deep redaction (lib/redact.ts as pino's streamWrite hook)
 * against the previous configuration (pino's path redaction of a fixed list), on the lines
 * the service writes most, into a stream that discards them.
 *
 *   npx tsx bench/log-redaction.ts        (BENCH_LINES per case, default 200,000)
 *
 * Prints ns per line (median of 5 runs) for each kind of line and logger.
 */
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { createLogger } from '../src/lib/logger.js';

const LINES = Number(process.env.BENCH_LINES ?? 200_000);
const RUNS = 5;

const sink = () =>
  new Writable({
    write(_chunk, _enc, done) {
      done();
    },
  });

/** What src/lib/logger.ts configured before: a fixed list of paths, one level deep. */
function previousLogger(): Logger {
  const paths = [
    'req.headers["x-api-key"]',
    'req.headers.authorization',
    'req.headers.cookie',
    'headers["x-api-key"]',
    '*.apiKey',
    '*.privateKey',
    '*.mnemonic',
    '*.password',
    '*.masterKey',
    'apiKey',
    'privateKey',
    'mnemonic',
    'password',
  ];
  // With Fastify's own request serializer, which the app's logger used before.
  const req = (r: typeof fakeReq) => ({ method: r.method, url: r.url, host: r.host, remoteAddress: r.ip, remotePort: r.socket.remotePort });
  return pino({ level: 'info', base: undefined, redact: { paths, censor: '[redacted]' }, serializers: { req } }, sink());
}

const fakeReq = {
  method: 'POST',
  url: '/v1/wallets/01a213c8-c7aa-7000-9da0-5b0c9a4e0c11/withdraw',
  host: '127.0.0.1:8080',
  ip: '127.0.0.1',
  socket: { remotePort: 51234 },
};
const err = new Error('execution reverted: ERC20: transfer amount exceeds balance');
const secretLine = { res: { body: { data: { apiKey: 'sk_test_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG' } } } };

const CASES: Array<[string, (log: Logger) => void]> = [
  ['request completed (hot path)', (log) => log.info({ res: { statusCode: 200 }, responseTime: 3.21 }, 'request completed')],
  ['incoming request (URL, no query)', (log) => log.info({ req: fakeReq }, 'incoming request')],
  [
    'withdrawal broadcast (ids, hash, bigint)',
    (log) =>
      log.info(
        {
          transactionId: '01a213c8-c7aa-7000-9da0-5b0c9a4e0c11',
          hash: '0x9f2c4e6a1b3d5f7081a2c3e4f5061728394a5b6c7d8e9f00112233445566778899',
          nonce: 17,
          amount: 10n ** 20n,
        },
        'withdrawal broadcast',
      ),
  ],
  [
    'line with a key-like name (slow path)',
    (log) => log.info({ apiKeyId: 'k-1', walletId: 'w-1', keyPrefix: 'sk_test_AbCd' }, 'key authenticated'),
  ],
  ['a secret three levels down (slow path, redacted)', (log) => log.info(secretLine, 'created')],
  ['error with a stack', (log) => log.error({ err }, 'request failed')],
];

function time(fn: () => void): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < LINES; i++) fn();
  return Number(process.hrtime.bigint() - start) / LINES;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const loggers: Array<[string, Logger]> = [
  ['before', previousLogger().child({ reqId: 'req-1' })],
  ['now', createLogger('info', sink()).child({ reqId: 'req-1' })],
];
console.log(`ns per line, median of ${RUNS} runs of ${LINES.toLocaleString()} lines`);
for (const [name, write] of CASES) {
  for (const [, log] of loggers) for (let i = 0; i < 20_000; i++) write(log); // warm up
  // Interleaved runs: a busy machine slows both alike.
  const runs: number[][] = loggers.map(() => []);
  for (let r = 0; r < RUNS; r++) loggers.forEach(([, log], i) => runs[i]!.push(time(() => write(log))));
  const [before, now] = runs.map(median) as [number, number];
  console.log(
    `${name.padEnd(58)} before ${before.toFixed(0).padStart(6)}  now ${now.toFixed(0).padStart(6)}  (${((now / before - 1) * 100).toFixed(0)}%)`,
  );
}
