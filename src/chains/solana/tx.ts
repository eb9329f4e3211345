/**
 * Building and signing Solana transactions for the family's sender: SOL and SPL transfers
 * with the master as fee payer (the owner of the moved funds, a child, only signs as owner:
 * a child never needs SOL), the recipient's associated token account created on the way when
 * missing (the fee payer pays its rent), the sender's emptied token account closed to give
 * its rent back to the fee payer (a sweep, where the operator allows), and a compute budget.
 *
 * The message is compiled by @solana/kit; the signatures are made here with the keys the
 * signer lends (ed25519 over the message bytes, @noble/curves) so a private key never
 * becomes a WebCrypto key or leaves the signer's callback. A transaction's id is its fee
 * payer's signature.
 */
import type { Address, Instruction } from '@solana/kit';
import { base58 } from '@scure/base';
import type { MintInfo } from './balances.js';
import { associatedTokenAccount } from './balances.js';

/** One transfer, as the family's sender builds it. */
export interface SolanaTransferPlan {
  feePayer: string;
  /** The owner of the moved SOL or tokens (signs as owner; may be the fee payer). */
  owner: string;
  recipient: string;
  amount: bigint;
  /** The mint moved, with its program and decimals; null for SOL. */
  mint: (MintInfo & { address: string }) | null;
  /** Create the recipient's associated token account (idempotent: harmless if it exists by then). */
  createRecipientAccount: boolean;
  /**
   * Several SPL transfers of the mint in one transaction (transfers.ts; then `recipient`,
   * `amount` and `createRecipientAccount` are the first one's), compiled here like one.
   */
  transfers?: { recipient: string; amount: bigint; createRecipientAccount: boolean }[];
  /** Close the owner's token account after the transfer, its rent to the fee payer (it must then hold nothing). */
  closeSourceAccount: boolean;
  /** Compute-unit limit and price (micro-lamports per unit); 0n price: no priority fee instruction. */
  computeUnits: number;
  microLamportsPerUnit: bigint;
  lifetime: { blockhash: string; lastValidBlockHeight: bigint };
}

/** A compiled message and who must sign it, in the order of its signature slots. */
export interface CompiledTransfer {
  messageBytes: Uint8Array;
  signers: string[];
}

export async function compileTransfer(plan: SolanaTransferPlan): Promise<CompiledTransfer> {
  const transfers = plan.transfers ?? [
    { recipient: plan.recipient, amount: plan.amount, createRecipientAccount: plan.createRecipientAccount },
  ];
  if (transfers.length > 1 && (plan.mint === null || plan.closeSourceAccount))
    throw new Error('only SPL transfers are combined, without closing the source');
  const kit = await import('@solana/kit');
  const { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } = await import('@solana-program/compute-budget');
  const { getTransferSolInstruction } = await import('@solana-program/system');
  const token = await import('@solana-program/token');
  // Signers that sign nothing: they only mark the accounts as signers; the signatures come from signCompiled.
  const owner = kit.createNoopSigner(plan.owner as Address);
  const feePayer = plan.feePayer === plan.owner ? owner : kit.createNoopSigner(plan.feePayer as Address);

  const instructions: Instruction[] = [getSetComputeUnitLimitInstruction({ units: plan.computeUnits })];
  if (plan.microLamportsPerUnit > 0n) instructions.push(getSetComputeUnitPriceInstruction({ microLamports: plan.microLamportsPerUnit }));
  if (plan.mint === null) {
    instructions.push(getTransferSolInstruction({ source: owner, destination: plan.recipient as Address, amount: plan.amount }));
  } else {
    const m = plan.mint;
    const programAddress = m.program as Address;
    const source = (await associatedTokenAccount(plan.owner, m.address, m.program)) as Address;
    // One transfer, or several of the mint in one transaction (batch.ts, transfers.ts).
    for (const t of transfers) {
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
    if (plan.closeSourceAccount)
      instructions.push(
        token.getCloseAccountInstruction({ account: source, destination: plan.feePayer as Address, owner }, { programAddress }),
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

/**
 * The wire transaction (base64, as sendTransaction takes it) and its id (the fee payer's
 * signature, base58). `sign` signs the message bytes as the named signer (ed25519, 64 bytes).
 * Synchronous (Sender.sign is): the wire format is written here, not by kit.
 */
export function signCompiled(
  compiled: CompiledTransfer,
  sign: (signer: string, message: Uint8Array) => Uint8Array,
): { raw: string; hash: string } {
  const signatures = compiled.signers.map((signer) => {
    const signature = sign(signer, compiled.messageBytes);
    if (signature.length !== 64) throw new Error('an ed25519 signature is 64 bytes');
    return signature;
  });
  return { raw: Buffer.from(wireTransaction(compiled.messageBytes, signatures)).toString('base64'), hash: base58.encode(signatures[0]!) };
}

/** A compact-u16 (Solana's "shortvec") at `at`: its value and the offset after it. */
function shortvec(bytes: Uint8Array, at: number): [number, number] {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    const b = bytes[at + i];
    if (b === undefined) throw new Error('truncated message');
    value |= (b & 0x7f) << (7 * i);
    if ((b & 0x80) === 0) return [value, at + i + 1];
  }
  throw new Error('bad compact-u16');
}

/** The signers of a compiled message (legacy or v0), in signature order: the first is the fee payer. */
export function signersOf(messageBytes: Uint8Array): string[] {
  // A v0 message starts with 0x80 (the version prefix); a legacy one with its header.
  let at = (messageBytes[0]! & 0x80) !== 0 ? 1 : 0;
  const required = messageBytes[at]!;
  at += 3; // numRequiredSignatures, numReadonlySigned, numReadonlyUnsigned
  const [count, keysAt] = shortvec(messageBytes, at);
  if (required > count) throw new Error('a message with more signers than accounts');
  return Array.from({ length: required }, (_, i) => base58.encode(messageBytes.subarray(keysAt + 32 * i, keysAt + 32 * (i + 1))));
}

/** Every account key a compiled message names statically. */
export function accountKeysOf(messageBytes: Uint8Array): string[] {
  const at = ((messageBytes[0]! & 0x80) !== 0 ? 1 : 0) + 3;
  const [count, keysAt] = shortvec(messageBytes, at);
  return Array.from({ length: count }, (_, i) => base58.encode(messageBytes.subarray(keysAt + 32 * i, keysAt + 32 * (i + 1))));
}

/** The wire transaction: shortvec(number of signatures) || signatures || message. */
export function wireTransaction(messageBytes: Uint8Array, signatures: Uint8Array[]): Uint8Array {
  if (signatures.length > 127) throw new Error('too many signatures');
  const out = new Uint8Array(1 + 64 * signatures.length + messageBytes.length);
  out[0] = signatures.length;
  signatures.forEach((s, i) => out.set(s, 1 + 64 * i));
  out.set(messageBytes, 1 + 64 * signatures.length);
  return out;
}
