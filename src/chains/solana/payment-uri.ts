/**
 * Solana Pay transfer requests: `solana:<recipient>?amount=<decimal>&spl-token=<mint>&reference=<key>
 * &label=…&message=…`. The amount is in the token's units (never scientific notation); the
 * reference is a random 32-byte key, base58, that the payer's wallet adds to its transfer as a
 * read-only account, so the payment can be found by it (getSignaturesForAddress).
 */
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { formatAmount } from '../../lib/money.js';
import type { PaymentRequests } from '../types.js';

export const solanaPaymentRequests: PaymentRequests = {
  scheme: 'solana',
  uri(r) {
    const parts = [`amount=${formatAmount(r.amount, r.decimals)}`];
    if (r.token !== null) parts.push(`spl-token=${r.token}`);
    if (r.reference) parts.push(`reference=${r.reference}`);
    if (r.label) parts.push(`label=${encodeURIComponent(r.label)}`);
    if (r.message) parts.push(`message=${encodeURIComponent(r.message)}`);
    return `solana:${r.recipient}?${parts.join('&')}`;
  },
  newReference: () => base58.encode(randomBytes(32)),
};
