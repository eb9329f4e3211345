/**
 * Pure helpers of the outbound pipeline: request checks, error reading, log fields.
 */
import type { NetworkData } from '../../chains/types.js';
import { ValidationError } from '../../lib/errors.js';
import type { ChainHandle } from '../catalogue/service.js';
import type * as store from './store.js';
import type { OutboundRow } from './store.js';

const DATA_RE = /^0x(?:[0-9a-fA-F]{2})*$/;

/** What an enqueue request may carry; everything a caller got wrong is refused before a nonce is taken. */
export interface EnqueueFields {
  to: string;
  /** null: an imported key's address (`fromAddress`). */
  fromIndex: number | null;
  fromAddress?: string;
  value: bigint;
  data?: string;
  gasLimit?: bigint;
  /** Fixed fields as the family's quote gave them (Sender.quote, FeeQuote.fixed); gasLimit wins over them. */
  network?: NetworkData;
  purpose: string;
}

export function validate(chain: ChainHandle, req: EnqueueFields): Pick<store.NewOutbound, 'to' | 'value' | 'data' | 'network'> {
  const to = chain.adapter.normalizeAddress(req.to);
  if (!to) throw new ValidationError(`'${req.to}' is not a valid ${chain.key} address`);
  if (req.fromIndex === null) {
    if (!req.fromAddress || !chain.adapter.normalizeAddress(req.fromAddress))
      throw new ValidationError('fromAddress is required without fromIndex');
  } else if (!Number.isInteger(req.fromIndex) || req.fromIndex < 0 || req.fromIndex >= 0x80000000) {
    throw new ValidationError('fromIndex must be an integer from 0 to 2^31-1');
  }
  if (typeof req.value !== 'bigint' || req.value < 0n) throw new ValidationError('value must be a non-negative bigint');
  if (req.data !== undefined && !DATA_RE.test(req.data)) throw new ValidationError('data must be 0x-prefixed hex bytes');
  // The family checks what it means by a limit (chains/<family>/sender.ts).
  const network = {
    ...req.network,
    ...chain.adapter.sender.fixedNetwork(req.gasLimit !== undefined ? { limit: req.gasLimit } : {}),
  };
  if (!req.purpose) throw new ValidationError('purpose is required');
  return { to, value: req.value, data: req.data && req.data !== '0x' ? req.data.toLowerCase() : null, network };
}

/** Why a node refused, as the seam's typed kind (chains/errors.ts); null for any other failure. */
export { rejectionReason as rejectionOf } from '../../chains/errors.js';

export function messageOf(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 1000);
}

export function logFields(row: OutboundRow) {
  return { outboundId: row.id, purpose: row.purpose, from: row.fromAddress, nonce: row.nonce?.toString() ?? null, hash: row.hash };
}

/**
 * A new row from the same sender and in the same ordering slot as `row`: a replacement, the
 * filler of its nonce, or its rebuild after expiry (on 'expiry' families the slot is null).
 */
export function successorOf(
  row: OutboundRow,
  id: string,
  next: Pick<store.NewOutbound, 'to' | 'value' | 'data' | 'network' | 'purpose' | 'ownerId'>,
): store.NewOutbound {
  return {
    id,
    chainId: row.chainId,
    walletId: row.walletId,
    fromAddress: row.fromAddress,
    fromIndex: row.fromIndex,
    nonce: row.nonce,
    feePayer: row.feePayer,
    ...next,
  };
}
