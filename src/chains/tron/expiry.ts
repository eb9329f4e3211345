/**
 * Whether a Tron transaction can no longer land and has not (ExpirySender.hasExpired), proved
 * from solidified blocks rather than from a receipt lookup.
 *
 * Why blocks: a transaction can only be included after its reference block (TaPoS: the block
 * whose number ends in `ref_block_bytes` and whose id carries `ref_block_hash`) and in a block
 * built on a block older than its expiration (the first block at or past the expiration can
 * still hold it). Once the solidified head's time reaches the expiration, those blocks are
 * final; if none of them holds the transaction, nothing ever will. Asking
 * `gettransactioninfobyid` instead is not a proof behind a load balancer: the node that answers
 * it may lag the one whose head passed the expiration, and its "not found" would rebuild a
 * payment that landed (paid twice). Here every block of the window must come back, or nothing
 * is concluded (a retryable UpstreamError).
 */
import { UpstreamError } from '../../lib/errors.js';
import type { NetworkData } from '../types.js';
import type { TronNode } from './node.js';
import type { TronBlockJson } from './scan.js';
import { hexToBytes } from '@noble/hashes/utils';
import { readHeader } from './tx.js';

/** Blocks per getblockbylimitnext call (java-tron's BLOCK_LIMIT_NUM). */
const PAGE = 100;
/** ref_block_bytes are the low 16 bits of the reference block's number. */
const REF_SPAN = 65_536;
/** How much older than its expiration a reference block can be, generously (see referenceBlock). */
const OLDEST_REFERENCE_MS = 2n * (24n * 3_600_000n + BigInt(REF_SPAN) * 3_000n);

export async function tronHasExpired(node: TronNode, network: NetworkData, hash: string): Promise<boolean> {
  const header = network.rawDataHex ? readHeader(hexToBytes(network.rawDataHex)) : null;
  const expiration = network.expiration !== undefined ? BigInt(network.expiration) : header?.expiration;
  const refBytes = network.refBlockBytes ?? header?.refBlockBytes;
  const refHash = network.refBlockHash ?? header?.refBlockHash;
  if (expiration === undefined || refBytes === undefined || refHash === undefined) {
    throw new Error('network data without an expiration and reference block');
  }
  const solid = await node.post<TronBlockJson>('walletsolidity/getnowblock');
  const raw = solid.block_header?.raw_data;
  if (raw === undefined) throw new Error('the Tron node answered getnowblock without a block header');
  // proto3 leaves a zero out: the genesis block (java-tron's mainnet one has timestamp 0).
  if (BigInt(raw.timestamp ?? 0) < expiration) return false;
  const head = Number(raw.number ?? 0);

  const ref = await referenceBlock(node, head, expiration, refBytes.toLowerCase(), refHash.toLowerCase());
  // No solidified block is its reference: it can be valid on no chain that holds these blocks.
  if (ref === null) return true;
  const id = hash.replace(/^0x/, '').toLowerCase();
  // Each block must be the child of the one before it (the first, of the reference block), and
  // the last one read must be the solidified block of its number: java-tron answers
  // walletsolidity/getblockbylimitnext from every snapshot of its block store whatever the
  // cursor (Chainbase.getValuesNext), so a backend whose solidified head is behind this one
  // returns its unsolidified blocks for those numbers, possibly of a fork without the payment.
  let parent = ref.id;
  // Pages as long as the window is expected to be (a block every 3 s, two more), at most
  // PAGE: mainnet blocks carry hundreds of transactions each, and the head may be far past it.
  const size = Math.min(PAGE, Math.max(2, Number((expiration - ref.timestamp) / 3_000n) + 2));
  for (let from = ref.number + 1; from <= head; from += size) {
    const end = Math.min(from + size, head + 1);
    const page = await node.post<{ block?: TronBlockJson[] }>('walletsolidity/getblockbylimitnext', { startNum: from, endNum: end });
    const blocks = page.block ?? [];
    if (blocks.length !== end - from) throw lagging(`blocks ${from} to ${end - 1}`, head);
    for (const [i, block] of blocks.entries()) {
      if (Number(block.block_header?.raw_data?.number ?? -1) !== from + i) throw lagging(`block ${from + i}`, head);
      if (typeof block.blockID !== 'string' || (block.block_header?.raw_data?.parentHash ?? '').toLowerCase() !== parent) {
        throw lagging(`block ${from + i} as a child of block ${from + i - 1}`, head);
      }
      parent = block.blockID.toLowerCase();
      if ((block.transactions ?? []).some((t) => t.txID === id)) return false;
      // A block is valid for the transaction while its parent's time is before the expiration
      // (java-tron's validateCommon reads the head it builds on), so the first block at or past
      // the expiration can still hold it; the one after it cannot.
      if (BigInt(block.block_header?.raw_data?.timestamp ?? 0) >= expiration) {
        // getblockbynum reads through the solidity cursor: this block, and so every block
        // linked before it, is on the solidified chain only if it answers the same id.
        const solid = await node.post<TronBlockJson>('walletsolidity/getblockbynum', { num: from + i });
        if (typeof solid.blockID !== 'string' || solid.blockID.toLowerCase() !== parent) throw lagging(`block ${from + i}`, head);
        return true;
      }
    }
  }
  // The solidified head's time reached the expiration, so the loop returned at it at the latest.
  throw lagging(`the blocks up to ${head}`, head);
}

/**
 * The number, id and time of the solidified block the transaction references: the newest at or below the
 * head whose number ends in `refBytes` and whose id carries `refHash`; null when none does.
 * Older candidates are not looked at: java-tron accepts a reference among the last 65,536
 * blocks (about 55 h) and an expiration at most 24 h ahead, so a reference block is never
 * much more than 79 h older than the expiration (the bound below doubles that for missed slots).
 */
async function referenceBlock(
  node: TronNode,
  head: number,
  expiration: bigint,
  refBytes: string,
  refHash: string,
): Promise<{ number: number; id: string; timestamp: bigint } | null> {
  const low = Number.parseInt(refBytes, 16);
  for (let n = head - ((((head - low) % REF_SPAN) + REF_SPAN) % REF_SPAN); n >= 0; n -= REF_SPAN) {
    const block = await node.post<TronBlockJson>('walletsolidity/getblockbynum', { num: n });
    if (typeof block.blockID !== 'string') throw lagging(`block ${n}`, head);
    // A block id is its number (8 bytes) then 24 bytes of its hash; ref_block_hash is bytes 8-15.
    const timestamp = BigInt(block.block_header?.raw_data?.timestamp ?? 0);
    if (block.blockID.slice(16, 32).toLowerCase() === refHash) return { number: n, id: block.blockID.toLowerCase(), timestamp };
    if (timestamp < expiration - OLDEST_REFERENCE_MS) return null;
  }
  return null;
}

function lagging(what: string, head: number): UpstreamError {
  return new UpstreamError(
    'CHAIN_UNAVAILABLE',
    `the Tron node did not return ${what} of its solidified chain (head ${head}): a node behind the one that answered the head; asked again later`,
  );
}
