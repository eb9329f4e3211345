import { describe, expect, it } from 'vitest';
import type { TransactionView } from '../transactions/service.js';
import { DEPOSIT_FOUND } from './record.js';

/** A deposit's view with the keys in the order TransactionService presents them (id, reference, type, status, confirmed, ...). */
function view(status: string, confirmed: boolean, extra: Record<string, unknown> = {}): TransactionView {
  return {
    id: '01a225a4-14a1-7015-b522-55eb0b2b39a4',
    reference: 'ab"c\\"status":"SUCCESS","confirmed":true,',
    type: 'DEPOSIT',
    status,
    confirmed,
    confirmations: 2,
    amount: '125.5',
    metadata: { note: '"status":"SUCCESS","confirmed":true,', nested: { status: 'SUCCESS', confirmed: true } },
    wallet: { id: 'w', name: 'Zoë ✓', status: 'ACTIVE' },
    ...extra,
  } as unknown as TransactionView;
}

describe('the events of a deposit found (DEPOSIT_FOUND)', () => {
  it('derives each stage body from one JSON of the presented view, byte for byte what JSON.stringify writes', () => {
    for (const v of [view('SUCCESS', true), view('PENDING', false), view('SUCCESS', true, { note: 'x' })]) {
      const json = JSON.stringify(v);
      for (const stage of DEPOSIT_FOUND) {
        const staged = stage.view(v);
        const derived = stage.json!(json, v);
        if (staged === null) continue;
        expect(derived).toBe(JSON.stringify(staged));
      }
    }
  });

  it('falls back to writing the view in full when its JSON is not laid out as expected', () => {
    const processing = DEPOSIT_FOUND[0]!;
    // status first: no comma before it; then status without confirmed right after it.
    const odd = [
      { status: 'SUCCESS', confirmed: true, id: 'x' },
      { id: 'x', status: 'SUCCESS', note: null, confirmed: true },
    ];
    for (const v of odd as unknown as TransactionView[]) expect(processing.json!(JSON.stringify(v), v)).toBeNull();
  });
});
