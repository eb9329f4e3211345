/**
 * java-tron's refusals of a broadcast (the `code` of api.Return, as /wallet/broadcasthex and
 * /wallet/broadcasttransaction answer it) onto the seam's reasons (chains/errors.ts).
 * Modules act on the reason only; the node's words stay in `nodeMessage`.
 *
 * | code | reason |
 * |---|---|
 * | TRANSACTION_EXPIRATION_ERROR | `expired` (its expiration is behind the next block: rebuild it) |
 * | DUP_TRANSACTION_ERROR | none: the node already has it (pending or in a block), a success for a broadcast |
 * | SIGERROR, TAPOS_ERROR, TOO_BIG_TRANSACTION_ERROR | `invalid` (bad signature, unknown reference block, oversized) |
 * | BANDWITH_ERROR (java-tron's spelling) | `insufficient-funds` (no bandwidth and no TRX to burn for it) |
 * | CONTRACT_VALIDATE_ERROR "… balance is not sufficient …" | `insufficient-funds` |
 * | CONTRACT_EXE_ERROR | `reverted` |
 * | SERVER_BUSY, NO_CONNECTION, NOT_ENOUGH_EFFECTIVE_CONNECTION, BLOCK_UNSOLIDIFIED | not a refusal of the transaction: the node cannot take any now (`isTronTransient`; the adapter answers a retryable CHAIN_UNAVAILABLE) |
 * | anything else (CONTRACT_VALIDATE_ERROR of another kind, OTHER_ERROR, …) | `refused` |
 */
import { ChainRejectedError, type RejectionReason } from '../errors.js';

/** Codes that say the node is unable to take transactions now, whatever the transaction. */
const TRANSIENT = new Set(['SERVER_BUSY', 'NO_CONNECTION', 'NOT_ENOUGH_EFFECTIVE_CONNECTION', 'BLOCK_UNSOLIDIFIED']);

const INVALID = new Set(['SIGERROR', 'TAPOS_ERROR', 'TOO_BIG_TRANSACTION_ERROR']);

/** What java-tron says when the owner cannot pay the value (TransferContract) or a fee. */
const NOT_ENOUGH = /balance is not sufficient|not enough balance|insufficient balance|balance not sufficient/i;

/** Whether `code` is the node's trouble rather than the transaction's (try again later, maybe elsewhere). */
export function isTronTransient(code: string): boolean {
  return TRANSIENT.has(code);
}

/** The seam's reason for a java-tron refusal, or 'known' for DUP_TRANSACTION_ERROR (not a refusal). */
export function tronRejectionReason(code: string, message: string): RejectionReason | 'known' {
  if (code === 'DUP_TRANSACTION_ERROR') return 'known';
  if (code === 'TRANSACTION_EXPIRATION_ERROR') return 'expired';
  if (INVALID.has(code)) return 'invalid';
  if (code === 'BANDWITH_ERROR' || code === 'BANDWIDTH_ERROR') return 'insufficient-funds';
  if (code === 'CONTRACT_VALIDATE_ERROR' && NOT_ENOUGH.test(message)) return 'insufficient-funds';
  if (code === 'CONTRACT_EXE_ERROR') return 'reverted';
  return 'refused';
}

/**
 * The refusal as a ChainRejectedError, or null for DUP_TRANSACTION_ERROR (the node already
 * has the transaction: a broadcast answers its txID). `message` is the node's text (decode
 * broadcasttransaction's hex first: `tronMessageText`).
 */
export function tronRejection(code: string, message: string, txid?: string): ChainRejectedError | null {
  const reason = tronRejectionReason(code, message);
  if (reason === 'known') return null;
  const what = txid ? `transaction ${txid}` : 'transaction';
  return new ChainRejectedError(reason, `${what} rejected (${code})`, { nodeMessage: message || code });
}

/**
 * A node message as text: /wallet/broadcasttransaction (and other servlets without
 * `visible: true`) write api.Return's message as hex of its UTF-8 bytes; broadcasthex writes
 * it as text. Hex that decodes to printable text is decoded; anything else is kept as it is.
 */
export function tronMessageText(message: unknown): string {
  if (typeof message !== 'string') return '';
  if (message.length === 0 || message.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(message)) return message;
  const text = Buffer.from(message, 'hex').toString('utf8');
  // eslint-disable-next-line no-control-regex
  return /^[^\u0000-\u0008\u000e-\u001f\ufffd]*$/.test(text) ? text : message;
}
