/**
 * Dashboard forms are checked against the API's own TypeBox schemas, so a value the API
 * refuses is refused here too, with the same messages.
 */
import type { ValidateFunction } from 'ajv';
import { makeAjv } from '../lib/ajv.js';
import type { Static, TSchema } from '@sinclair/typebox';
import { ValidationError } from '../lib/errors.js';

const strict = makeAjv(false);
const coercing = makeAjv(true);
const compiled = { query: new WeakMap<TSchema, ValidateFunction>(), body: new WeakMap<TSchema, ValidateFunction>() };

/**
 * Validates `value` (a query: coerced from text; a body built by us: strict) and returns
 * it typed, or throws the API's 400 ValidationError.
 */
export function check<T extends TSchema>(schema: T, value: unknown, kind: 'query' | 'body'): Static<T> {
  let fn = compiled[kind].get(schema);
  if (!fn) {
    fn = (kind === 'query' ? coercing : strict).compile(schema);
    compiled[kind].set(schema, fn);
  }
  if (fn(value)) return value as Static<T>;
  const details = (fn.errors ?? []).map((e) => {
    const leaf =
      (e.params as { missingProperty?: string; additionalProperty?: string }).missingProperty ??
      (e.params as { additionalProperty?: string }).additionalProperty;
    const field = [e.instancePath.replace(/^\//, '').replace(/\//g, '.'), leaf].filter(Boolean).join('.') || kind;
    return { field, message: e.message ?? 'is invalid' };
  });
  const first = details[0];
  throw new ValidationError(first ? `${first.field} ${first.message}` : 'Invalid input', details);
}

/** Query-string values the form left empty are absent, not "". */
export function compact(query: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (query && typeof query === 'object') {
    for (const [k, v] of Object.entries(query as Record<string, unknown>)) if (typeof v === 'string' && v.trim() !== '') out[k] = v.trim();
  }
  return out;
}
