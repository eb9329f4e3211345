import { describe, expect, it } from 'vitest';
import { encodeFunctionData, erc20Abi, getAddress, parseAbi } from 'viem';
import { describeTokenCall } from './token-calls.js';

const to = getAddress('0x1111111111111111111111111111111111111111');
const from = getAddress('0x2222222222222222222222222222222222222222');

describe('describeTokenCall', () => {
  it('recognises transfer, transferFrom, approve and increaseAllowance by selector', () => {
    expect(describeTokenCall(encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, 5n] }))).toEqual({
      kind: 'transfer',
      to,
      amount: 5n,
    });
    expect(describeTokenCall(encodeFunctionData({ abi: erc20Abi, functionName: 'transferFrom', args: [from, to, 7n] }))).toEqual({
      kind: 'transferFrom',
      from,
      to,
      amount: 7n,
    });
    expect(describeTokenCall(encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [to, 9n] }))).toEqual({
      kind: 'approve',
      spender: to,
      amount: 9n,
    });
    const inc = parseAbi(['function increaseAllowance(address spender, uint256 added)']);
    expect(describeTokenCall(encodeFunctionData({ abi: inc, functionName: 'increaseAllowance', args: [to, 3n] }))).toEqual({
      kind: 'increaseAllowance',
      spender: to,
      amount: 3n,
    });
  });

  it("recognises Tether's increaseApproval (TRC-20 USDT on Tron, StandardTokenWithFees) as granting an allowance", () => {
    // The token's own name for increaseAllowance: it raises what the spender may pull at any time.
    const inc = parseAbi(['function increaseApproval(address _spender, uint256 _addedValue)']);
    expect(describeTokenCall(encodeFunctionData({ abi: inc, functionName: 'increaseApproval', args: [to, 4n] }))).toEqual({
      kind: 'increaseAllowance',
      spender: to,
      amount: 4n,
    });
    expect(describeTokenCall('0xd73dd623')).toEqual({ kind: 'malformed', signature: 'increaseApproval(address,uint256)' });
  });

  it('goes by the selector whatever the function is called: colliding names are read as the token reads them', () => {
    const lying = parseAbi(['function sign_szabo_bytecode(bytes16 a, uint128 b)']);
    const data = encodeFunctionData({ abi: lying, functionName: 'sign_szabo_bytecode', args: ['0x000000000000000000000000deadbeef', 42n] });
    expect(describeTokenCall(data)).toEqual({ kind: 'approve', spender: getAddress(`0xdeadbeef${'0'.repeat(32)}`), amount: 42n });
    const short = parseAbi(['function many_msg_babbage(bytes1 x)']);
    expect(describeTokenCall(encodeFunctionData({ abi: short, functionName: 'many_msg_babbage', args: ['0x01'] }))).toEqual({
      kind: 'malformed',
      signature: 'transfer(address,uint256)',
    });
  });

  it('reads an address as the low 20 bytes of its word and ignores trailing data; other selectors are null', () => {
    const dirty = `0xa9059cbb${'ff'.repeat(12)}${to.slice(2).toLowerCase()}${1n.toString(16).padStart(64, '0')}abcd`;
    expect(describeTokenCall(dirty)).toEqual({ kind: 'transfer', to, amount: 1n });
    expect(describeTokenCall(encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [to] }))).toBeNull();
    expect(describeTokenCall('0x')).toBeNull();
  });
});
