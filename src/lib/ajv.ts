/**
 * The one Ajv set-up of the API's and the dashboard's validation: ajv-formats, with
 * `date-time` also requiring a time JavaScript can hold. RFC 3339 allows a leap second
 * ("23:59:60"), which ajv-formats accepts and Date.parse turns into NaN: such a filter
 * reached the database as an invalid timestamp (500). It is a 400 now, like any bad date.
 */
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; its default export arrives wrapped under NodeNext resolution.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

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
  const rfc3339 = ajv.formats['date-time'];
  const syntax = (typeof rfc3339 === 'object' && rfc3339 !== null && 'validate' in rfc3339 ? rfc3339.validate : rfc3339) as
    ((s: string) => boolean) | RegExp;
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (s: string) => (typeof syntax === 'function' ? syntax(s) : syntax.test(s)) && !Number.isNaN(Date.parse(s)),
  });
  return ajv;
}
