/**
 * Several SPL transfers of one owner in one Solana transaction: the building block of batch
 * withdrawals in one transaction (docs/solana.md, "Batch withdrawals in one transaction":
 * transfers.ts counts and combines with it; tx.ts compiles the message). Each transfer creates its
 * recipient's associated token account when asked (the fee payer pays the rent) and moves
 * the amount with transferChecked; one compute budget for all.
 *
 * A transaction must fit Solana's packet (1,232 bytes: the signatures and the message);
 * `transfersThatFit` says how many of a list's leading transfers do, by compiling them.
 * The message is compiled by @solana/kit and signed as tx.ts signs one transfer
 * (signCompiled: the keys the signer lends).
 */
import type { MintInfo } from './balances.js';
import { compileTransfer, type CompiledTransfer } from './tx.js';

/** The most bytes a transaction may take on the wire (IPv6 MTU minus headers). */
export const PACKET_BYTES = 1_232;

export interface SolanaBatchPlan {
  feePayer: string;
  /** The owner of the moved tokens (signs as owner; may be the fee payer). */
  owner: string;
  mint: MintInfo & { address: string };
  transfers: { recipient: string; amount: bigint; createRecipientAccount: boolean }[];
  computeUnits: number;
  microLamportsPerUnit: bigint;
  lifetime: { blockhash: string; lastValidBlockHeight: bigint };
}

export async function compileTransfers(plan: SolanaBatchPlan): Promise<CompiledTransfer> {
  const [first] = plan.transfers;
  if (!first) throw new Error('a batch of no transfers');
  // tx.ts compiles a plan of several transfers of one mint as it compiles one.
  return compileTransfer({ ...plan, ...first, transfers: plan.transfers, closeSourceAccount: false });
}

/** Bytes of the signed transaction on the wire: shortvec count, 64 per signature, the message. */
export function wireSize(compiled: CompiledTransfer): number {
  return 1 + 64 * compiled.signers.length + compiled.messageBytes.length;
}

/** How many of the plan's leading transfers fit in one packet (at least 0, at most all). */
export async function transfersThatFit(plan: SolanaBatchPlan): Promise<number> {
  // Each transfer adds bytes, so the first count that overflows ends the search.
  let fit = 0;
  for (let n = 1; n <= plan.transfers.length; n++) {
    if (wireSize(await compileTransfers({ ...plan, transfers: plan.transfers.slice(0, n) })) > PACKET_BYTES) break;
    fit = n;
  }
  return fit;
}
