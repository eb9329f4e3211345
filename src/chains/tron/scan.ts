/**
 * Reading deposits off a Tron node: blocks and their transfers, from java-tron's JSON
 * (`visible: false`: addresses as 41-hex, log addresses and topics as 20/32-byte hex without
 * 0x). A block costs two calls whatever the number of watched addresses: the block with its
 * transactions (`/wallet/getblockbynum`, for top-level TRX transfers) and every
 * TransactionInfo of the block (`/wallet/gettransactioninfobyblocknum`, for TRC-20 `Transfer`
 * logs); watched addresses are matched in memory.
 */
import type { BlockRef, TransferEvent } from '../types.js';
import { tronCodec, tronEvmHex } from './codec.js';

/** keccak256('Transfer(address,address,uint256)'), as java-tron writes topics (no 0x). */
export const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const WORD = /^[0-9a-fA-F]{64}$/;
const DATA = /^(?:[0-9a-fA-F]{2}){32,}$/;

/** A block as java-tron prints it (the fields read here). */
export interface TronBlockJson {
  blockID?: string;
  block_header?: { raw_data?: { number?: number | string; parentHash?: string; timestamp?: number | string } };
  transactions?: TronTxJson[];
}

export interface TronTxJson {
  txID: string;
  ret?: { contractRet?: string }[];
  raw_data?: { contract?: { type?: string; parameter?: { value?: Record<string, unknown> } }[] };
}

/** TransactionInfo as java-tron prints it (the fields read here). */
export interface TronTxInfoJson {
  id?: string;
  fee?: number | string;
  blockNumber?: number | string;
  blockTimeStamp?: number | string;
  result?: string;
  resMessage?: string;
  receipt?: {
    result?: string;
    energy_usage?: number | string;
    energy_fee?: number | string;
    origin_energy_usage?: number | string;
    energy_usage_total?: number | string;
    net_usage?: number | string;
    net_fee?: number | string;
  };
  log?: { address?: string; topics?: string[]; data?: string }[];
}

/** The chain moved under us while we read it (a block and its infos from different branches); reading again is the remedy. */
export class TronChainMovedError extends Error {
  constructor(detail: string) {
    super(`chain changed while scanning: ${detail}`);
    this.name = 'TronChainMovedError';
  }
}

/** An int64 as java-tron writes it (a number, or a decimal string past 2^53: TronNode's parser), as bigint; absent = 0. */
export function int64(v: unknown): bigint {
  if (v === undefined || v === null) return 0n;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
  throw new Error(`not an int64: ${String(v)}`);
}

/** A block's reference, or null for `{}` (java-tron's answer for a block it does not have). */
export function blockRefOf(block: TronBlockJson): BlockRef | null {
  if (!block.blockID) return null;
  const raw = block.block_header?.raw_data ?? {};
  return {
    // proto3 leaves a zero out: the genesis block has no `number`.
    number: int64(raw.number),
    hash: block.blockID,
    parentHash: raw.parentHash ?? '',
    timestamp: Math.floor(Number(int64(raw.timestamp)) / 1000),
  };
}

/** The T… form of a 41-hex (or 20-byte hex) address the node printed; null when it is none. */
const address = (hex: unknown): string | null =>
  typeof hex === 'string' ? tronCodec.normalize(hex.length === 40 ? `0x${hex}` : hex) : null;

/** The tokens by the 20-byte lower-case hex (no 0x) their logs name them with -> their canonical T… form. */
export function tokenKeys(tokens: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const t of tokens) {
    const canonical = tronCodec.normalize(t);
    if (canonical === null) throw new Error(`not a Tron token address: ${t}`);
    out.set(tronEvmHex(canonical)!.slice(2), canonical);
  }
  return out;
}

/** A top-level TRX transfer (TransferContract) that succeeded, to a watched address; null otherwise. */
export function trxTransferOf(tx: TronTxJson, block: BlockRef, isWatched: (address: string) => boolean): TransferEvent | null {
  const contract = tx.raw_data?.contract?.[0];
  if (contract?.type !== 'TransferContract') return null;
  // java-tron packs only valid transfers; SUCCESS is checked anyway (a failed one moved nothing).
  if (tx.ret?.[0]?.contractRet !== 'SUCCESS') return null;
  const value = contract.parameter?.value ?? {};
  const to = address(value.to_address);
  const from = address(value.owner_address);
  const amount = int64(value.amount);
  if (to === null || from === null || amount <= 0n || !isWatched(to)) return null;
  return { token: null, from, to, amount, txHash: tx.txID, logIndex: -1, block: { number: block.number, hash: block.hash } };
}

/**
 * TRC-20 `Transfer` logs of `tokens` (20-byte hex -> canonical) in one TransactionInfo, to
 * watched addresses. `logIndex` is the log's index in the info's list (unique within the
 * transaction, which is what a deposit is keyed by with the txID). A failed transaction
 * (`result: FAILED`: REVERT, OUT_OF_ENERGY, …) moved nothing.
 */
export function tokenTransfersOf(
  info: TronTxInfoJson,
  block: BlockRef,
  tokens: Map<string, string>,
  isWatched: (address: string) => boolean,
): TransferEvent[] {
  if (info.result === 'FAILED' || !info.id) return [];
  const out: TransferEvent[] = [];
  (info.log ?? []).forEach((log, logIndex) => {
    const token = tokens.get((log.address ?? '').toLowerCase());
    const topics = log.topics ?? [];
    if (token === undefined || topics.length !== 3 || topics[0]!.toLowerCase() !== TRANSFER_TOPIC) return;
    if (!WORD.test(topics[1]!) || !WORD.test(topics[2]!) || !DATA.test(log.data ?? '')) return;
    const to = address(topics[2]!.slice(24));
    const from = address(topics[1]!.slice(24));
    if (to === null || from === null || !isWatched(to)) return;
    const amount = BigInt(`0x${log.data!.slice(0, 64)}`);
    out.push({ token, from, to, amount, txHash: info.id!, logIndex, block: { number: block.number, hash: block.hash } });
  });
  return out;
}

/**
 * One block's transfers to watched addresses, in chain order (transactions in block order;
 * in a transaction its TRX transfer, then its logs). The block and its infos come from two
 * calls: they must list the same transactions, else the chain moved between them.
 */
export function blockTransfers(
  block: TronBlockJson,
  infos: TronTxInfoJson[],
  tokens: Map<string, string>,
  isWatched: (address: string) => boolean,
): { ref: BlockRef; transfers: TransferEvent[] } {
  const ref = blockRefOf(block);
  if (ref === null) throw new TronChainMovedError('a block of the range is absent');
  // java-tron's genesis block carries its allocations as TransferContract transactions that
  // never ran: no result, no TransactionInfo (gettransactioninfobyblocknum answers {} for
  // num 0). They are no deposits, and the infos cannot match them.
  if (ref.number === 0n) return { ref, transfers: [] };
  const txs = block.transactions ?? [];
  const ids = txs.map((t) => t.txID);
  if (infos.length !== txs.length || infos.some((info, i) => info.id !== ids[i]))
    throw new TronChainMovedError(`the transaction infos of block ${ref.number} are not those of block ${ref.hash}`);
  const transfers: TransferEvent[] = [];
  txs.forEach((tx, i) => {
    const trx = trxTransferOf(tx, ref, isWatched);
    if (trx) transfers.push(trx);
    if (tokens.size > 0) transfers.push(...tokenTransfersOf(infos[i]!, ref, tokens, isWatched));
  });
  return { ref, transfers };
}
