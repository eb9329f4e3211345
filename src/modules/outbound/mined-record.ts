/** A mined transaction, and as its owner stores it (JSON) between its final depth and a later step. */
import type { BlockPointer } from '../../chains/types.js';

/** What `mined` answers: the transaction that landed, and its fee as the public fields show it (FeeReport.ofReceipt). */
export interface Mined {
  hash: string;
  block: BlockPointer;
  gasUsed: bigint;
  gasPrice: bigint;
}

/**
 * `Mined` as an owner keeps it until it settles later (JSON, decimal strings): its hash, its
 * block as one pointer, and its fee figures. An API swap's plan and an auto-settlement's swap
 * plan store this layout (migrations 034 and 045 brought older rows to it).
 */
export interface MinedRecord {
  readonly hash: string;
  readonly block: { readonly number: string; readonly hash: string };
  readonly gasUsed: string;
  readonly gasPrice: string;
}

export function minedRecord(m: Mined): MinedRecord {
  return {
    hash: m.hash,
    block: { number: m.block.number.toString(), hash: m.block.hash },
    gasUsed: m.gasUsed.toString(),
    gasPrice: m.gasPrice.toString(),
  };
}

export function minedOfRecord(r: MinedRecord): Mined {
  return {
    hash: r.hash,
    block: { number: BigInt(r.block.number), hash: r.block.hash },
    gasUsed: BigInt(r.gasUsed),
    gasPrice: BigInt(r.gasPrice),
  };
}
