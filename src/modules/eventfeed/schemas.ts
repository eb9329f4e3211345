import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from '../../lib/schema.js';
import { FEED_EVENTS, WEBHOOK_EVENTS, type FeedEventName } from '../webhooks/types.js';

export const EventName = Type.Union(
  WEBHOOK_EVENTS.map((name) => Type.Literal(name)),
  { description: 'a webhook event name' },
);

export const EventDeliverySchema = Type.Object(
  {
    id: Uuid('the delivery id (the webhook-id header of its attempts)'),
    status: Type.String({ description: 'pending, success or failed' }),
    attempts: Type.Integer(),
    lastStatusCode: Nullable(Type.Integer()),
    lastAttemptAt: Nullable(Timestamp),
    nextAttemptAt: Nullable(Timestamp),
  },
  { $id: 'EventDelivery', description: "the event's latest webhook delivery" },
);

export const EventSchema = Type.Object(
  {
    id: Uuid('the event id'),
    cursor: Type.String({ description: 'this position in the feed: pass it as `after` (or `Last-Event-ID`) to read what follows' }),
    // An enum, not a union of literals: the serialiser would refuse a name outside the list.
    event: Type.Unsafe<FeedEventName>({
      type: 'string',
      enum: [...FEED_EVENTS],
      description: 'the event name, as in the webhook body',
    }),
    data: Type.Unknown({
      description: "the webhook body's `data` (a Transaction; a checkout session for `checkout.*`), as it was when the event happened",
    }),
    test: Type.Boolean({ description: 'a test event (POST .../webhooks/trigger), not something that happened' }),
    walletId: Uuid(),
    transactionId: Nullable(Uuid()),
    reference: Type.String(),
    createdAt: Timestamp,
    delivery: Type.Union([Type.Ref(EventDeliverySchema), Type.Null()], {
      description: 'the latest webhook delivery of the event; null when the wallet had no webhook URL',
    }),
  },
  { $id: 'Event' },
);

const Types = Type.String({
  pattern: '^[a-z_.-]+(,[a-z_.-]+)*$',
  maxLength: 1000,
  description: `comma-separated event names to keep (default: every event): ${FEED_EVENTS.join(', ')}`,
});
const After = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'a cursor: only events after it (default: from the oldest event)',
});
const WalletFilter = Uuid("only this wallet's events (a business key; a wallet key may name its own wallet)");

export const EventsQuery = Type.Object(
  {
    after: Type.Optional(After),
    types: Type.Optional(Types),
    walletId: Type.Optional(WalletFilter),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })),
  },
  { additionalProperties: false },
);

export const StreamQuery = Type.Object(
  {
    after: Type.Optional({ ...After, description: 'a cursor: start after it (default: events from now on); Last-Event-ID wins' }),
    types: Type.Optional(Types),
    walletId: Type.Optional(WalletFilter),
  },
  { additionalProperties: false },
);

export const StreamHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({ maxLength: 100, description: 'resume after this cursor (what EventSource sends on reconnect)' }),
  ),
});

export const EventsMeta = Type.Object({
  nextCursor: Nullable(
    Type.String({ description: 'pass as `after` to read on; the last event of this page, or `after` when the page is empty' }),
  ),
  hasMore: Type.Boolean({ description: 'whether the page is full (more events may follow at once)' }),
  itemCount: Type.Integer(),
});

export const TriggerBody = Type.Object({ event: EventName }, { additionalProperties: false });
