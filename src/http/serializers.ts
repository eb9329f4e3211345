/**
 * Fastify's response serializers (fast-json-stringify), each distinct response schema compiled
 * once. Fastify asks for one serializer per route and status code: several hundred for this
 * API, most of them the same `{ $ref: 'ErrorBody#' }` (auth.ts gives every route its 4xx), and
 * each compile checks and indexes every shared schema (app.addSchema) again, whether the
 * response refers to it or not. That was about half of an API start's CPU (a profile of
 * `start api`: fast-json-stringify's schema checks). Here a response schema of the same text
 * gets the same function (a serializer keeps no state between calls), and its compile is given
 * the shared schemas it refers to, directly or through another, not all of them.
 */
import { SerializerSelector, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';

type Schemas = Record<string, unknown>;
type Serializer = (doc: unknown) => string;

export function sharedSerializerFactory(): SerializerFactory {
  const selector = SerializerSelector();
  return (externalSchemas, options) => {
    const externals = (externalSchemas ?? {}) as Schemas;
    const compiled = new Map<string, Serializer>();
    return (route) => {
      const key = JSON.stringify(route.schema);
      let serialize = compiled.get(key);
      if (!serialize) {
        serialize = selector(referencedSchemas(route.schema, externals), options)(route) as Serializer;
        compiled.set(key, serialize);
      }
      return serialize;
    };
  };
}

/**
 * The shared schemas `schema` refers to by id (`{ $ref: 'Wallet#' }`, `'Wallet#/properties/x'`),
 * transitively. A reference to an id it cannot find among them gets them all, as Fastify gives.
 */
export function referencedSchemas(schema: unknown, externals: Schemas): Schemas {
  const out: Schemas = {};
  let unknownRef = false;
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key !== '$ref' || typeof value !== 'string') {
        visit(value);
        continue;
      }
      const id = value.split('#')[0]!;
      if (!id || id in out) continue;
      if (!Object.hasOwn(externals, id)) {
        unknownRef = true;
        continue;
      }
      out[id] = externals[id];
      visit(externals[id]);
    }
  };
  visit(schema);
  return unknownRef ? externals : out;
}
