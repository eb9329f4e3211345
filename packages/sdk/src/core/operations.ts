/**
 * Types of the API's operations, read from the generated OpenAPI types: an operation is
 * named `'<METHOD> <path template>'`, exactly as /openapi.json writes it, and every request
 * part and answer is typed from that name alone.
 */
import type { components, paths } from '../generated/openapi.js';

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';

/** Every operation of the API, e.g. `'GET /v1/wallets/{walletId}'`. */
export type OperationName = {
  [P in keyof paths]: {
    [M in Method & keyof paths[P]]: [NonNullable<paths[P][M]>] extends [never] ? never : `${Uppercase<M>} ${P & string}`;
  }[Method & keyof paths[P]];
}[keyof paths];

type Split<K> = K extends `${infer M} ${infer P}` ? [Lowercase<M>, P] : never;
export type Operation<K extends OperationName> =
  Split<K> extends [infer M, infer P]
    ? P extends keyof paths
      ? M extends keyof paths[P]
        ? NonNullable<paths[P][M]>
        : never
      : never
    : never;

type Params<K extends OperationName> = Operation<K> extends { parameters: infer X } ? X : never;
export type PathParams<K extends OperationName> = Params<K> extends { path: infer X } ? X : never;
export type QueryParams<K extends OperationName> = Params<K> extends { query?: infer X } ? NonNullable<X> : never;
type BodyOf<B> = [B] extends [never] ? never : B extends { content: { 'application/json': infer X } } ? X : never;
export type RequestBody<K extends OperationName> = BodyOf<NonNullable<Operation<K>['requestBody']>>;
/** The JSON of a 200 answer: the envelope `{ data, message, statusCode, meta? }`. */
export type Answer<K extends OperationName> =
  Operation<K> extends { responses: { 200: { content: { 'application/json': infer X } } } } ? X : never;
export type Data<K extends OperationName> = Answer<K> extends { data: infer X } ? X : never;
export type Item<K extends OperationName> = Data<K> extends (infer X)[] ? X : never;
export type Meta<K extends OperationName> = Answer<K> extends { meta: infer X } ? X : never;

export type Schemas = components['schemas'];

/** What a call of operation K takes: its path parameters, query and body, each only where it has them. */
export type CallArgs<K extends OperationName> = ([PathParams<K>] extends [never] ? { path?: undefined } : { path: PathParams<K> }) &
  ([QueryParams<K>] extends [never] ? { query?: undefined } : { query?: QueryParams<K> | undefined }) &
  // fetch sends no body with a GET (the balances route's optional one has a query form).
  ([RequestBody<K>] extends [never]
    ? { body?: undefined }
    : K extends `GET ${string}`
      ? { body?: undefined }
      : {} extends Pick<Operation<K>, 'requestBody'>
        ? { body?: RequestBody<K> | undefined }
        : { body: RequestBody<K> });
