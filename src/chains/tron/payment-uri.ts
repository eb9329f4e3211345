/**
 * Tron has no payment-URI standard of its own (no TIP defines one); wallets that read a QR
 * code take the BIP-21 form: `tron:<to>?amount=<decimal>`, with `token=<TRC-20 contract>` for
 * a token. The payer's page also shows the address and amount to copy, for wallets that only
 * read the address.
 */
import { formatAmount } from '../../lib/money.js';
import type { PaymentRequests } from '../types.js';

export const tronPaymentRequests: PaymentRequests = {
  scheme: 'tron',
  uri(r) {
    const query = new URLSearchParams({ amount: formatAmount(r.amount, r.decimals) });
    if (r.token !== null) query.set('token', r.token);
    return `tron:${r.recipient}?${query.toString()}`;
  },
};
