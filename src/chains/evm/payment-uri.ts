/**
 * EIP-681 payment requests: `ethereum:<token>@<chainId>/transfer?address=<to>&uint256=<units>`
 * for an ERC-20 transfer, `ethereum:<to>@<chainId>?value=<wei>` for the native coin. Amounts
 * are integers in base units, as the standard writes them (wallets scale by the token's decimals).
 */
import type { PaymentRequests } from '../types.js';

export const evmPaymentRequests: PaymentRequests = {
  scheme: 'ethereum',
  uri(r) {
    if (r.token === null) return `ethereum:${r.recipient}@${r.chainId}?value=${r.amount}`;
    return `ethereum:${r.token}@${r.chainId}/transfer?address=${r.recipient}&uint256=${r.amount}`;
  },
};
