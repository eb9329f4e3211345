import { describe, expect, it } from 'vitest';
import { credited, type Watcher } from './watch.js';

const child = (walletId: string, addressId: string): Watcher => ({ walletId, addressId, internal: true });
const master = (walletId: string): Watcher => ({ walletId, addressId: null, internal: true });
const external = (walletId: string, addressId: string): Watcher => ({ walletId, addressId, internal: false });

describe('credited: who a transfer to a watched address is credited to', () => {
  it('the key holder alone, whoever else registered the address as external, in any order', () => {
    expect(credited([external('D', 'x1'), child('A', 'c1'), external('E', 'x2')])).toEqual([child('A', 'c1')]);
    expect(credited([child('A', 'c1'), external('D', 'x1')])).toEqual([child('A', 'c1')]);
    expect(credited([external('D', 'x1'), master('A')])).toEqual([master('A')]);
  });

  it('every wallet watching an outside address', () => {
    expect(credited([external('A', 'x1'), external('D', 'x2')])).toEqual([external('A', 'x1'), external('D', 'x2')]);
    expect(credited([external('A', 'x1')])).toEqual([external('A', 'x1')]);
    expect(credited([])).toEqual([]);
  });

  it('a master address wins over a child address with the same address (never happens with random keys)', () => {
    expect(credited([child('B', 'c2'), master('A')])).toEqual([master('A')]);
    expect(credited([master('A'), child('B', 'c2')])).toEqual([master('A')]);
  });
});
