/**
 * EIP-681 payment requests: `ethereum:<token>@<chainId>/transfer?address=<to>&uint256=<units>`
 * for an ERC-20 transfer, `ethereum:<to>@<chainId>?value=<wei>` for the native coin. Amounts
 * are integers in base units, as the standard writes them (wallets scale by the token's
 * decimals). The chain's id is the adapter's own (its configuration), so callers never pass one.
 */
import type { PaymentRequests } from '../types.js';

export function evmPaymentRequests(chainId: number): PaymentRequests {
  return {
    scheme: 'ethereum',
    uri(r) {
      if (r.token === null) return `ethereum:${r.recipient}@${chainId}?value=${r.amount}`;
      return `ethereum:${r.token}@${chainId}/transfer?address=${r.recipient}&uint256=${r.amount}`;
    },
  };
}
