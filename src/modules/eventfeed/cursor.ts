/**
 * Positions in the event feed. Events are ordered by (txid, id): the transaction that wrote
 * the event (PostgreSQL's xid8) first, then the event id (migration 031 says why). A cursor
 * is that pair written `<txid>.<event id>`; clients treat it as opaque text (it is also the
 * SSE `id:` field, hence the stream's `Last-Event-ID`).
 */
import { ValidationError } from '../../lib/errors.js';

export interface Position {
  /** xid8 as a decimal string (64-bit). */
  txid: string;
  id: string;
}

const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const CURSOR = /^(0|[1-9]\d{0,19})\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
const MAX_XID8 = 2n ** 64n - 1n;

/** Before every event. */
export const START: Position = Object.freeze({ txid: '0', id: NIL_UUID });

/** Before every event of transactions from `txid` on (the stream's "from now"). */
export const before = (txid: string): Position => ({ txid, id: NIL_UUID });

export const formatCursor = (p: Position): string => `${p.txid}.${p.id}`;

/** The position a cursor names, or a 400 naming `field`. */
export function parseCursor(text: string, field: string): Position {
  const m = CURSOR.exec(text);
  if (!m || BigInt(m[1]!) > MAX_XID8) {
    throw new ValidationError(`${field} is not a cursor of this feed`, [
      { field, message: 'must be a cursor from meta.nextCursor, an event, or the stream' },
    ]);
  }
  return { txid: m[1]!, id: m[2]! };
}
