/**
 * Request validation. Bodies are validated strictly (no type coercion: "5" is not 5 and
 * `true` is not "true" when money is involved; unknown fields are refused, so a typo
 * like "ammount" is an error, not a silently ignored field). Query strings and path
 * parameters are text by nature, so there types are coerced.
 */
import { Ajv, type AnySchema } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

// ajv-formats is CommonJS; its default export arrives wrapped under NodeNext resolution.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    strict: false,
  });
  addFormats(ajv);
  return ajv;
}

export function installValidation(app: FastifyInstance, sharedSchemas: AnySchema[]): void {
  const strict = makeAjv(false);
  const coercing = makeAjv(true);
  for (const schema of sharedSchemas) {
    strict.addSchema(schema);
    coercing.addSchema(schema);
  }
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema));
}
