/**
 * The one input rule every request passes before its schema: text that PostgreSQL cannot
 * store, and shapes no field of ours takes, are refused at the edge with the field named,
 * so they never reach a query as a 500 (or a silently altered value).
 *
 * - NUL (U+0000): `text` and `jsonb` refuse it.
 * - Unpaired UTF-16 surrogates: `jsonb` refuses the escape, and UTF-8 encoding would
 *   silently turn them into U+FFFD in `text`.
 * - Non-finite numbers (`1e999` parses as Infinity): JSON cannot write them back.
 * - Nesting deeper than MAX_DEPTH: no request of ours nests that deep (contract ABIs and
 *   typed data stop at 16 and 32 levels), and deeper values only cost stack and time.
 *
 * Object keys are checked as well as values (client metadata stores them).
 */
import { ValidationError, type FieldIssue } from './errors.js';

export const MAX_DEPTH = 64;

// Without the `u` flag a regex sees UTF-16 code units, which is what we need here.
const UNSAFE_TEXT = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const TEXT_MESSAGE = 'must not contain NUL characters or unpaired UTF-16 surrogates';

export function isUnsafeText(s: string): boolean {
  return UNSAFE_TEXT.test(s);
}

/**
 * The first problem in a parsed request part, or null. `root` names the part when the
 * problem is the part itself or one of its top-level keys ('body', 'querystring', 'params'),
 * as the schema validator's messages do; deeper fields are dotted paths (`metadata.tags.0`).
 */
export function unsafeInputIssue(value: unknown, root: string): FieldIssue | null {
  return visit(value, '', root, 0);
}

/**
 * The same check as the 400 it answers: every request part passes it before its schema
 * (http/validation.ts), and so does a body a route rebuilds from text after that (the
 * payment links' multipart form, whose JSON fields are parsed only then).
 */
export function unsafeInputError(value: unknown, root: string): ValidationError | null {
  const issue = unsafeInputIssue(value, root);
  return issue ? new ValidationError(`${issue.field} ${issue.message}`, [issue]) : null;
}

function visit(value: unknown, path: string, root: string, depth: number): FieldIssue | null {
  switch (typeof value) {
    case 'string':
      return isUnsafeText(value) ? { field: path || root, message: TEXT_MESSAGE } : null;
    case 'number':
      return Number.isFinite(value) ? null : { field: path || root, message: 'must be a finite number' };
    case 'object':
      break;
    default:
      return null;
  }
  if (value === null) return null;
  if (depth >= MAX_DEPTH) return { field: path || root, message: `nests deeper than ${MAX_DEPTH} levels` };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const issue = visit(value[i], path ? `${path}.${i}` : String(i), root, depth + 1);
      if (issue) return issue;
    }
    return null;
  }
  for (const key in value as Record<string, unknown>) {
    if (!Object.hasOwn(value, key)) continue;
    if (isUnsafeText(key)) return { field: path || root, message: `has a property name that ${TEXT_MESSAGE}` };
    const issue = visit((value as Record<string, unknown>)[key], path ? `${path}.${key}` : key, root, depth + 1);
    if (issue) return issue;
  }
  return null;
}
