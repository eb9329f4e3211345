/**
 * The one Ajv set-up of the API's and the dashboard's validation: ajv-formats, with
 * `date-time` also requiring a time JavaScript can hold. RFC 3339 allows a leap second
 * ("23:59:60"), which ajv-formats accepts and Date.parse turns into NaN: such a filter
 * reached the database as an invalid timestamp (500). It is a 400 now, like any bad date.
 */
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { isUuid } from './ids.js';

// ajv-formats is CommonJS; its default export arrives wrapped under NodeNext resolution.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

/**
 * The keyword of an id schema (lib/schema.ts Uuid): a UUID spelt with capitals is handed on
 * in lower case. An OpenAPI specification extension (x-), which clients ignore.
 */
export const LOWERCASE = 'x-lowercase';
const CAPITAL_HEX = /[A-F]/;

/** `coerce`: query strings and path parameters (text by nature); bodies are strict. */
export function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    strict: false,
  });
  addFormats(ajv);
  ajv.addKeyword({
    keyword: LOWERCASE,
    type: 'string',
    schemaType: 'boolean',
    modifying: true,
    // Only a string that is a UUID (whatever branch of a union reaches it), never anything else.
    validate: (
      on: boolean,
      data: string,
      _schema?: unknown,
      ctx?: { parentData: Record<string | number, unknown>; parentDataProperty: string | number },
    ) => {
      if (on && ctx?.parentData && CAPITAL_HEX.test(data) && isUuid(data)) ctx.parentData[ctx.parentDataProperty] = data.toLowerCase();
      return true;
    },
  });
  const rfc3339 = ajv.formats['date-time'];
  const syntax = (typeof rfc3339 === 'object' && rfc3339 !== null && 'validate' in rfc3339 ? rfc3339.validate : rfc3339) as
    ((s: string) => boolean) | RegExp;
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (s: string) => (typeof syntax === 'function' ? syntax(s) : syntax.test(s)) && !Number.isNaN(Date.parse(s)),
  });
  return ajv;
}
