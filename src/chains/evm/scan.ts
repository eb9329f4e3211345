// Placeholder; implemented with the indexer.
import type { PublicClient } from 'viem';
import type { BlockRef, ScanResult, TransferEvent } from '../types.js';

export async function getBlockRef(_c: PublicClient, _n: bigint): Promise<BlockRef | null> {
  throw new Error('not implemented yet');
}
export async function scanRange(_c: PublicClient, _f: bigint, _t: bigint, _tokens: string[], _w: (a: string) => boolean): Promise<ScanResult> {
  throw new Error('not implemented yet');
}
export async function transfersOfTransaction(_c: PublicClient, _h: string, _tokens: string[], _w: (a: string) => boolean): Promise<TransferEvent[]> {
  throw new Error('not implemented yet');
}
