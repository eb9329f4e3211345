/**
 * The gas fields that clients of the described service send with a withdrawal or a network-fee
 * request: `gasLimit` (the family's units) and `gasPrice` (base units of the native coin per
 * unit), and `nonce` (also misspelt
 * `nounce` in its documentation).
 *
 * - `gasLimit` becomes each transaction's gas limit, as given, provided the node's estimate
 *   fits under it: a limit below the estimate would only burn gas on a failed transaction,
 *   so it is a 400 (docs/withdrawals.md). Above the estimate it is the client's headroom,
 *   held back (limit x fee cap) like any reservation.
 * - `gasPrice` becomes the fee cap (the tip is the estimate's, at most the cap): no unit
 *   costs more than it. A cap under the network's current base fee (with
 *   the same 20% headroom the service's own estimate has) could not be mined now: a 400.
 *   The family translates it (Sender.fixedNetwork's feeCap, completed by Sender.quote).
 * - `nonce`/`nounce`: refused. Nonces are allocated by the service per sender, without gaps
 *   (DESIGN section 7); a nonce chosen by a client would collide with them.
 */
import { ValidationError } from '../../lib/errors.js';

export interface GasOptions {
  gasLimit?: bigint;
  gasPrice?: bigint;
}

/** Far above any single transfer, and under every supported chain's block gas limit. */
export const MAX_GAS_LIMIT = 30_000_000n;

interface GasFields {
  gasLimit?: string | number | undefined;
  gasPrice?: string | number | undefined;
  nonce?: unknown;
  nounce?: unknown;
}

const bad = (field: string, message: string) => new ValidationError(`${field} ${message}`, [{ field, message }]);

/** The request's gas options; a 400 for `nonce`/`nounce` and for values out of range. */
export function gasOptions(body: GasFields): GasOptions {
  for (const field of ['nonce', 'nounce'] as const) {
    if (body[field] !== undefined) {
      throw bad(field, 'is not accepted: the service manages nonces (one per sender, in order, without gaps); remove it');
    }
  }
  const out: GasOptions = {};
  if (body.gasLimit !== undefined) {
    const gas = whole(body.gasLimit, 'gasLimit');
    if (gas > MAX_GAS_LIMIT) throw bad('gasLimit', `must be at most ${MAX_GAS_LIMIT} gas`);
    out.gasLimit = gas;
  }
  if (body.gasPrice !== undefined) out.gasPrice = whole(body.gasPrice, 'gasPrice');
  return out;
}

/** A positive whole number given as a JSON integer or a decimal string. */
function whole(value: string | number, field: string): bigint {
  const text = typeof value === 'number' ? (Number.isSafeInteger(value) ? String(value) : '') : value;
  if (!/^[0-9]{1,30}$/.test(text)) throw bad(field, 'must be a whole number (a decimal string or a safe JSON integer)');
  const n = BigInt(text);
  if (n === 0n) throw bad(field, 'must be greater than 0');
  return n;
}

/**
 * Refuses the client's gas limit when the node's estimate of an item does not fit under it;
 * above the estimate it is the client's headroom, and the limit of every transaction.
 */
export function checkGasLimit(gasLimit: bigint, estimate: bigint, item: { field: string }): void {
  if (gasLimit < estimate) {
    const which = item.field ? ` of ${item.field}` : '';
    throw new ValidationError(`gasLimit ${gasLimit} is below the network's estimate of ${estimate} gas${which}`, [
      { field: 'gasLimit', message: `below the estimate (${estimate} gas)` },
    ]);
  }
}
