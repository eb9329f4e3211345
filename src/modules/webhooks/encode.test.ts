import { describe, expect, it } from 'vitest';
import { encodeEventRows } from './store.js';

describe('encodeEventRows', () => {
  it('writes each body byte for byte as JSON.stringify({ event, data }), UTF-8, separated by RS, with its row fields in order', () => {
    const datas = [
      { id: 'a', note: 'plain' },
      { id: 'b', metadata: { name: 'Zoë ünïcode ✓ 🚀', control: '\u001e inside a string' } },
      { id: 'c', nested: { list: [1, 2, 3], none: null } },
    ];
    const rows = datas.map((data, i) => ({
      event_id: `e${i}`,
      delivery_id: `d${i}`,
      wallet_id: 'w',
      transaction_id: `t${i}`,
      reference: `r${i}`,
      data,
    }));
    const out = encodeEventRows('deposit.success', rows);
    expect(out.count).toBe(3);
    const bodies = out.bodies.toString('utf8').split('\u001e');
    expect(bodies).toEqual(datas.map((data) => JSON.stringify({ event: 'deposit.success', data })));
    expect(JSON.parse(out.meta)).toEqual(rows.map(({ data: _d, ...r }, i) => ({ i: i + 1, ...r })));
    expect(encodeEventRows('x', []).bodies.length).toBe(0);
  });
});

describe('encodeEventRows with the data already as JSON', () => {
  it('writes the same bytes as JSON.stringify({ event, data }) around the given JSON, rows with and without it mixed', () => {
    const datas = [
      { id: 'a', status: 'SUCCESS', metadata: { name: 'Zoë ✓ 🚀', quote: '"status":"x"' } },
      { id: 'b', note: null },
    ];
    const rows = datas.map((data, i) => ({
      event_id: `e${i}`,
      delivery_id: `d${i}`,
      wallet_id: 'w',
      transaction_id: `t${i}`,
      reference: `r${i}`,
      data,
      ...(i === 0 ? { json: JSON.stringify(data) } : {}),
    }));
    const bodies = encodeEventRows('deposit.processing', rows).bodies.toString('utf8').split('\u001e');
    expect(bodies).toEqual(datas.map((data) => JSON.stringify({ event: 'deposit.processing', data })));
  });
});
