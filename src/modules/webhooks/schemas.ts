import { Type } from '@sinclair/typebox';
import { Nullable, PageQuery, Timestamp, Uuid } from '../../lib/schema.js';
import { MAX_OVERLAP_SECONDS } from './secrets.js';

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

const secretStatusProps = {
  walletId: Uuid(),
  hasSecret: Type.Boolean({ description: 'whether the wallet has a signing secret; without one the API key keys webhook-signature' }),
  createdAt: Nullable(Timestamp),
  previousValidUntil: Nullable(Timestamp),
  apiKeySigns: Type.Boolean({ description: 'whether webhook-signature also carries a signature keyed with the API key now' }),
  apiKeySignsUntil: Nullable(Timestamp),
};

export const WebhookSecretStatusSchema = Type.Object(secretStatusProps);

export const NewWebhookSecretSchema = Type.Object({
  ...secretStatusProps,
  secret: Type.String({ description: 'whsec_ + base64 of 32 bytes (Standard Webhooks); shown once, store it now' }),
});

export const RotateSecretBody = Type.Object(
  {
    overlapSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_OVERLAP_SECONDS,
        description: 'how long the previous secret (or, the first time, the API key) keeps signing beside the new one; default 86400',
      }),
    ),
  },
  { additionalProperties: false },
);
