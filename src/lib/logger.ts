import { pino, type Logger, type LoggerOptions } from 'pino';
import { redactLine, redactUrl } from './redact.js';

export type { Logger };

/** The fields Fastify logs for a request, with secret query parameters (`?x-api-key=`, `token`, ...) redacted from the URL. */
function requestSerializer(req: {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}): Record<string, unknown> {
  return {
    method: req.method,
    url: typeof req.url === 'string' ? redactUrl(req.url) : req.url,
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/**
 * Redaction is the second line of defence (the first is never passing secrets to a
 * logger): every finished line passes lib/redact.ts, which removes secrets by property
 * name at any depth and by shape (API keys, mnemonics, extended private keys, secret URL
 * parameters) anywhere, including inside serialized errors.
 */
export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    base: undefined,
    serializers: { req: requestSerializer },
    hooks: { streamWrite: redactLine },
  };
}

export function createLogger(level = process.env.LOG_LEVEL ?? 'info', destination?: NodeJS.WritableStream): Logger {
  return destination ? pino(loggerOptions(level), destination) : pino(loggerOptions(level));
}
