/**
 * The one place that turns errors into HTTP statuses and the error body of DESIGN
 * section 4: `{ statusCode, message, error, details?, requestId }`. Statuses come from the
 * error catalogue (error-catalogue.ts).
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  AppError,
  BusinessRuleError,
  ConflictError,
  ForbiddenError,
  RateLimitedError,
  UpstreamError,
  type FieldIssue,
} from '../lib/errors.js';
import { catalogueEntry, ERROR_CATALOGUE as C } from './error-catalogue.js';

export interface ErrorBody {
  statusCode: number;
  message: string;
  error: string;
  details?: FieldIssue[];
  requestId: string;
}

export function statusOf(err: AppError): number {
  const known = catalogueEntry(err.code);
  if (known) return known.status;
  // A code missing from the catalogue (test/errors/catalogue.test.ts forbids it): the class decides.
  if (err instanceof ForbiddenError) return 403;
  if (err instanceof RateLimitedError) return 429;
  if (err instanceof ConflictError) return 409;
  if (err instanceof BusinessRuleError) return 422;
  if (err instanceof UpstreamError) return 503;
  return 400;
}

/** Fastify's own errors (parsing, validation, limits) in our codes. */
function fromFastify(err: FastifyError): { status: number; code: string; message: string; details?: FieldIssue[] } | null {
  if (err.validation) {
    const details = err.validation.map((v) => ({
      field: fieldOf(err.validationContext, v.instancePath, v.params),
      message: v.message ?? 'is invalid',
    }));
    const first = details[0];
    return {
      status: C.VALIDATION_ERROR.status,
      code: 'VALIDATION_ERROR',
      message: first ? `${first.field} ${first.message}` : 'Invalid request',
      details,
    };
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: C.PAYLOAD_TOO_LARGE.status, code: 'PAYLOAD_TOO_LARGE', message: 'Request body is too large' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        status: C.UNSUPPORTED_MEDIA_TYPE.status,
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message: 'Send JSON with Content-Type: application/json',
      };
    // A multipart form (payment links) past its limits, or not a form at all.
    case 'FST_REQ_FILE_TOO_LARGE':
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return { status: C.PAYLOAD_TOO_LARGE.status, code: 'PAYLOAD_TOO_LARGE', message: err.message };
    case 'FST_PROTO_VIOLATION':
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return { status: C.VALIDATION_ERROR.status, code: 'VALIDATION_ERROR', message: err.message };
    // Without the path in the message: Fastify's echoes it whole.
    case 'FST_ERR_BAD_URL':
      return { status: C.VALIDATION_ERROR.status, code: 'VALIDATION_ERROR', message: 'The path is not valid percent-encoded UTF-8' };
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { status: C.VALIDATION_ERROR.status, code: 'VALIDATION_ERROR', message: 'A path segment is too long' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: C.MALFORMED_JSON.status, code: 'MALFORMED_JSON', message: err.message };
  }
  if (err instanceof SyntaxError || err.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return { status: C.MALFORMED_JSON.status, code: 'MALFORMED_JSON', message: 'Request body is not valid JSON' };
  }
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    // Any other refusal by Fastify or a plugin (a traversal under /docs, a QUERY without a
    // body type): a code of the catalogue, the one its status stands for, never a name made
    // up here (clients and the SDK's types know only the catalogue's).
    const code = GENERIC_CODES[err.statusCode] ?? 'VALIDATION_ERROR';
    return { status: C[code].status, code, message: err.message };
  }
  return null;
}

/** The catalogue's code for a plain 4xx of each status it has one for; others answer 400 VALIDATION_ERROR. */
const GENERIC_CODES: Partial<
  Record<number, 'VALIDATION_ERROR' | 'FORBIDDEN' | 'ROUTE_NOT_FOUND' | 'PAYLOAD_TOO_LARGE' | 'UNSUPPORTED_MEDIA_TYPE'>
> = {
  400: 'VALIDATION_ERROR',
  403: 'FORBIDDEN',
  404: 'ROUTE_NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

function fieldOf(context: string | undefined, instancePath: string, params: Record<string, unknown>): string {
  const base = instancePath.replace(/^\//, '').replace(/\//g, '.');
  const missing = typeof params.missingProperty === 'string' ? params.missingProperty : undefined;
  const extra = typeof params.additionalProperty === 'string' ? params.additionalProperty : undefined;
  const leaf = missing ?? extra;
  const path = [base, leaf].filter(Boolean).join('.');
  return path || context || 'body';
}

/**
 * PostgreSQL gave up on the request's transaction because of another one (a deadlock, a
 * serialization failure, a lock it was told not to wait for). The transaction was rolled
 * back, so nothing was written and the same request can simply be sent again: 503 with
 * Retry-After, not 500. The lock orders in the stores are meant to make this rare.
 */
const CONCURRENCY_CODES = new Set(['40P01', '40001', '55P03']);

/** pg-pool's error when no connection came within POOL_WAIT_MS (db/pool.ts); it carries no code. */
const POOL_WAIT_MESSAGE = 'timeout exceeded when trying to connect';

export function fromDatabase(err: unknown): { status: number; code: string; message: string; details?: FieldIssue[] } | null {
  if (err instanceof Error && err.message === POOL_WAIT_MESSAGE) {
    return {
      status: C.DATABASE_BUSY.status,
      code: 'DATABASE_BUSY',
      message:
        'The database connections of this instance stayed busy and this request was cut short; it may have taken effect in part. Send it again with the same reference or Idempotency-Key, or look it up first.',
    };
  }
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !CONCURRENCY_CODES.has(code)) return null;
  return {
    status: C.CONCURRENT_UPDATE.status,
    code: 'CONCURRENT_UPDATE',
    message: 'Another change to the same records was in progress; nothing was written. Send the request again.',
  };
}

export function errorHandler(err: FastifyError | AppError | Error, req: FastifyRequest, reply: FastifyReply) {
  let body: ErrorBody;
  if (err instanceof AppError) {
    const status = statusOf(err);
    body = { statusCode: status, message: err.message, error: err.code, requestId: req.id };
    if (err.details) body.details = err.details;
    // The auth hook sets it (with the RateLimit headers) for its own refusals; others say it here.
    if (err instanceof RateLimitedError && !reply.hasHeader('retry-after')) void reply.header('retry-after', String(err.retryAfterS));
    if (status >= 500) req.log.error({ err }, 'request failed');
  } else {
    const mapped = fromFastify(err as FastifyError) ?? fromDatabase(err);
    if (mapped) {
      if (mapped.code === 'CONCURRENT_UPDATE') {
        req.log.warn({ err }, 'request rolled back by a concurrent transaction');
        void reply.header('retry-after', '1');
      }
      if (mapped.code === 'DATABASE_BUSY') {
        req.log.error({ err }, 'no database connection within the pool wait');
        void reply.header('retry-after', '5');
      }
      body = { statusCode: mapped.status, message: mapped.message, error: mapped.code, requestId: req.id };
      if (mapped.details) body.details = mapped.details;
    } else {
      req.log.error({ err }, 'unexpected error');
      body = { statusCode: C.INTERNAL_ERROR.status, message: 'Internal server error', error: 'INTERNAL_ERROR', requestId: req.id };
    }
  }
  if (body.statusCode === 401) void reply.header('www-authenticate', 'ApiKey header="x-api-key"');
  return reply.status(body.statusCode).send(body);
}

export function notFoundHandler(req: FastifyRequest, reply: FastifyReply) {
  const body: ErrorBody = {
    statusCode: C.ROUTE_NOT_FOUND.status,
    message: `Route ${req.method} ${req.url.split('?')[0]} not found`,
    error: 'ROUTE_NOT_FOUND',
    requestId: req.id,
  };
  return reply.status(body.statusCode).send(body);
}
