import { describe, expect, it } from 'vitest';
import { lowAddressReason } from './low-address.js';

const hex = (n: number) => n.toString(16).padStart(40, '0');

describe('lowAddressReason', () => {
  it('refuses the precompiles and the reserved range below 0x400, not the zero address (refused as such) or anything above', () => {
    for (const n of [0x01, 0x09, 0x0a, 0x11, 0x100, 0x3ff]) expect(lowAddressReason(hex(n)), hex(n)).toMatch(/precompiled contract/);
    for (const n of [0, 0x400, 0xdead]) expect(lowAddressReason(hex(n)), hex(n)).toBeNull();
    expect(lowAddressReason('00000000000000000000000000000000000003FF')).toMatch(/precompiled/);
    expect(lowAddressReason('1000000000000000000000000000000000000001')).toBeNull();
  });
});
