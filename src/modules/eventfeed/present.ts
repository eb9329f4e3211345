import type { Static } from '@sinclair/typebox';
import { formatCursor } from './cursor.js';
import type { EventSchema } from './schemas.js';
import type { FeedRow } from './store.js';

export type EventView = Static<typeof EventSchema>;

/** A feed row as clients see it: the webhook body's fields with the event's place and delivery beside them. */
export function presentEvent(row: FeedRow): EventView {
  const body = JSON.parse(row.body) as { event?: string; data?: unknown; test?: boolean };
  return {
    id: row.id,
    cursor: formatCursor({ txid: row.txid, id: row.id }),
    event: row.name as EventView['event'],
    data: body.data ?? null,
    test: body.test === true,
    walletId: row.wallet_id,
    transactionId: row.transaction_id,
    reference: row.reference,
    createdAt: row.created_at.toISOString(),
    delivery:
      row.delivery_id === null
        ? null
        : {
            id: row.delivery_id,
            status: row.delivery_status!,
            attempts: row.delivery_attempts ?? 0,
            lastStatusCode: row.last_status_code,
            lastAttemptAt: row.last_attempt_at?.toISOString() ?? null,
            nextAttemptAt: row.delivery_status === 'pending' ? (row.next_attempt_at?.toISOString() ?? null) : null,
          },
  };
}
