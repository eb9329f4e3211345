/**
 * Errors of the client. The service answers errors as `{ statusCode, message, error,
 * details?, requestId }`; ApiError carries each of them, `code` typed with the service's
 * catalogue (docs/api.md), so `switch (err.code)` is checked by the compiler.
 */
import type { Schemas } from './core/operations.js';

/** Every code of the service's error catalogue. A newer service may send one this version does not know. */
export type ErrorCode = Schemas['ErrorBody']['error'];

export interface FieldIssue {
  field: string;
  message: string;
}

/** The base of everything the client throws on purpose. */
export class WalletSdkError extends Error {
  /**
   * The Idempotency-Key a failed POST was sent with (the caller's, or the one the client made
   * up). After a TimeoutError or ConnectionError the outcome is unknown: send the request again
   * with this key (`{ idempotencyKey }`) and the service answers the first one's result
   * instead of doing it twice.
   */
  idempotencyKey?: string;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The service answered with an error status. */
export class ApiError extends WalletSdkError {
  /** The catalogue's code, e.g. `INSUFFICIENT_BALANCE` (or a newer one: the type stays open). */
  readonly code: ErrorCode | (string & {});
  readonly status: number;
  /** The service's id of the request (its logs carry it); `x-request-id` of the answer. */
  readonly requestId: string | null;
  readonly details: FieldIssue[];
  /** Seconds the service asked to wait (`Retry-After`), when it said. */
  readonly retryAfter: number | null;
  readonly method: string;
  readonly path: string;

  constructor(init: {
    message: string;
    code: string;
    status: number;
    requestId: string | null;
    details?: FieldIssue[];
    retryAfter?: number | null;
    method: string;
    path: string;
  }) {
    super(`${init.method} ${init.path}: ${init.status} ${init.code}: ${init.message}`);
    this.code = init.code;
    this.status = init.status;
    this.requestId = init.requestId;
    this.details = init.details ?? [];
    this.retryAfter = init.retryAfter ?? null;
    this.method = init.method;
    this.path = init.path;
  }

  /** Whether sending the same request again later may succeed (429, 503). */
  get retryable(): boolean {
    return this.status === 429 || this.status === 503;
  }
}

/** The service could not be reached, or the connection broke before an answer. */
export class ConnectionError extends WalletSdkError {}

/** No answer within the request's timeout. */
export class TimeoutError extends WalletSdkError {}

export const isApiError = (err: unknown, code?: ErrorCode): err is ApiError =>
  err instanceof ApiError && (code === undefined || err.code === code);
