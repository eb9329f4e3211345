import { encodeFunctionData, erc20Abi, getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { PERMIT2, grantsOf } from './grants.js';
import { prepareTypedData } from './typed-data.js';

const TOKEN = getAddress('0x5fbdb2315678afecb367f032d93f642f64180aa3');
const OTHER = getAddress('0xe7f1725e7734ce288f8367e1bb143e90bb3f0512');
const OWNER = getAddress('0x70997970c51812dc3a010c7d01b50e20d4dc79c8');
const SPENDER = getAddress('0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc');
const CHAIN = 31337;
const domain = (verifyingContract = TOKEN, chainId = CHAIN) => ({ name: 'USD Coin', version: '2', chainId, verifyingContract });
const prepare = (input: unknown) => prepareTypedData(input as never);
const addr = (name: string) => ({ name, type: 'address' });
const uint = (name: string) => ({ name, type: 'uint256' });

const eip2612 = (members = ['owner', 'spender', 'value', 'nonce', 'deadline'], chainId = CHAIN) =>
  prepare({
    domain: domain(TOKEN, chainId),
    types: { Permit: members.map((n) => (n === 'owner' || n === 'spender' ? addr(n) : uint(n))) },
    message: { owner: OWNER, spender: SPENDER, value: '5000000', nonce: 0, deadline: 1_900_000_000 },
  });

describe('grantsOf', () => {
  it("reads an EIP-2612 permit's allowance, the token the verifying contract, members in any order", () => {
    const base = {
      kind: 'allowance',
      token: TOKEN,
      owner: OWNER,
      to: SPENDER,
      amount: 5_000_000n,
      thisChain: true,
      field: 'message.spender',
    };
    expect(grantsOf(eip2612(), CHAIN)).toEqual([base]);
    expect(grantsOf(eip2612(['spender', 'owner', 'deadline', 'value', 'nonce']), CHAIN)).toEqual([base]);
    expect(grantsOf(eip2612(undefined, 1), CHAIN)[0]!.thisChain).toBe(false);
    expect(grantsOf(eip2612(['owner', 'nonce', 'deadline']), CHAIN)).toEqual([]);
  });

  it("reads DAI's permit: allowed sets the maximum, or 0", () => {
    const dai = (allowed: boolean) =>
      prepare({
        domain: domain(),
        types: { Permit: [addr('holder'), addr('spender'), uint('nonce'), uint('expiry'), { name: 'allowed', type: 'bool' }] },
        message: { holder: OWNER, spender: SPENDER, nonce: 0, expiry: 0, allowed },
      });
    expect(grantsOf(dai(true), CHAIN)[0]).toMatchObject({ owner: OWNER, to: SPENDER, amount: (1n << 256n) - 1n });
    expect(grantsOf(dai(false), CHAIN)[0]!.amount).toBe(0n);
  });

  it('reads an EIP-3009 transfer authorisation as a transfer to its recipient', () => {
    for (const primaryType of ['TransferWithAuthorization', 'ReceiveWithAuthorization']) {
      const payload = prepare({
        domain: domain(),
        types: {
          [primaryType]: [
            addr('from'),
            addr('to'),
            uint('value'),
            uint('validAfter'),
            uint('validBefore'),
            { name: 'nonce', type: 'bytes32' },
          ],
        },
        message: { from: OWNER, to: SPENDER, value: '50000000', validAfter: 0, validBefore: 1_900_000_000, nonce: `0x${'11'.repeat(32)}` },
      });
      expect(grantsOf(payload, CHAIN)).toEqual([
        { kind: 'transfer', token: TOKEN, owner: OWNER, to: SPENDER, amount: 50_000_000n, thisChain: true, field: 'message.to' },
      ]);
    }
  });

  it("reads a meta-transaction's token call", () => {
    const call = (data: string) =>
      prepare({
        domain: domain(),
        types: { MetaTransaction: [uint('nonce'), addr('from'), { name: 'functionSignature', type: 'bytes' }] },
        message: { nonce: 0, from: OWNER, functionSignature: data },
      });
    const transfer = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [SPENDER, 7n] });
    const approve = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [SPENDER, 9n] });
    expect(grantsOf(call(transfer), CHAIN)[0]).toMatchObject({ kind: 'transfer', owner: OWNER, to: SPENDER, amount: 7n });
    expect(grantsOf(call(approve), CHAIN)[0]).toMatchObject({ kind: 'allowance', owner: OWNER, to: SPENDER, amount: 9n });
    expect(grantsOf(call('0x12345678'), CHAIN)).toEqual([]);
  });

  it('reads Permit2: an allowance per token to the spender, the signer the owner', () => {
    const permit2 = getAddress(PERMIT2);
    const details = [
      { name: 'token', type: 'address' },
      { name: 'amount', type: 'uint160' },
      { name: 'expiration', type: 'uint48' },
      { name: 'nonce', type: 'uint48' },
    ];
    const single = prepare({
      domain: { name: 'Permit2', chainId: CHAIN, verifyingContract: permit2 },
      types: { PermitSingle: [{ name: 'details', type: 'PermitDetails' }, addr('spender'), uint('sigDeadline')], PermitDetails: details },
      message: { details: { token: TOKEN, amount: '1000', expiration: 0, nonce: 0 }, spender: SPENDER, sigDeadline: 0 },
    });
    expect(grantsOf(single, CHAIN)).toEqual([
      { kind: 'allowance', token: TOKEN, owner: null, to: SPENDER, amount: 1000n, thisChain: true, field: 'message.details' },
    ]);
    const batch = prepare({
      domain: { name: 'Permit2', chainId: CHAIN, verifyingContract: permit2 },
      types: {
        PermitBatchTransferFrom: [{ name: 'permitted', type: 'TokenPermissions[]' }, addr('spender'), uint('nonce'), uint('deadline')],
        TokenPermissions: [addr('token'), uint('amount')],
      },
      message: {
        permitted: [
          { token: TOKEN, amount: '1' },
          { token: OTHER, amount: '2' },
        ],
        spender: SPENDER,
        nonce: 0,
        deadline: 0,
      },
    });
    expect(grantsOf(batch, CHAIN).map((g) => [g.token, g.amount, g.field])).toEqual([
      [TOKEN, 1n, 'message.permitted.0'],
      [OTHER, 2n, 'message.permitted.1'],
    ]);
  });

  it('is empty for typed data that authorises nothing', () => {
    const order = prepare({
      domain: domain(),
      types: { Order: [addr('owner'), addr('spender'), uint('value')] },
      message: { owner: OWNER, spender: SPENDER, value: 1 },
    });
    expect(grantsOf(order, CHAIN)).toEqual([]);
  });
});
