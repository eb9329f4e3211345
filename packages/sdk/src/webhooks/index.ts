/**
 * `@stablecoin-wallet/sdk/webhooks`: verify the service's webhook deliveries in your
 * receiver (both signature schemes, timestamp window, replay guard), and sign a body the
 * way the service does (what `wallet webhooks listen` forwards).
 */
export {
  DEFAULT_FUTURE_TOLERANCE_SECONDS,
  DEFAULT_TOLERANCE_SECONDS,
  WebhookVerificationError,
  defaultReplayStore,
  verifyWebhook,
  verifyWebhookAsync,
  type VerificationFailure,
  type VerifiedWebhook,
  type VerifyOptions,
} from './verify.js';
export { MemoryReplayStore, type ReplayStore, type SyncReplayStore } from './replay.js';
export {
  COMPAT_SIGNATURE_HEADER,
  SECRET_PREFIX,
  parseWebhookSecret,
  serviceSignature,
  signWebhook,
  standardSignature,
  type SignOptions,
  type SignedBody,
} from './signature.js';
