/**
 * Token calls recognised from calldata by their 4-byte selector, whatever ABI the client
 * sent: a client may declare a function with another name whose selector collides with
 * `transfer`'s (`many_msg_babbage(bytes1)` is 0xa9059cbb too), and the token executes the
 * selector, not the name. Arguments are read as the token reads them: 32-byte words after
 * the selector, an address as the word's low 20 bytes, trailing data ignored.
 */
import { getAddress } from 'viem';
import type { TokenCall } from '../types.js';

const SIGNATURES: Record<string, { signature: string; words: number; read: (w: bigint[]) => TokenCall }> = {
  a9059cbb: { signature: 'transfer(address,uint256)', words: 2, read: (w) => ({ kind: 'transfer', to: address(w[0]!), amount: w[1]! }) },
  // ERC-677: a transfer followed by a call on the recipient.
  '4000aea0': {
    signature: 'transferAndCall(address,uint256,bytes)',
    words: 2,
    read: (w) => ({ kind: 'transfer', to: address(w[0]!), amount: w[1]! }),
  },
  '23b872dd': {
    signature: 'transferFrom(address,address,uint256)',
    words: 3,
    read: (w) => ({ kind: 'transferFrom', from: address(w[0]!), to: address(w[1]!), amount: w[2]! }),
  },
  '095ea7b3': {
    signature: 'approve(address,uint256)',
    words: 2,
    read: (w) => ({ kind: 'approve', spender: address(w[0]!), amount: w[1]! }),
  },
  '39509351': {
    signature: 'increaseAllowance(address,uint256)',
    words: 2,
    read: (w) => ({ kind: 'increaseAllowance', spender: address(w[0]!), amount: w[1]! }),
  },
  // Tether's name for it (StandardTokenWithFees: TRC-20 USDT on Tron, and other Tether deployments).
  d73dd623: {
    signature: 'increaseApproval(address,uint256)',
    words: 2,
    read: (w) => ({ kind: 'increaseAllowance', spender: address(w[0]!), amount: w[1]! }),
  },
};

function address(word: bigint): string {
  return getAddress(`0x${(word & ((1n << 160n) - 1n)).toString(16).padStart(40, '0')}`);
}

export function describeTokenCall(data: string): TokenCall | null {
  const hex = data.startsWith('0x') ? data.slice(2) : data;
  const known = SIGNATURES[hex.slice(0, 8).toLowerCase()];
  if (!known) return null;
  const body = hex.slice(8);
  if (!/^[0-9a-fA-F]*$/.test(body) || body.length < known.words * 64) return { kind: 'malformed', signature: known.signature };
  const words = Array.from({ length: known.words }, (_, i) => BigInt(`0x${body.slice(i * 64, i * 64 + 64)}`));
  return known.read(words);
}
