/**
 * The two forms of a contract-call body: `calls: [...]`, or one call given by its fields at
 * the top level (`address`, `method`, `parameters`, `abi`, `value`), as the described
 * service documents its single-call requests. A single call is handled exactly as a
 * one-element `calls`; only the names in its error messages drop the `calls.0.` prefix,
 * so that they name the fields the client sent.
 */
import { AppError, ValidationError, type FieldIssue } from '../../lib/errors.js';
import type { ContractCalls, ContractCallsRequest } from './schemas.js';

const SINGLE = ['address', 'method', 'parameters', 'abi', 'value'] as const;
const REQUIRED = ['address', 'method', 'parameters', 'abi'] as const;

export interface CallsOf {
  calls: ContractCalls;
  /** The body gave one call at the top level. */
  single: boolean;
}

/** The request's calls; 400 for both forms at once, or a single call with a field missing. */
export function callsOf(body: ContractCallsRequest): CallsOf {
  const given = SINGLE.filter((k) => body[k] !== undefined);
  if (body.calls) {
    if (given.length > 0) {
      const field = given[0]!;
      throw new ValidationError(`${field} cannot be combined with calls: give one call at the top level, or every call in calls`, [
        { field, message: 'not allowed together with calls' },
      ]);
    }
    return { calls: body.calls, single: false };
  }
  const missing = REQUIRED.filter((k) => body[k] === undefined);
  if (missing.length > 0) {
    throw new ValidationError(`${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} required (or send calls: [...])`, [
      ...missing.map((field) => ({ field, message: 'is required (or send calls)' })),
    ]);
  }
  const call = {
    address: body.address!,
    method: body.method!,
    parameters: body.parameters!,
    abi: body.abi!,
    ...(body.value !== undefined ? { value: body.value } : {}),
  };
  return { calls: [call], single: true };
}

/**
 * Runs `work` on the request's calls; for a single call, errors that name `calls.0.x` name
 * `x` instead, and those naming the call as a whole (`calls.0`) name its `parameters`, where
 * a call's amounts and recipients are.
 */
export async function withCalls<T>(body: ContractCallsRequest, work: (calls: ContractCalls) => Promise<T>): Promise<T> {
  const { calls, single } = callsOf(body);
  if (!single) return work(calls);
  try {
    return await work(calls);
  } catch (err) {
    if (err instanceof AppError) renameSingle(err);
    throw err;
  }
}

const rename = (text: string) => text.replace(/\bcalls\.0\.(?=[A-Za-z])/g, '').replace(/\bcalls\.0\b/g, 'parameters');

function renameSingle(err: AppError): void {
  err.message = rename(err.message);
  if (err.details) {
    const details: FieldIssue[] = err.details.map((d) => ({ field: rename(d.field), message: rename(d.message) }));
    Object.defineProperty(err, 'details', { value: details, enumerable: true, configurable: true });
  }
}
