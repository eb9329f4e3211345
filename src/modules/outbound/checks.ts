/**
 * Pure helpers of the outbound pipeline: request checks, error reading, log fields.
 */
import type { IntentBody, NetworkData } from '../../chains/types.js';
import { ValidationError } from '../../lib/errors.js';
import type { ChainHandle } from '../catalogue/service.js';
import type * as store from './store.js';
import type { OutboundRow } from './store.js';

const DATA_RE = /^0x(?:[0-9a-fA-F]{2})*$/;

/** What an enqueue request may carry; everything a caller got wrong is refused before a nonce is taken. */
export interface EnqueueFields {
  intent: IntentBody;
  /** null: an imported key's address (`fromAddress`). */
  fromIndex: number | null;
  fromAddress?: string;
  gasLimit?: bigint;
  /** Fixed fields as the family's quote gave them (Sender.quote, FeeQuote.fixed); gasLimit wins over them. */
  network?: NetworkData;
  purpose: string;
}

export function validate(chain: ChainHandle, req: EnqueueFields): Pick<store.NewOutbound, 'intent' | 'network'> {
  const intent = checkedIntent(chain, req.intent);
  if (req.fromIndex === null) {
    if (!req.fromAddress || !chain.adapter.normalizeAddress(req.fromAddress))
      throw new ValidationError('fromAddress is required without fromIndex');
  } else if (!Number.isInteger(req.fromIndex) || req.fromIndex < 0 || req.fromIndex >= 0x80000000) {
    throw new ValidationError('fromIndex must be an integer from 0 to 2^31-1');
  }
  // The family checks what it means by a limit (chains/<family>/sender.ts).
  const network = {
    ...req.network,
    ...chain.adapter.sender.fixedNetwork(req.gasLimit !== undefined ? { limit: req.gasLimit } : {}),
  };
  if (!req.purpose) throw new ValidationError('purpose is required');
  return { intent, network };
}

/** The intent with its addresses in the chain's canonical form, its amounts and calldata checked. */
function checkedIntent(chain: ChainHandle, i: IntentBody): IntentBody {
  const address = (a: string) => {
    const canonical = chain.adapter.normalizeAddress(a);
    if (!canonical) throw new ValidationError(`'${a}' is not a valid ${chain.key} address`);
    return canonical;
  };
  const amount = (v: bigint, what: string) => {
    if (typeof v !== 'bigint' || v < 0n) throw new ValidationError(`${what} must be a non-negative bigint`);
    return v;
  };
  switch (i.kind) {
    case 'native':
      return { ...i, to: address(i.to), amount: amount(i.amount, 'amount') };
    case 'token':
      return {
        ...i,
        token: address(i.token),
        to: address(i.to),
        amount: amount(i.amount, 'amount'),
        ...(i.more ? { more: i.more.map((p) => ({ to: address(p.to), amount: amount(p.amount, 'amount') })) } : {}),
      };
    case 'call':
      if (!DATA_RE.test(i.data) || i.data === '0x') throw new ValidationError('data must be 0x-prefixed hex bytes');
      return { ...i, to: address(i.to), value: amount(i.value, 'value'), data: i.data.toLowerCase() };
    default:
      throw new ValidationError('intent must be a native, token or call intent');
  }
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
  next: Pick<store.NewOutbound, 'intent' | 'network' | 'purpose' | 'ownerId' | 'feeCeiling'>,
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
