/**
 * `@stablecoin-wallet/sdk`: a typed client of the stablecoin wallet service. Types come from
 * the service's own /openapi.json (src/generated/openapi.ts); the webhook verifier is also
 * its own entry point, `@stablecoin-wallet/sdk/webhooks`.
 */
export { WalletClient } from './client.js';
export type { ClientOptions, RequestOptions } from './core/transport.js';
export { PagePromise, type Page } from './core/pagination.js';
export type { Answer, CallArgs, Data, OperationName, PathParams, QueryParams, RequestBody, Schemas } from './core/operations.js';
export { ApiError, ConnectionError, TimeoutError, WalletSdkError, isApiError, type ErrorCode, type FieldIssue } from './errors.js';
export { EventStream, StreamClosedError, type StreamOptions } from './events/stream.js';
export { SseParser, type SseMessage } from './events/sse.js';
export type { EventName, StreamCloseReason, WalletEvent } from './events/types.js';
export type { EventListQuery } from './resources/events.js';
export type { components, paths } from './generated/openapi.js';
export * from './webhooks/index.js';
export { SDK_VERSION } from './version.js';

import type { Schemas } from './core/operations.js';
export type Transaction = Schemas['Transaction'];
export type Wallet = Schemas['Wallet'];
export type Address = Schemas['Address'];
export type Asset = Schemas['Asset'];
export type Balance = Schemas['Balance'];
export type WebhookLogEntry = Schemas['WebhookLogEntry'];
