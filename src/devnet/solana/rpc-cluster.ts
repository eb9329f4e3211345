// Cluster-level reads: slots and heights per commitment, blockhashes and their validity,
// epoch info, fees, identity of the chain, health.
import { getBase64Encoder } from '@solana/kit';
import { invalidParams } from './errors.js';
import { MAX_PROCESSING_AGE, SLOTS_PER_EPOCH, type Block } from './ledger.js';
import { API_VERSION, addressParam, commitmentOf, configAt, contextSlot, withContext, type Method } from './rpc-common.js';
import { decodeMessage, transactionFee } from './wire.js';

/** How many recent blocks the prioritization-fee cache covers, as on a real node. */
const PRIORITIZATION_FEE_BLOCKS = 150;
const MAX_PRIORITIZATION_ADDRESSES = 128;
// The feature-set identifier a client may compare; stable for the stand-in.
const FEATURE_SET = 3_294_202_862;

const getSlot: Method = (params, ctx) => {
  const cfg = configAt(params, 0);
  return contextSlot(ctx, cfg, commitmentOf(cfg));
};

const getBlockHeight: Method = (params, ctx) => {
  const cfg = configAt(params, 0);
  const commitment = commitmentOf(cfg);
  contextSlot(ctx, cfg, commitment);
  return ctx.ledger.blockAt(commitment).blockHeight;
};

const getLatestBlockhash: Method = (params, ctx) => {
  const cfg = configAt(params, 0);
  const commitment = commitmentOf(cfg);
  const slot = contextSlot(ctx, cfg, commitment);
  const b = ctx.ledger.blockAt(commitment);
  return withContext(slot, { blockhash: b.blockhash, lastValidBlockHeight: b.blockHeight + MAX_PROCESSING_AGE });
};

/** Valid for a bank at the commitment: known to it, and young enough for its next block. */
const isBlockhashValid: Method = (params, ctx) => {
  if (typeof params[0] !== 'string') throw invalidParams('Invalid params: invalid type: expected a blockhash string');
  const cfg = configAt(params, 1);
  const commitment = commitmentOf(cfg);
  const slot = contextSlot(ctx, cfg, commitment);
  const at = ctx.ledger.blockAt(commitment);
  const b = ctx.ledger.blockByHash(params[0]);
  return withContext(slot, !!b && b.slot <= at.slot && at.blockHeight + 1n <= b.blockHeight + MAX_PROCESSING_AGE);
};

const getEpochInfo: Method = (params, ctx) => {
  const cfg = configAt(params, 0);
  const commitment = commitmentOf(cfg);
  const slot = contextSlot(ctx, cfg, commitment);
  return {
    absoluteSlot: slot,
    blockHeight: ctx.ledger.blockAt(commitment).blockHeight,
    epoch: slot / SLOTS_PER_EPOCH,
    slotIndex: slot % SLOTS_PER_EPOCH,
    slotsInEpoch: SLOTS_PER_EPOCH,
    transactionCount: ctx.ledger.transactionCount,
  };
};

const getFeeForMessage: Method = (params, ctx) => {
  if (typeof params[0] !== 'string') throw invalidParams('Invalid params: invalid type: expected a base64 message');
  const cfg = configAt(params, 1);
  const commitment = commitmentOf(cfg);
  const slot = contextSlot(ctx, cfg, commitment);
  const message = decodeMessage(new Uint8Array(getBase64Encoder().encode(params[0])));
  const valid = ctx.ledger.blockhashHeight(message.recentBlockhash) !== undefined;
  return withContext(slot, valid ? transactionFee(message) : null);
};

/**
 * Per recent block: the lowest compute-unit price paid in it, raised to the lowest price paid
 * by the transactions that write-locked each given account (agave's cache rule).
 */
const getRecentPrioritizationFees: Method = (params, ctx) => {
  const list = params[0] ?? [];
  if (!Array.isArray(list)) throw invalidParams('Invalid params: invalid type: expected an array of public keys');
  if (list.length > MAX_PRIORITIZATION_ADDRESSES) throw invalidParams(`Too many inputs provided; max ${MAX_PRIORITIZATION_ADDRESSES}`);
  const accounts = list.map(addressParam);
  const blocks = ctx.ledger.blocks.slice(-PRIORITIZATION_FEE_BLOCKS);
  return blocks.map((b: Block) => {
    const min = (txs: Block['txs']) =>
      txs.reduce<bigint | undefined>((m, t) => (m === undefined || t.unitPrice < m ? t.unitPrice : m), undefined);
    let fee = min(b.txs) ?? 0n;
    for (const a of accounts) {
      const f = min(b.txs.filter((t) => t.writable.includes(a)));
      if (f !== undefined && f > fee) fee = f;
    }
    return { slot: b.slot, prioritizationFee: fee };
  });
};

const getGenesisHash: Method = (_p, ctx) => ctx.ledger.genesisHash;
const getVersion: Method = () => ({ 'solana-core': API_VERSION, 'feature-set': FEATURE_SET });
const getHealth: Method = () => 'ok';
const getFirstAvailableBlock: Method = (_p, ctx) => ctx.ledger.blocks[0]!.slot;
const getEpochSchedule: Method = () => ({
  firstNormalEpoch: 0n,
  firstNormalSlot: 0n,
  leaderScheduleSlotOffset: SLOTS_PER_EPOCH,
  slotsPerEpoch: SLOTS_PER_EPOCH,
  warmup: false,
});

export const clusterMethods: Record<string, Method> = {
  getSlot,
  getBlockHeight,
  getLatestBlockhash,
  isBlockhashValid,
  getEpochInfo,
  getEpochSchedule,
  getFeeForMessage,
  getRecentPrioritizationFees,
  getGenesisHash,
  getVersion,
  getHealth,
  getFirstAvailableBlock,
};
