import { Type } from '@sinclair/typebox';
import { Nullable, PageQuery, Timestamp, Uuid } from '../../lib/schema.js';

export const WebhookLogEntrySchema = Type.Object(
  {
    id: Uuid(),
    event: Type.String(),
    payload: Type.Unknown({ description: "the event's data as delivered (a Transaction)" }),
    reference: Type.String(),
    attempts: Type.Integer(),
    status: Type.String({ description: 'pending, success or failed' }),
    response: Nullable(Type.String({ description: "the receiver's last response body (truncated to 1 KiB), or the error" })),
    url: Type.String(),
    transactionId: Nullable(Uuid()),
    lastStatusCode: Nullable(Type.Integer()),
    lastAttemptAt: Nullable(Timestamp),
    nextAttemptAt: Nullable(Timestamp),
    history: Type.Array(
      Type.Object({
        attempt: Type.Integer(),
        attemptedAt: Timestamp,
        statusCode: Nullable(Type.Integer()),
        error: Nullable(Type.String()),
        durationMs: Nullable(Type.Integer()),
      }),
      { description: 'extension: every attempt of this delivery' },
    ),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'WebhookLogEntry' },
);

export const TransactionWebhooksParams = Type.Object({ walletId: Uuid('master wallet id'), transactionsId: Uuid('transaction id') });
export const ResendBody = Type.Object({ id: Uuid('transaction id') }, { additionalProperties: false });
export const WalletWebhooksQuery = Type.Object(PageQuery, { additionalProperties: false });
