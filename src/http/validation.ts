/**
 * Request validation. Every string (keys included) of every parsed body, query string and
 * path parameter first passes one rule (lib/safe-text.ts: no NUL, no unpaired surrogate, no
 * non-finite number, bounded nesting), for every route, the dashboard's forms included.
 * Bodies are validated strictly (no type coercion: "5" is not 5 and
 * `true` is not "true" when money is involved; unknown fields are refused, so a typo
 * like "ammount" is an error, not a silently ignored field). Query strings and path
 * parameters are text by nature, so there types are coerced.
 */
import type { AnySchema, ValidateFunction } from 'ajv';
import { makeAjv } from '../lib/ajv.js';
import type { FastifyInstance } from 'fastify';
import { isUuid } from '../lib/ids.js';
import { unsafeInputError } from '../lib/safe-text.js';
import { lazyValidator } from './lazy-schemas.js';

/** `lazy`: each validator compiled at its first request (lazy-schemas.ts), for test worlds. */
export function installValidation(app: FastifyInstance, sharedSchemas: AnySchema[], opts: { lazy?: boolean } = {}): void {
  const strict = makeAjv(false);
  const coercing = makeAjv(true);
  for (const schema of sharedSchemas) {
    strict.addSchema(schema);
    coercing.addSchema(schema);
  }
  // One validator per distinct schema text and rule set: many routes share a schema of the same
  // text in their own object (path parameters, pagination), which Ajv, caching by object, compiled
  // again for each. Fastify reads a validator's `errors` right after calling it, so routes can share one.
  const compiled = new Map<string, ValidateFunction>();
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const body = httpPart === 'body';
    const key = `${body ? 'strict' : 'coercing'} ${JSON.stringify(schema)}`;
    const compile = () => {
      let validate = compiled.get(key);
      if (!validate) compiled.set(key, (validate = (body ? strict : coercing).compile(schema)));
      return validate;
    };
    return opts.lazy ? lazyValidator(compile) : compile();
  });
  // Before the schemas, so the message names the bad text rather than a pattern it fails.
  // A callback hook: no promise per request.
  app.addHook('preValidation', (req, _reply, done) => {
    lowerUuidParams(req.params);
    done(
      unsafeInputError(req.params, 'params') ??
        unsafeInputError(req.query, 'querystring') ??
        unsafeInputError(req.body, 'body') ??
        undefined,
    );
  });
}

/**
 * Ids in a path are UUIDs, which name a row whatever their case (PostgreSQL compares them as
 * uuid), but past the edge they are compared as text and make lock keys: a wallet's standing
 * lock (`wallet-standing:<id>`), the beneficiaries' lock, a policy rule's scope. Spelt in upper
 * case, a deactivation took another lock than the payouts it must wait for, and a rule scoped
 * to an address did not match it. One spelling from here on: lower case, as the database
 * writes them.
 */
function lowerUuidParams(params: unknown): void {
  if (!params || typeof params !== 'object') return;
  const p = params as Record<string, unknown>;
  // Every request passes here: no allocation unless an id is spelt with a capital.
  for (const name in p) {
    const value = p[name];
    if (typeof value === 'string' && value.length === 36 && HAS_CAPITAL_HEX.test(value) && isUuid(value)) p[name] = value.toLowerCase();
  }
}
const HAS_CAPITAL_HEX = /[A-F]/;
