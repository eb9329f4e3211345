// Placeholder until the outbound pipeline lands; see chains/types.ts for the contract.
import type { PublicClient } from 'viem';
import type { FeeEstimate, Receipt } from '../types.js';

const todo = (): never => {
  throw new Error('not implemented yet');
};
export async function getNonce(_c: PublicClient, _a: string, _t: 'pending' | 'latest'): Promise<number> {
  return todo();
}
export async function estimateFees(_c: PublicClient): Promise<FeeEstimate> {
  return todo();
}
export async function estimateGas(_c: PublicClient, _tx: { from: string; to: string; value: bigint; data?: string }): Promise<bigint> {
  return todo();
}
export async function broadcastRaw(_c: PublicClient, _raw: string): Promise<string> {
  return todo();
}
export async function getReceipt(_c: PublicClient, _hash: string): Promise<Receipt | null> {
  return todo();
}
export function encodeTokenTransfer(_to: string, _amount: bigint): string {
  return todo();
}
