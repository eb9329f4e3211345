import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { allowanceOf } from './permit.js';
import { prepareTypedData } from './typed-data.js';

const TOKEN = getAddress('0x5fbdb2315678afecb367f032d93f642f64180aa3');
const OWNER = getAddress('0x70997970c51812dc3a010c7d01b50e20d4dc79c8');
const SPENDER = getAddress('0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc');
const domain = { name: 'USD Coin', version: '2', chainId: 31337, verifyingContract: TOKEN };

const eip2612 = (members = ['owner', 'spender', 'value', 'nonce', 'deadline'], value: string | number = '5000000') =>
  prepareTypedData({
    domain,
    types: {
      Permit: members.map((name) => ({ name, type: name === 'owner' || name === 'spender' ? 'address' : 'uint256' })),
    },
    message: { owner: OWNER, spender: SPENDER, value, nonce: 0, deadline: 1_900_000_000 },
  } as never);

const dai = (allowed: boolean) =>
  prepareTypedData({
    domain,
    types: {
      Permit: [
        { name: 'holder', type: 'address' },
        { name: 'spender', type: 'address' },
        { name: 'nonce', type: 'uint256' },
        { name: 'expiry', type: 'uint256' },
        { name: 'allowed', type: 'bool' },
      ],
    },
    message: { holder: OWNER, spender: SPENDER, nonce: 0, expiry: 0, allowed },
  } as never);

describe('allowanceOf', () => {
  it("reads an EIP-2612 permit's allowance: the token is the verifying contract", () => {
    expect(allowanceOf(eip2612())).toEqual({ token: TOKEN, owner: OWNER, spender: SPENDER, amount: 5_000_000n });
    // Members out of order: the token would refuse it, yet it is weighed as the permit it imitates.
    expect(allowanceOf(eip2612(['spender', 'owner', 'deadline', 'value', 'nonce']))?.amount).toBe(5_000_000n);
  });

  it("reads DAI's permit: allowed sets the maximum, or 0", () => {
    expect(allowanceOf(dai(true))).toEqual({ token: TOKEN, owner: OWNER, spender: SPENDER, amount: (1n << 256n) - 1n });
    expect(allowanceOf(dai(false))?.amount).toBe(0n);
  });

  it('is null for typed data that is no permit', () => {
    const order = prepareTypedData({
      domain,
      types: {
        Order: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
        ],
      },
      message: { owner: OWNER, spender: SPENDER, value: 1 },
    } as never);
    expect(allowanceOf(order)).toBeNull();
    expect(allowanceOf(eip2612(['owner', 'nonce', 'deadline']))).toBeNull();
  });
});
