/**
 * Reading deposits off an EVM chain. A range costs one eth_getLogs (every Transfer of the
 * watched tokens) plus the range's blocks with their transactions (for top-level native
 * transfers), fetched through JSON-RPC batches; watched addresses are matched in memory,
 * so the cost does not grow with their number.
 */
import { getAddress, parseAbiItem, toEventSelector, toHex, type Hash, type PublicClient, type RpcLog } from 'viem';
import { hash } from 'node:crypto';
import { keccak_256 } from '@noble/hashes/sha3';
import type { BlockRef, ScanResult, TransferEvent } from '../types.js';

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

const TRANSFER_TOPIC = toEventSelector(TRANSFER);
const WORD = /^0x[0-9a-fA-F]{64}$/;
const DATA = /^0x(?:[0-9a-fA-F]{2}){32,}$/;

/**
 * An ERC-20 Transfer log decoded by hand (addresses lowercase, not checksummed), or null
 * when viem's `decodeEventLog({ strict: true })` would refuse it (as getLogs with `strict`
 * dropped it): removed or pending, another topic0, fewer than 3 topics, or no full value
 * word in data (an ERC-721 Transfer has its id as a 4th topic and no data). The layout is
 * fixed-width: addresses are the low 20 bytes of topics 1 and 2, the value the first data
 * word; viem's generic decoder cost most of a backfill's scan time. Compared with viem on
 * random logs in test/deposits/scan-decode.test.ts.
 */
export function decodeTransferLog(log: RpcLog): TransferEvent | null {
  if (log.removed || log.blockHash === null || log.blockNumber === null || log.transactionHash === null || log.logIndex === null)
    return null;
  const words = transferWords(log);
  if (!words) return null;
  return {
    ...words,
    txHash: log.transactionHash,
    logIndex: Number(log.logIndex),
    block: { number: BigInt(log.blockNumber), hash: log.blockHash },
  };
}

/**
 * The token, parties and value of a log if it is an ERC-20 Transfer (lowercase addresses; the
 * rules of decodeTransferLog), else null. The scan and the deposit finder read logs alike: a
 * log one of them takes for a deposit, the other does too.
 */
function transferWords(log: {
  address: string;
  topics: readonly (string | null)[];
  data: string;
}): Pick<TransferEvent, 'token' | 'from' | 'to' | 'amount'> | null {
  const { topics, data } = log;
  if (topics.length < 3 || topics[0] !== TRANSFER_TOPIC) return null;
  if (!WORD.test(topics[1] ?? '') || !WORD.test(topics[2] ?? '') || !DATA.test(data)) return null;
  return {
    token: log.address.toLowerCase(),
    from: `0x${topics[1]!.slice(26).toLowerCase()}`,
    to: `0x${topics[2]!.slice(26).toLowerCase()}`,
    amount: BigInt(data.slice(0, 66)),
  };
}

/**
 * The EIP-55 form of a lowercase 0x address (what viem's getAddress returns), without
 * getAddress's validation and shared caches: the address comes from a validated log word,
 * and a backfill checksums thousands per range (getAddress cost ~10% of its main thread).
 * Compared with viem in src/chains/evm/scan.test.ts.
 */
const ascii = new TextEncoder();

/**
 * Keccak-256 of ASCII text: OpenSSL's (node:crypto, about 8x faster than @noble's in a
 * backfill, where it was ~9% of the indexer's main thread) where the runtime's OpenSSL has
 * it (3.2 and later), else @noble's. The same function either way (compared in scan.test.ts).
 */
const keccakOfAscii: (text: string) => Uint8Array = (() => {
  try {
    if (hash('keccak-256', '', 'hex') === 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470')
      return (text: string) => hash('keccak-256', text, 'buffer');
  } catch {
    // no keccak-256 in this OpenSSL
  }
  return (text: string) => keccak_256(ascii.encode(text));
})();

export function checksumLower(lower: string): string {
  const hex = lower.slice(2);
  const digest = keccakOfAscii(hex);
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const c = hex[i]!;
    // Letter i is upper case when nibble i of the hash of the lowercase hex is 8 or more.
    const nibble = i % 2 === 0 ? digest[i >> 1]! >> 4 : digest[i >> 1]! & 0x0f;
    out += nibble >= 8 && c > '9' ? c.toUpperCase() : c;
  }
  return out;
}

/** checksumLower with a cache for one scan (its tokens and senders repeat). */
function checksummer(): (lower: string) => string {
  const seen = new Map<string, string>();
  return (lower) => {
    let out = seen.get(lower);
    if (out === undefined) seen.set(lower, (out = checksumLower(lower)));
    return out;
  };
}

/** The chain moved under us while we read it; reading again is the remedy. */
export class ChainMovedError extends Error {
  constructor(detail: string) {
    super(`chain changed while scanning: ${detail}`);
    this.name = 'ChainMovedError';
  }
}

export async function getBlockRef(client: PublicClient, number: bigint): Promise<BlockRef | null> {
  const block = await client.getBlock({ blockNumber: number }).catch((err: unknown) => {
    if ((err as { name?: string }).name === 'BlockNotFoundError') return null;
    throw err;
  });
  if (!block || block.hash === null) return null;
  return { number: block.number, hash: block.hash, parentHash: block.parentHash, timestamp: Number(block.timestamp) };
}

export async function scanRange(
  client: PublicClient,
  from: bigint,
  to: bigint,
  tokens: string[],
  isWatched: (address: string) => boolean,
): Promise<ScanResult> {
  const numbers: bigint[] = [];
  for (let n = from; n <= to; n++) numbers.push(n);
  const [logs, fullBlocks] = await Promise.all([
    tokens.length
      ? client.request({
          method: 'eth_getLogs',
          params: [{ address: tokens.map((t) => getAddress(t)), topics: [TRANSFER_TOPIC], fromBlock: toHex(from), toBlock: toHex(to) }],
        })
      : Promise.resolve([]),
    Promise.all(numbers.map((n) => client.getBlock({ blockNumber: n, includeTransactions: true }))),
  ]);

  const blocks: BlockRef[] = [];
  const hashAt = new Map<bigint, string>();
  for (const b of fullBlocks) {
    if (b.hash === null) throw new ChainMovedError(`block ${b.number} has no hash yet`);
    const prev = blocks.at(-1);
    if (prev && b.parentHash !== prev.hash) throw new ChainMovedError(`block ${b.number} does not follow ${prev.number}`);
    blocks.push({ number: b.number, hash: b.hash, parentHash: b.parentHash, timestamp: Number(b.timestamp) });
    hashAt.set(b.number, b.hash);
  }

  const transfers: TransferEvent[] = [];
  const checksum = checksummer();
  for (const log of logs) {
    const t = decodeTransferLog(log);
    if (!t || !isWatched(t.to)) continue;
    // Logs and blocks come from separate calls: they must describe the same chain.
    if (hashAt.get(t.block.number) !== t.block.hash) throw new ChainMovedError(`log of block ${t.block.number} from another branch`);
    // Checksummed like viem's decoder did, only for the few that are ours (a keccak each).
    transfers.push({ ...t, token: checksum(t.token!), from: checksum(t.from), to: checksum(t.to) });
  }

  // Native transfers: only top-level value transfers that did not revert.
  const candidates = fullBlocks.flatMap((b) =>
    b.transactions.filter((t) => t.to !== null && t.value > 0n && isWatched(t.to)).map((t) => ({ t, block: b })),
  );
  const receipts = await Promise.all(candidates.map(({ t }) => client.getTransactionReceipt({ hash: t.hash })));
  candidates.forEach(({ t, block }, i) => {
    // Whether it succeeded is the receipt's word on the block read, not on another branch.
    if (receipts[i]!.blockHash !== block.hash) throw new ChainMovedError(`receipt of ${t.hash} from another branch`);
    if (receipts[i]!.status !== 'success') return;
    transfers.push({
      token: null,
      from: getAddress(t.from),
      to: getAddress(t.to!),
      amount: t.value,
      txHash: t.hash,
      logIndex: -1,
      block: { number: block.number, hash: block.hash! },
    });
  });
  transfers.sort((a, b) => (a.block.number === b.block.number ? a.logIndex - b.logIndex : a.block.number < b.block.number ? -1 : 1));
  return { blocks, transfers };
}

/** The deposit finder: transfers to watched addresses made by one mined transaction. */
export async function transfersOfTransaction(
  client: PublicClient,
  hash: string,
  tokens: string[],
  isWatched: (address: string) => boolean,
): Promise<TransferEvent[]> {
  // The API takes a hash with or without 0x (one pattern for every family); anything else
  // (a Solana signature) names no transaction here, rather than a node error.
  if (!/^(0x)?[0-9a-fA-F]{64}$/.test(hash)) return [];
  const prefixed = (hash.startsWith('0x') ? hash : `0x${hash}`) as Hash;
  const receipt = await client.getTransactionReceipt({ hash: prefixed }).catch((err: unknown) => {
    if ((err as { name?: string }).name === 'TransactionReceiptNotFoundError') return null;
    throw err;
  });
  if (!receipt || receipt.status !== 'success') return [];
  const watchedTokens = new Set(tokens.map((t) => t.toLowerCase()));
  const transfers: TransferEvent[] = [];
  const checksum = checksummer();
  for (const log of receipt.logs) {
    if (!watchedTokens.has(log.address.toLowerCase())) continue;
    // As the scan reads it (decodeTransferLog): same topic0 but no ERC-20 Transfer (e.g. ERC-721) is no deposit.
    const words = transferWords(log);
    if (!words || !isWatched(words.to)) continue;
    transfers.push({
      token: checksum(words.token!),
      from: checksum(words.from),
      to: checksum(words.to),
      amount: words.amount,
      txHash: receipt.transactionHash,
      logIndex: log.logIndex,
      block: { number: receipt.blockNumber, hash: receipt.blockHash },
    });
  }
  const tx = await client.getTransaction({ hash: prefixed });
  if (tx.to && tx.value > 0n && isWatched(tx.to)) {
    transfers.push({
      token: null,
      from: getAddress(tx.from),
      to: getAddress(tx.to),
      amount: tx.value,
      txHash: receipt.transactionHash,
      logIndex: -1,
      block: { number: receipt.blockNumber, hash: receipt.blockHash },
    });
  }
  return transfers;
}
