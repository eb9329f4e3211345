/**
 * Sending on EVM chains: nonces, fees, gas, broadcast and receipts (see chains/types.ts).
 *
 * Broadcasting must be idempotent, because the outbound pipeline re-broadcasts the same
 * stored raw transaction after restarts and while tracking it. A node answers a resend of
 * a transaction it already has with an error ("already known", "transaction already
 * imported"), or with "nonce too low" once it is mined; those are successes for us. The
 * same "nonce too low" also means that *another* transaction used the nonce, so the hash
 * is looked up before deciding. Anything else the node refuses is a ChainRejectedError
 * (chains/errors.ts, code CHAIN_REJECTED) of the matching kind; transport failures are rethrown as they are, and the adapter turns
 * them into retryable CHAIN_UNAVAILABLE errors.
 */
import {
  BaseError,
  ExecutionRevertedError,
  keccak256,
  RpcRequestError,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
} from 'viem';
import { ChainRejectedError, type RejectionReason } from '../errors.js';
import type { Receipt } from '../types.js';
import { evmReceipt, type FeeEstimate } from './fees.js';

export async function getNonce(client: PublicClient, address: string, blockTag: 'pending' | 'latest'): Promise<number> {
  return client.getTransactionCount({ address: address as Address, blockTag });
}

export async function estimateFees(client: PublicClient): Promise<FeeEstimate> {
  // The adapter's client carries its chain; viem's types want it restated when one is given.
  const fees = await client.estimateFeesPerGas({ type: 'eip1559', chain: client.chain });
  return { maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas };
}

export async function estimateGas(client: PublicClient, tx: { from: string; to: string; value: bigint; data?: string }): Promise<bigint> {
  try {
    return await client.estimateGas({
      account: tx.from as Address,
      to: tx.to as Address,
      value: tx.value,
      ...(tx.data ? { data: tx.data as Hex } : {}),
    });
  } catch (err) {
    if (!answeredByNode(err)) throw err;
    const message = nodeMessage(err);
    const reverted = err instanceof BaseError && err.walk((e) => e instanceof ExecutionRevertedError) !== null;
    throw new ChainRejectedError(reverted ? 'reverted' : classify(message), 'gas estimation refused', { nodeMessage: message, cause: err });
  }
}

const ALREADY_KNOWN = /already known|already imported|known transaction|alreadyknown|already in (the )?(mem|tx)?pool|already exists/i;

export async function broadcastRaw(client: PublicClient, raw: string): Promise<string> {
  // The hash of a signed transaction is the keccak of its bytes: no need to trust the node.
  const hash = keccak256(raw as Hex);
  try {
    await client.sendRawTransaction({ serializedTransaction: raw as Hex });
    return hash;
  } catch (err) {
    if (!answeredByNode(err)) throw err;
    const message = nodeMessage(err);
    if (ALREADY_KNOWN.test(message)) return hash;
    const reason = classify(message);
    // Our own transaction, pending or mined, is answered like this by some nodes: only the
    // hash tells it apart from a different transaction holding the same nonce.
    if ((reason === 'nonce-used' || reason === 'replacement-underpriced') && (await isKnown(client, hash))) return hash;
    throw new ChainRejectedError(reason, `transaction ${hash} rejected`, { nodeMessage: message, cause: err });
  }
}

export async function getReceipt(client: PublicClient, hash: string): Promise<Receipt | null> {
  try {
    const r = await client.getTransactionReceipt({ hash: hash as Hash });
    return evmReceipt(r.status, { number: r.blockNumber, hash: r.blockHash }, r.gasUsed, r.effectiveGasPrice);
  } catch (err) {
    if (err instanceof TransactionReceiptNotFoundError) return null;
    throw err;
  }
}

/**
 * `transfer(address,uint256)` calldata, laid out directly: selector a9059cbb, then the two
 * arguments as 32-byte words. Identical to viem's encodeFunctionData for this ABI (a unit
 * test compares them) at a fraction of its cost, which showed per withdrawal in profiles.
 */
export function encodeTokenTransfer(to: string, amount: bigint): string {
  if (!/^0x[0-9a-fA-F]{40}$/.test(to)) throw new Error(`not an address: ${to}`);
  if (amount < 0n || amount >= 1n << 256n) throw new Error(`not a uint256: ${amount}`);
  return `0xa9059cbb${'0'.repeat(24)}${to.slice(2).toLowerCase()}${amount.toString(16).padStart(64, '0')}`;
}

/** Whether the node has the transaction, pending or mined. */
async function isKnown(client: PublicClient, hash: Hash): Promise<boolean> {
  try {
    await client.getTransaction({ hash });
    return true;
  } catch (err) {
    if (err instanceof TransactionNotFoundError) return false;
    throw err;
  }
}

// JSON-RPC codes that mean "try again later" rather than "no": rate limits, overload.
const TRANSIENT_RPC_CODES = new Set([-32005, -32002, -32603, 429]);

/** True when a node answered with a JSON-RPC error (as opposed to a timeout or a dropped connection). */
function answeredByNode(err: unknown): boolean {
  if (!(err instanceof BaseError)) return false;
  const rpc = err.walk((e) => e instanceof RpcRequestError) as RpcRequestError | null;
  return rpc !== null && !TRANSIENT_RPC_CODES.has(rpc.code);
}

function nodeMessage(err: unknown): string {
  const rpc = (err as BaseError).walk((e) => e instanceof RpcRequestError) as RpcRequestError | null;
  return (rpc?.details || (err as BaseError).shortMessage || String(err)).slice(0, 500);
}

/** A node's words onto the seam's kinds (chains/errors.ts); geth, erigon, nethermind and anvil wordings. */
function classify(message: string): RejectionReason {
  const m = message.toLowerCase();
  if (/nonce too low|nonce is too low|oldnonce|nonce has already been used|nonce already used/.test(m)) return 'nonce-used';
  if (/replacement transaction underpriced|replacement fee too low|replacementnotallowed/.test(m)) return 'replacement-underpriced';
  if (/insufficient funds|insufficient balance|sender balance/.test(m)) return 'insufficient-funds';
  if (/base fee|fee cap|feecap|underpriced|fee too low|gas price too low|below minimum/.test(m)) return 'fee-too-low';
  if (/execution reverted|revert/.test(m)) return 'reverted';
  if (/intrinsic gas|chain id|invalid sender|decode|rlp|exceeds block gas limit|oversized/.test(m)) return 'invalid';
  return 'refused';
}
