/**
 * Domain errors. Each carries a stable machine code; `http/errors.ts` maps codes to
 * HTTP statuses in one table, so nothing below `http/` knows about status codes.
 */
export interface FieldIssue {
  field: string;
  message: string;
}

export class AppError extends Error {
  readonly code: string;
  readonly retryable: boolean;
  readonly details?: FieldIssue[];

  constructor(code: string, message: string, opts: { retryable?: boolean; details?: FieldIssue[]; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = opts.retryable ?? false;
    if (opts.details) this.details = opts.details;
  }
}

/** Input that fails a rule the schema cannot express (400). */
export class ValidationError extends AppError {
  constructor(message: string, details?: FieldIssue[]) {
    super('VALIDATION_ERROR', message, details ? { details } : {});
  }
}

/** Unknown or foreign resource: both look the same to the caller (404). */
export class NotFoundError extends AppError {
  constructor(what: string) {
    super('NOT_FOUND', `${what} not found`);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'Missing or invalid API key') {
    super('UNAUTHORIZED', message);
  }
}

/** The key is valid but its kind or its scopes do not allow the operation (403). */
export class ForbiddenError extends AppError {
  constructor(message: string, code = 'FORBIDDEN') {
    super(code, message);
  }
}

/** Too many requests, or too many failed authentications, in the current window (429). */
export class RateLimitedError extends AppError {
  /** Whole seconds until the window resets (the Retry-After header). */
  readonly retryAfterS: number;

  constructor(code: string, message: string, retryAfterS: number) {
    super(code, message, { retryable: true });
    this.retryAfterS = retryAfterS;
  }
}

/** The resource is in a state that does not allow the operation (409). */
export class ConflictError extends AppError {
  constructor(code: string, message: string) {
    super(code, message);
  }
}

/** A business rule refuses the request (422). */
export class BusinessRuleError extends AppError {
  constructor(code: string, message: string, details?: FieldIssue[]) {
    super(code, message, details ? { details } : {});
  }
}

/** A dependency (RPC node, database) failed; the caller may retry (503). */
export class UpstreamError extends AppError {
  constructor(code: string, message: string, cause?: unknown) {
    super(code, message, { retryable: true, cause });
  }
}
