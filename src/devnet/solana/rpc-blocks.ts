// History reads: getBlock, getBlocks, getBlocksWithLimit, getBlockTime, getTransaction and
// getSignatureStatuses. Blocks and transactions are served from `confirmed` on, as on a node.
import { invalidParams, RPC, RpcError } from './errors.js';
import type { Commitment } from './ledger.js';
import { commitmentOf, configAt, contextSlot, u64, withContext, type Method, type MethodContext } from './rpc-common.js';
import { maxVersionOf, renderTxWithMeta, txEncodingOf } from './render.js';
import { fromBase58 } from './wire.js';

const MAX_SLOT_RANGE = 500_000n;
const MAX_SIGNATURES = 256;
// Slots the status cache of a node covers; older signatures need searchTransactionHistory.
const STATUS_CACHE_SLOTS = 300n;

function historyCommitment(cfg: Record<string, unknown>): Commitment {
  const c = commitmentOf(cfg);
  if (c === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
  return c;
}

/**
 * The block at `slot` visible at a commitment, or the node's error for why not. As agave's
 * getBlock: only a finalized (rooted) slot without a block is -32007 "skipped"; above the
 * finalized slot a block is served only when it is an ancestor of the confirmed bank, so a
 * slot without one there (skipped, or its block dropped with a fork) is -32004, the answer
 * for a slot above the commitment's too, until it is finalized.
 */
function blockFor(ctx: MethodContext, slot: bigint, commitment: Commitment) {
  const at = ctx.ledger.blockAt(commitment);
  const notAvailable = () => new RpcError(RPC.BLOCK_NOT_AVAILABLE, `Block not available for slot ${slot}`);
  if (slot > at.slot) throw notAvailable();
  const block = ctx.ledger.block(slot);
  if (!block) {
    if (slot > ctx.ledger.finalizedSlot) throw notAvailable();
    throw new RpcError(RPC.SLOT_SKIPPED, `Slot ${slot} was skipped, or missing due to ledger jump to recent snapshot`);
  }
  return block;
}

const getBlock: Method = (params, ctx) => {
  const slot = u64(params[0], 'slot');
  // The second parameter may also be a bare encoding string (the deprecated form).
  const cfg = typeof params[1] === 'string' ? { encoding: params[1] } : configAt(params, 1);
  const commitment = historyCommitment(cfg);
  const encoding = txEncodingOf(cfg);
  const maxVersion = maxVersionOf(cfg);
  const details = cfg.transactionDetails ?? 'full';
  if (!['full', 'accounts', 'signatures', 'none'].includes(details as string)) {
    throw invalidParams(
      `Invalid params: unknown variant \`${String(details)}\`, expected one of \`full\`, \`signatures\`, \`none\`, \`accounts\``,
    );
  }
  const block = blockFor(ctx, slot, commitment);
  const out: Record<string, unknown> = {
    blockHeight: block.blockHeight,
    blockTime: block.blockTime,
    blockhash: block.blockhash,
    parentSlot: block.parentSlot,
    previousBlockhash: block.previousBlockhash,
  };
  if (details === 'full' || details === 'accounts') {
    out.transactions = block.txs.map((tx) => renderTxWithMeta(tx, encoding, maxVersion, details));
  } else if (details === 'signatures') {
    out.signatures = block.txs.map((tx) => tx.signature);
  }
  if (cfg.rewards !== false) out.rewards = [];
  return out;
};

function blocksInRange(ctx: MethodContext, start: bigint, end: bigint): bigint[] {
  return ctx.ledger.blocks.filter((b) => b.slot >= start && b.slot <= end).map((b) => b.slot);
}

const getBlocks: Method = (params, ctx) => {
  const start = u64(params[0], 'start slot');
  const hasEnd = typeof params[1] === 'number' || typeof params[1] === 'bigint';
  const cfg = configAt(params, hasEnd ? 2 : 1);
  const commitment = historyCommitment(cfg);
  const top = ctx.ledger.blockAt(commitment).slot;
  let end = hasEnd ? u64(params[1], 'end slot') : top;
  if (end > top) end = top;
  if (end >= start && end - start > MAX_SLOT_RANGE) throw invalidParams(`Slot range too large; max ${MAX_SLOT_RANGE}`);
  return blocksInRange(ctx, start, end);
};

const getBlocksWithLimit: Method = (params, ctx) => {
  const start = u64(params[0], 'start slot');
  const limit = u64(params[1], 'limit');
  if (limit > MAX_SLOT_RANGE) throw invalidParams(`Limit too large; max ${MAX_SLOT_RANGE}`);
  const commitment = historyCommitment(configAt(params, 2));
  const top = ctx.ledger.blockAt(commitment).slot;
  return blocksInRange(ctx, start, top).slice(0, Number(limit));
};

const getBlockTime: Method = (params, ctx) => blockFor(ctx, u64(params[0], 'slot'), 'confirmed').blockTime;

const getTransaction: Method = (params, ctx) => {
  if (typeof params[0] !== 'string') throw invalidParams('Invalid params: invalid type: expected a signature string');
  const cfg = typeof params[1] === 'string' ? { encoding: params[1] } : configAt(params, 1);
  const commitment = historyCommitment(cfg);
  const encoding = txEncodingOf(cfg);
  const maxVersion = maxVersionOf(cfg);
  signatureParam(params[0]);
  const tx = ctx.ledger.tx(params[0]);
  const block = tx ? ctx.ledger.block(tx.slot) : undefined;
  if (!tx || !block || !block.txs.includes(tx) || block.slot > ctx.ledger.blockAt(commitment).slot) return null;
  return { blockTime: block.blockTime, slot: block.slot, ...renderTxWithMeta(tx, encoding, maxVersion, 'full') };
};

function signatureParam(v: unknown): string {
  let bytes: Uint8Array | undefined;
  try {
    bytes = typeof v === 'string' ? fromBase58(v) : undefined;
  } catch {
    bytes = undefined;
  }
  if (!bytes || bytes.length !== 64) throw invalidParams('Invalid param: Invalid');
  return v as string;
}

const getSignatureStatuses: Method = (params, ctx) => {
  const list = params[0];
  if (!Array.isArray(list)) throw invalidParams('Invalid params: invalid type: expected an array of signatures');
  if (list.length > MAX_SIGNATURES) throw invalidParams(`Too many inputs provided; max ${MAX_SIGNATURES}`);
  const cfg = configAt(params, 1);
  const searchHistory = cfg.searchTransactionHistory === true;
  const ledger = ctx.ledger;
  const tip = ledger.tip;
  const value = list.map((v) => {
    const tx = ledger.tx(signatureParam(v));
    if (!tx) return null;
    const status = tx.meta.err === null ? { Ok: null } : { Err: tx.meta.err };
    const block = ledger.block(tx.slot);
    if (!block || !block.txs.includes(tx)) {
      return { confirmationStatus: 'processed', confirmations: 0, err: tx.meta.err, slot: tx.slot, status };
    }
    if (!searchHistory && tip.slot - block.slot > STATUS_CACHE_SLOTS) return null;
    const level = ledger.commitmentOf(block.slot);
    return {
      confirmationStatus: level,
      confirmations: level === 'finalized' ? null : Number(tip.blockHeight - block.blockHeight),
      err: tx.meta.err,
      slot: block.slot,
      status,
    };
  });
  return withContext(contextSlot(ctx, {}, 'processed'), value);
};

export const blockMethods: Record<string, Method> = {
  getBlock,
  getBlocks,
  getBlocksWithLimit,
  getBlockTime,
  getTransaction,
  getSignatureStatuses,
};
