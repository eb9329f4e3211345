// Shared by the stand-in's tests: a client that builds, signs and sends transactions with
// @solana/kit exactly as a production adapter does, against the stand-in's URL.
import {
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type Signature,
  type TransactionSigner,
} from '@solana/kit';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { startSolanaStandIn, type SolanaStandIn, type SolanaStandInOptions } from './index.js';

export type Rpc = ReturnType<typeof createSolanaRpc>;

export interface World {
  standIn: SolanaStandIn;
  rpc: Rpc;
  usdc: Address;
}

/** A stand-in with manual slots (slotMs 0) and a 6-decimal USDC. */
export async function startWorld(opts: SolanaStandInOptions = {}): Promise<World> {
  const standIn = await startSolanaStandIn({ slotMs: 0, port: 0, tokens: [{ symbol: 'USDC', decimals: 6 }], ...opts });
  return { standIn, rpc: createSolanaRpc(standIn.url), usdc: standIn.tokens[0]!.mint as Address };
}

export async function fundedSigner(world: World, lamports = 10_000_000_000n): Promise<KeyPairSigner> {
  const signer = await generateKeyPairSigner();
  await world.standIn.control.fund(signer.address, lamports);
  return signer;
}

export async function ata(owner: Address, mint: Address): Promise<Address> {
  const [address] = await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  return address;
}

export interface Built {
  wire: ReturnType<typeof getBase64EncodedWireTransaction>;
  signature: Signature;
  blockhash: string;
  lastValidBlockHeight: bigint;
}

/** Builds and signs a v0 transaction on the newest blockhash at `commitment`. */
export async function build(
  rpc: Rpc,
  feePayer: TransactionSigner,
  instructions: Instruction[],
  commitment: 'processed' | 'confirmed' | 'finalized' = 'confirmed',
): Promise<Built> {
  const { value: lifetime } = await rpc.getLatestBlockhash({ commitment }).send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(feePayer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const signed = await signTransactionMessageWithSigners(message);
  return {
    wire: getBase64EncodedWireTransaction(signed),
    signature: getSignatureFromTransaction(signed),
    blockhash: lifetime.blockhash,
    lastValidBlockHeight: lifetime.lastValidBlockHeight,
  };
}

/** Builds, signs and sends (with preflight); returns the signature. */
export async function send(rpc: Rpc, feePayer: TransactionSigner, instructions: Instruction[]): Promise<Signature> {
  const built = await build(rpc, feePayer, instructions);
  return rpc.sendTransaction(built.wire, { encoding: 'base64', preflightCommitment: 'confirmed' }).send();
}

/** Raw JSON-RPC, for checking the wire shapes without a client's transformations. */
export async function rawCall(url: string, method: string, params: unknown[] = []): Promise<{ result?: any; error?: any }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as { result?: unknown; error?: unknown };
}
