/**
 * Several SPL transfers of one owner in one Solana transaction: the building block of batch
 * withdrawals in one transaction (docs/solana.md, "Batch withdrawals in one transaction":
 * transfers.ts counts and combines with it, tx.ts compiles a multi-transfer plan with it). Each transfer creates its
 * recipient's associated token account when asked (the fee payer pays the rent) and moves
 * the amount with transferChecked; one compute budget for all.
 *
 * A transaction must fit Solana's packet (1,232 bytes: the signatures and the message);
 * `transfersThatFit` says how many of a list's leading transfers do, by compiling them.
 * The message is compiled by @solana/kit and signed as tx.ts signs one transfer
 * (signCompiled: the keys the signer lends).
 */
import type { Address, Instruction } from '@solana/kit';
import type { MintInfo } from './balances.js';
import { associatedTokenAccount } from './balances.js';
import type { CompiledTransfer } from './tx.js';

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
  if (plan.transfers.length === 0) throw new Error('a batch of no transfers');
  const kit = await import('@solana/kit');
  const { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } = await import('@solana-program/compute-budget');
  const token = await import('@solana-program/token');
  // Signers that sign nothing: they mark the accounts as signers; signCompiled signs.
  const owner = kit.createNoopSigner(plan.owner as Address);
  const feePayer = plan.feePayer === plan.owner ? owner : kit.createNoopSigner(plan.feePayer as Address);
  const m = plan.mint;
  const programAddress = m.program as Address;
  const source = (await associatedTokenAccount(plan.owner, m.address, m.program)) as Address;

  const instructions: Instruction[] = [getSetComputeUnitLimitInstruction({ units: plan.computeUnits })];
  if (plan.microLamportsPerUnit > 0n) instructions.push(getSetComputeUnitPriceInstruction({ microLamports: plan.microLamportsPerUnit }));
  for (const t of plan.transfers) {
    const destination = (await associatedTokenAccount(t.recipient, m.address, m.program)) as Address;
    if (t.createRecipientAccount)
      instructions.push(
        token.getCreateAssociatedTokenIdempotentInstruction({
          payer: feePayer,
          ata: destination,
          owner: t.recipient as Address,
          mint: m.address as Address,
          tokenProgram: programAddress,
        }),
      );
    instructions.push(
      token.getTransferCheckedInstruction(
        { source, mint: m.address as Address, destination, authority: owner, amount: t.amount, decimals: m.decimals },
        { programAddress },
      ),
    );
  }
  const message = kit.pipe(
    kit.createTransactionMessage({ version: 0 }),
    (msg) => kit.setTransactionMessageFeePayerSigner(feePayer, msg),
    (msg) =>
      kit.setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: plan.lifetime.blockhash as never, lastValidBlockHeight: plan.lifetime.lastValidBlockHeight },
        msg,
      ),
    (msg) => kit.appendTransactionMessageInstructions(instructions, msg),
  );
  const compiled = kit.compileTransaction(message);
  return { messageBytes: new Uint8Array(compiled.messageBytes), signers: Object.keys(compiled.signatures) };
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
