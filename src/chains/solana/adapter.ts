/**
 * The Solana family's ChainAdapter (chains/types.ts) over a node's JSON-RPC (@solana/kit,
 * loaded on first use: rpc.ts). Addresses are base58 (codec.ts); a transaction's id is its
 * first signature (base58); block numbers are slots (scan.ts: a slot without a block reads
 * as the block before it). A deposit address is an owner: its SPL balances are those of its
 * associated token accounts (balances.ts). A token intent becomes an SPL transferChecked
 * (sender.ts, tx.ts); messages are signed as Solana wallets sign them (message.ts).
 * Solana offers no contracts, allowances or price feeds here, nor EIP-712 typed data: its
 * capabilities say so, and those routes answer 422 (chains/capabilities.ts).
 */
import { base58 } from '@scure/base';
import type { ChainConfig } from '../../config/index.js';
import { AppError, UpstreamError } from '../../lib/errors.js';
import { ChainRejectedError } from '../errors.js';
import type {
  BalanceQuery,
  Batching,
  BlockRef,
  ChainAdapter,
  FeeSponsorship,
  PersonalMessages,
  Receipt,
  ScanResult,
  ScreeningReads,
  TransferEvent,
} from '../types.js';
import { SolanaBalances } from './balances.js';
import { solanaCodec } from './codec.js';
import { prepareSolanaMessage } from './message.js';
import { solanaFees } from './rent.js';
import { u64, SolanaNode } from './rpc.js';
import { SolanaScreening } from './screening.js';
import { blockRef, scanSlots, transfersOfSignature } from './scan.js';
import { SolanaSender, type SolanaSenderOptions } from './sender.js';
import { combineSplTransfers, maxSplTransfers } from './transfers.js';

/** A transaction id: a 64-byte ed25519 signature in base58 (87 or 88 characters). */
const SIGNATURE = /^[1-9A-HJ-NP-Za-km-z]{64,88}$/;

function isSignature(text: string): boolean {
  if (!SIGNATURE.test(text)) return false;
  try {
    return base58.decode(text).length === 64;
  } catch {
    return false;
  }
}

export class SolanaAdapter implements ChainAdapter {
  readonly config: ChainConfig;
  readonly node: SolanaNode;
  readonly balances: SolanaBalances;
  readonly sender: SolanaSender;
  /** Lamports at a price of 1; rent for sweeps (rent.ts). */
  readonly fees = solanaFees;
  /**
   * Messages as Solana wallets sign them (message.ts), SPL transfers of one owner packed in one
   * transaction (transfers.ts), the master paying its children's fees as fee payer, and AML
   * screening's issuer lists as frozen token accounts (the mints' freeze authorities;
   * screening.ts). No contract calls, allowances, price feeds or EIP-712 here: those routes answer 422.
   */
  readonly capabilities: { messages: PersonalMessages; batching: Batching; feeSponsorship: FeeSponsorship; screening: ScreeningReads };

  constructor(config: ChainConfig, node = new SolanaNode(config.rpcUrl), opts: SolanaSenderOptions = {}) {
    this.config = config;
    this.node = node;
    this.balances = new SolanaBalances(node);
    this.sender = new SolanaSender(node, this.balances, {
      ...opts,
      closeAccounts: opts.closeAccounts ?? config.sweepCloseAccounts === true,
    });
    this.capabilities = {
      messages: { prepareMessage: prepareSolanaMessage },
      batching: {
        maxTransfers: (intents) => maxSplTransfers(this.node, this.balances, intents),
        combine: (intents) => combineSplTransfers(intents),
      },
      feeSponsorship: { payer: 'master' },
      screening: new SolanaScreening(node, this.balances),
    };
  }

  normalizeAddress(address: string): string | null {
    return solanaCodec.normalize(address);
  }

  close(): void {
    // kit's client holds no connection of its own (fetch's pool is the process's).
  }

  getBalances(queries: BalanceQuery[]): Promise<bigint[]> {
    return this.rpc(() => this.balances.getBalances(queries));
  }

  /** The newest confirmed slot: history is served from `confirmed` on. */
  getBlockNumber(): Promise<bigint> {
    return this.rpc(async () => u64(await (await this.node.rpc()).getSlot({ commitment: 'confirmed' }).send()));
  }

  /**
   * The newest finalized slot (never above `head`): blocks at or below it never change, on
   * any fork. With the chain's `finality: 'confirmed'`, the confirmed head itself: the
   * operator takes a supermajority's vote as final.
   */
  finalizedHead(head: bigint): Promise<bigint> {
    if (this.config.finality === 'confirmed') return Promise.resolve(head);
    return this.rpc(async () => {
      const finalized = u64(await (await this.node.rpc()).getSlot({ commitment: 'finalized' }).send());
      return finalized < head ? finalized : head;
    });
  }

  getBlock(number: bigint): Promise<BlockRef | null> {
    if (number < 0n) return Promise.resolve(null);
    return this.rpc(() => blockRef(this.node, number));
  }

  scan(from: bigint, to: bigint, tokens: string[], isWatched: (address: string) => boolean): Promise<ScanResult> {
    return this.rpc(() => scanSlots(this.node, from, to, tokens, isWatched));
  }

  transfersOfTransaction(hash: string, tokens: string[], isWatched: (address: string) => boolean): Promise<TransferEvent[]> {
    // Not a signature (64 bytes): no transaction has it; the node would call it a bad parameter.
    if (!isSignature(hash)) return Promise.resolve([]);
    return this.rpc(() => transfersOfSignature(this.node, hash, tokens, isWatched));
  }

  /**
   * Sends a signed transaction (base64 wire bytes) with preflight; returns its signature. A
   * transaction the node already has is a success; the node's refusals are typed by the
   * simulation's error (errors.ts reasons), its own trouble is a retryable CHAIN_UNAVAILABLE.
   */
  broadcast(raw: string): Promise<string> {
    return this.rpc(async () => {
      const rpc = await this.node.rpc();
      const bytes = Buffer.from(raw, 'base64');
      // The id is the first signature (after the shortvec count, 1 byte below 128 signatures).
      const id = base58.encode(bytes.subarray(1, 65));
      try {
        await rpc.sendTransaction(raw as never, { encoding: 'base64', preflightCommitment: 'confirmed' }).send();
        return id;
      } catch (err) {
        const rejection = solanaRejection(err, id);
        if (rejection === 'known') return id;
        if (rejection) throw rejection;
        throw err;
      }
    });
  }

  getReceipt(hash: string): Promise<Receipt | null> {
    if (!isSignature(hash)) return Promise.resolve(null);
    return this.rpc(async () => (await this.sender.findLanded([hash]))?.receipt ?? null);
  }

  /** A mint's decimals; null when the address is no SPL mint. */
  readTokenDecimals(token: string): Promise<number | null> {
    if (solanaCodec.normalize(token) === null) return Promise.resolve(null);
    return this.rpc(async () => {
      try {
        return (await this.balances.mintsOf([token])).get(token)!.decimals;
      } catch (err) {
        if ((err as Error).message.includes('not an SPL token mint')) return null;
        throw err;
      }
    });
  }

  private async rpc<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw new UpstreamError(
        'CHAIN_UNAVAILABLE',
        `${this.config.blockchain.name} (${this.config.network}) node call failed: ${(err as Error).message}`,
        err,
      );
    }
  }
}

/** kit's codes for the transaction errors a node's simulation names (@solana/errors). */
const TX_ERROR = {
  insufficientFee: 7050005,
  alreadyProcessed: 7050007,
  blockhashNotFound: 7050008,
  signature: 7050012,
  insufficientRent: 7050031,
};
/** kit's instruction errors: 4615000 and up (a program failed: the transfer would revert). */
const INSTRUCTION_ERRORS = [4615000, 4616000] as const;

/**
 * A node's refusal of sendTransaction as the lifecycle knows it: 'known' for a transaction
 * the node has already processed; null when it is not a refusal (the network, the node's
 * health). Read from the error codes kit decodes the simulation's error into (the error's
 * cause chain), never from the node's wording.
 */
export function solanaRejection(err: unknown, id: string): ChainRejectedError | 'known' | null {
  const codes = codesOf(err);
  if (codes[0] === -32003 || codes.includes(TX_ERROR.signature))
    return new ChainRejectedError('invalid', `transaction ${id}: signature verification failed`);
  if (codes[0] !== -32002) return null;
  if (codes.includes(TX_ERROR.alreadyProcessed)) return 'known';
  const reason = codes.includes(TX_ERROR.blockhashNotFound)
    ? 'expired'
    : codes.includes(TX_ERROR.insufficientFee) || codes.includes(TX_ERROR.insufficientRent)
      ? 'insufficient-funds'
      : codes.some((c) => c >= INSTRUCTION_ERRORS[0] && c < INSTRUCTION_ERRORS[1])
        ? 'reverted'
        : 'refused';
  const nodeMessage = messagesOf(err).join(': ').slice(0, 500);
  return new ChainRejectedError(reason, `transaction ${id} rejected`, { nodeMessage });
}

/** The kit error codes along `err`'s cause chain, outermost first. */
function codesOf(err: unknown): number[] {
  const out: number[] = [];
  for (let e: unknown = err, i = 0; e && i < 6; e = (e as { cause?: unknown }).cause, i++) {
    const code = (e as { context?: { __code?: unknown } }).context?.__code;
    if (typeof code === 'number') out.push(code);
  }
  return out;
}

function messagesOf(err: unknown): string[] {
  const out: string[] = [];
  for (let e: unknown = err, i = 0; e && i < 6; e = (e as { cause?: unknown }).cause, i++) out.push(String((e as Error).message ?? ''));
  return out;
}
