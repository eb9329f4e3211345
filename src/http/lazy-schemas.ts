/**
 * Route validators and response serializers compiled at their first use instead of at start.
 * Fastify compiles every route's schemas when the server starts (Ajv for requests,
 * fast-json-stringify for responses): about a second of CPU for this API's hundred-odd routes,
 * mostly fast-json-stringify. A test world builds a server and calls a handful of routes, and
 * the suite builds one per test file, so the harness asks for these (BuildAppOptions
 * `lazySchemas`). The functions are the same ones, compiled from the same schemas; only when
 * differs. Production keeps Fastify's eager compilation: a schema that cannot compile stops
 * the start instead of failing its route's first request.
 */
import type { SerializerFactory } from '@fastify/fast-json-stringify-compiler';
import type { FastifySchemaCompiler } from 'fastify';
import { sharedSerializerFactory } from './serializers.js';

type FastifyValidationResult = ReturnType<FastifySchemaCompiler<unknown>>;

/** A validator that compiles itself on its first call; Fastify reads `errors` off the function it holds. */
export function lazyValidator(compile: () => FastifyValidationResult): FastifyValidationResult {
  let compiled: FastifyValidationResult | undefined;
  const validate: FastifyValidationResult = (data: unknown) => {
    compiled ??= compile();
    const result = compiled(data);
    validate.errors = compiled.errors ?? null;
    return result;
  };
  return validate;
}

/** The service's serializer factory (serializers.ts), each route's serializer compiled at its first response. */
export function lazySerializerFactory(): SerializerFactory {
  const eager = sharedSerializerFactory();
  return (externalSchemas, options) => {
    const compileRoute = eager(externalSchemas, options);
    return (route) => {
      let serialize: ((doc: unknown) => string) | undefined;
      return (doc) => (serialize ??= compileRoute(route))(doc);
    };
  };
}
