import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/**
 * Paths that may carry secrets anywhere in a log object. Redaction is the second line of
 * defence: the first is never passing secrets to a logger at all.
 */
export const REDACT_PATHS = [
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

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: undefined,
  };
}

export function createLogger(level = process.env.LOG_LEVEL ?? 'info', destination?: NodeJS.WritableStream): Logger {
  return destination ? pino(loggerOptions(level), destination) : pino(loggerOptions(level));
}
