import type { Schemas } from '../core/operations.js';

/** A webhook event name (`deposit.success`, `withdraw.failed`, …). */
export type EventName = Schemas['Event']['event'];

/** One event of the feed: the webhook body's `event` and `data` (a Transaction), its position and its latest delivery. */
export type WalletEvent = Omit<Schemas['Event'], 'data'> & { data: Schemas['Transaction'] };

/** Why the service ended a stream (`event: stream.closed`). */
export type StreamCloseReason = 'shutdown' | 'slow_reader' | 'key_revoked' | 'error';
