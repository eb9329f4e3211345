// The devnet faucet and test tokens. Keys are fixed, derived from public labels, so every
// devnet has the same faucet and the same USDC/USDT mint addresses (like anvil's default
// accounts): they guard nothing but devnet play money. Everything they do goes through
// real signed transactions, so it shows up in blocks like any other transfer.
import { createHash } from 'node:crypto';
import {
  appendTransactionMessageInstructions,
  createKeyPairSignerFromPrivateKeyBytes,
  createTransactionMessage,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import { getSetComputeUnitLimitInstruction } from '@solana-program/compute-budget';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getFreezeAccountInstruction,
  getInitializeMint2Instruction,
  getThawAccountInstruction,
  getMintSize,
  getMintToInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { MAX_PROCESSING_AGE, type AccountState, type Ledger } from './ledger.js';
import { parseMint } from './token.js';
import { addressBytes, decodeTransactionBytes, toBase58, type DecodedTransaction } from './wire.js';

const seedOf = (label: string) => new Uint8Array(createHash('sha256').update(`solana-standin/${label}`).digest());

export interface DevKey {
  signer: KeyPairSigner;
  address: string;
  /** The 64-byte Solana keypair (seed then public key), base58, as `solana-keygen` writes it. */
  secretKey: string;
}

export async function devKey(label: string): Promise<DevKey> {
  const seed = seedOf(label);
  const signer = await createKeyPairSignerFromPrivateKeyBytes(seed);
  const secret = new Uint8Array(64);
  secret.set(seed, 0);
  secret.set(addressBytes(signer.address), 32);
  return { signer, address: signer.address, secretKey: toBase58(secret) };
}

export const faucetKey = () => devKey('faucet');
export const mintKey = (symbol: string) => devKey(`mint/${symbol}`);

/** The faucet's genesis balance: 500 million SOL. */
export const FAUCET_LAMPORTS = 500_000_000n * 1_000_000_000n;

export function faucetGenesisAccount(): AccountState {
  return {
    lamports: FAUCET_LAMPORTS,
    data: new Uint8Array(0),
    owner: '11111111111111111111111111111111',
    executable: false,
    rentEpoch: 18446744073709551615n,
  };
}

export type Submit = (tx: DecodedTransaction) => string;

export class FaucetOps {
  private nonce = 0;
  constructor(
    private readonly ledger: Ledger,
    private readonly faucet: DevKey,
    private readonly submit: Submit,
  ) {}

  get address(): string {
    return this.faucet.address;
  }

  /** Signs and submits instructions paid by the faucet, against the newest blockhash. */
  private async send(instructions: Instruction[]): Promise<string> {
    const tip = this.ledger.tip;
    // Identical airdrops in one slot would be one transaction twice (AlreadyProcessed on a real
    // node too); a distinct compute-unit limit keeps each faucet transaction unique.
    const unique = getSetComputeUnitLimitInstruction({ units: 1_400_000 - (this.nonce++ % 100_000) });
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(this.faucet.signer, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: tip.blockhash as Blockhash, lastValidBlockHeight: tip.blockHeight + MAX_PROCESSING_AGE },
          m,
        ),
      (m) => appendTransactionMessageInstructions([unique, ...instructions], m),
    );
    const signed = await signTransactionMessageWithSigners(message);
    return this.submit(decodeTransactionBytes(new Uint8Array(getTransactionEncoder().encode(signed))));
  }

  airdrop(to: string, lamports: bigint): Promise<string> {
    return this.send([getTransferSolInstruction({ source: this.faucet.signer, destination: to as Address, amount: lamports })]);
  }

  /** Creates the mint (faucet as mint authority) unless it exists; returns its address. */
  async createMint(symbol: string, decimals: number): Promise<{ mint: string; signature: string | null }> {
    const key = await mintKey(symbol);
    const existing = this.ledger.live(key.address);
    if (existing) {
      const m = parseMint(existing.owner, existing.data);
      if (!m || m.decimals !== decimals) throw new Error(`mint ${key.address} for ${symbol} exists with other decimals`);
      return { mint: key.address, signature: null };
    }
    const space = BigInt(getMintSize());
    const signature = await this.send([
      getCreateAccountInstruction({
        payer: this.faucet.signer,
        newAccount: key.signer,
        lamports: this.ledger.svm.minimumBalanceForRentExemption(space),
        space,
        programAddress: TOKEN_PROGRAM_ADDRESS,
      }),
      getInitializeMint2Instruction({
        mint: key.address as Address,
        decimals,
        mintAuthority: this.faucet.signer.address,
        // As Circle's and Tether's mints: an issuer freezes the token accounts it blocks
        // (AML screening reads that as the issuer's blacklist). Mints created before this
        // keep none, and cannot freeze.
        freezeAuthority: this.faucet.signer.address,
      }),
    ]);
    return { mint: key.address, signature };
  }

  /**
   * Freezes (or thaws) the owner's associated token account of `mint`, creating the account
   * first if needed, as the mint's freeze authority: what an issuer does to an address it
   * blocks. Fails on a mint without a freeze authority (created before the stand-in gave one).
   */
  async setFrozen(mint: string, owner: string, frozen: boolean): Promise<{ signature: string; tokenAccount: string }> {
    const [ata] = await findAssociatedTokenPda({ mint: mint as Address, owner: owner as Address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    const change = frozen
      ? getFreezeAccountInstruction({ account: ata, mint: mint as Address, owner: this.faucet.signer })
      : getThawAccountInstruction({ account: ata, mint: mint as Address, owner: this.faucet.signer });
    const signature = await this.send([
      ...(frozen
        ? [
            getCreateAssociatedTokenIdempotentInstruction({
              payer: this.faucet.signer,
              ata,
              owner: owner as Address,
              mint: mint as Address,
            }),
          ]
        : []),
      change,
    ]);
    return { signature, tokenAccount: ata };
  }

  /** Mints to the owner's associated token account, creating it if needed. */
  async mintTo(mint: string, owner: string, amount: bigint): Promise<{ signature: string; tokenAccount: string }> {
    const [ata] = await findAssociatedTokenPda({ mint: mint as Address, owner: owner as Address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    const signature = await this.send([
      getCreateAssociatedTokenIdempotentInstruction({ payer: this.faucet.signer, ata, owner: owner as Address, mint: mint as Address }),
      getMintToInstruction({ mint: mint as Address, token: ata, mintAuthority: this.faucet.signer, amount }),
    ]);
    return { signature, tokenAccount: ata };
  }
}
