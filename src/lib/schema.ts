/**
 * TypeBox building blocks shared by every module's routes: the spec's envelope, ids,
 * pagination. Success is always 200 with `statusCode: 200` in the body (spec); every
 * other status is chosen by the HTTP layer's error mapping.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { UUID_PATTERN } from './ids.js';
import { LOWERCASE } from './ajv.js';

/**
 * A row's id. Any case is taken (a UUID names its row whatever its case) and handed on in
 * lower case, as the database writes ids (lib/ajv.ts, `x-lowercase`): past the edge ids are
 * compared as text (an enabled asset, a catalogue entry, a lock key), and one spelt in
 * capitals in a body or a query string matched nothing (a swap's fromAssetId: 422).
 */
export const Uuid = (description?: string) =>
  Type.String({ pattern: UUID_PATTERN, [LOWERCASE]: true, ...(description ? { description } : {}) });
export const Timestamp = Type.String({ format: 'date-time' });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
/** Client-supplied key/value data, stored and returned as given. */
export const JsonObject = Type.Object({}, { additionalProperties: true });

export const PageMeta = Type.Object({
  currentPage: Type.Integer(),
  itemCount: Type.Integer(),
  itemsPerPage: Type.Integer(),
  totalItems: Type.Integer(),
  totalPages: Type.Integer(),
});
export type PageMeta = Static<typeof PageMeta>;

export const PageQuery = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })),
};

export function pageMeta(page: number, limit: number, itemCount: number, totalItems: number): PageMeta {
  return {
    currentPage: page,
    itemCount,
    itemsPerPage: limit,
    totalItems,
    totalPages: Math.ceil(totalItems / limit),
  };
}

export const Envelope = <T extends TSchema>(data: T) => Type.Object({ data, message: Type.String(), statusCode: Type.Literal(200) });

export const PagedEnvelope = <T extends TSchema>(item: T) =>
  Type.Object({ data: Type.Array(item), message: Type.String(), statusCode: Type.Literal(200), meta: PageMeta });

export const ErrorBody = Type.Object(
  {
    statusCode: Type.Integer(),
    message: Type.String(),
    error: Type.String({ description: 'stable machine-readable code, e.g. VALIDATION_ERROR' }),
    details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
    requestId: Type.String(),
  },
  { $id: 'ErrorBody' },
);

export const ok = <T, E extends object = {}>(data: T, message: string, extra?: E) => ({
  data,
  message,
  statusCode: 200 as const,
  ...(extra ?? ({} as E)),
});

/**
 * The route schema of an alias path: the same request and response as the canonical route,
 * marked deprecated in the OpenAPI document and pointing at the canonical path. Clients of
 * the service the spec describes use several spellings for some paths; each spelling gets
 * the canonical route's handler (register both with the same handler).
 */
export function aliasSchema<S extends { summary?: string; description?: string }>(schema: S, canonical: string): S & { deprecated: true } {
  const note = `Alias of \`${canonical}\` (same request, same answer), kept for clients written for the described service.`;
  return { ...schema, deprecated: true, description: schema.description ? `${note} ${schema.description}` : note };
}
