/**
 * TEST DOUBLE, part of the abacus family (index.ts): the chain itself, in memory, with
 * nothing of the three real families' wire formats. A fourth family joins the service with
 * this folder and one line in src/chains/families.ts (test/architecture/family-fourth.test.ts).
 *
 * - Accounts: native balances only (no tokens, no contracts). Addresses are `ab` + base58
 *   of a 20-byte key hash and a 4-byte checksum (codec.ts): case-sensitive, as Tron's and
 *   Solana's.
 * - Transactions: a JSON payload (chain id, from, to, value, validUntil) signed with
 *   secp256k1 over its sha256 (the signer's lent key); raw = hex of { payload, signature };
 *   the hash is the sha256 of raw. No nonce: a transaction names the last block that may
 *   include it (the seam's 'expiry' ordering); broadcast refuses it ('expired') once the head
 *   reached that block, and the pool forgets it when a block past it is sealed. A hash seen
 *   before is known, never applied twice.
 * - Fees: a flat FEE per transaction, burned; the sender must hold value + FEE.
 * - Blocks: one every `blockMs`, or `mine()` on demand; `including = false` seals empty ones.
 */
import { createHash } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1';
import { ChainRejectedError } from '../../../src/chains/errors.js';
import type { BlockRef } from '../../../src/chains/types.js';
import { abacusAddress } from './codec.js';

/** What every transaction costs its sender, in base units of the native coin. */
export const FEE = 5_000n;

export interface AbacusPayload {
  chainId: number;
  from: string;
  to: string;
  value: string;
  validUntil: string;
}

export interface AbacusTx {
  hash: string;
  from: string;
  to: string;
  value: bigint;
  validUntil: bigint;
}

export interface AbacusReceipt {
  block: bigint;
  blockHash: string;
  fee: bigint;
}

export interface AbacusBlock extends BlockRef {
  txs: AbacusTx[];
}

export const sha256 = (bytes: Uint8Array | string): Buffer => createHash('sha256').update(bytes).digest();
const hex = (b: Uint8Array): string => `0x${Buffer.from(b).toString('hex')}`;

/** The raw bytes of a signed payload, and its hash. */
export function encode(payload: AbacusPayload, signature: { r: bigint; s: bigint; recovery: number }): { raw: string; hash: string } {
  const sig = hex(new secp256k1.Signature(signature.r, signature.s).toCompactRawBytes()) + signature.recovery.toString(16).padStart(2, '0');
  const raw = hex(Buffer.from(JSON.stringify({ payload, signature: sig }), 'utf8'));
  return { raw, hash: hex(sha256(Buffer.from(raw.slice(2), 'hex'))) };
}

/** Running chains by the URL their configuration names: how the family's adapter finds its node. */
const RUNNING = new Map<string, AbacusChain>();

export class AbacusChain {
  readonly #balances = new Map<string, bigint>();
  readonly #pool = new Map<string, AbacusTx>();
  readonly #blocks: AbacusBlock[] = [];
  readonly #receipts = new Map<string, AbacusReceipt & { tx: AbacusTx }>();
  readonly #timer: NodeJS.Timeout | null;
  including = true;

  constructor(
    readonly chainId: number,
    readonly url: string,
    opts: { blockMs?: number } = {},
  ) {
    this.#seal([]);
    this.#timer = opts.blockMs ? setInterval(() => this.mine(), opts.blockMs) : null;
    this.#timer?.unref();
    RUNNING.set(url, this);
  }

  /** The chain a configuration's URL names. */
  static at(url: string): AbacusChain {
    const chain = RUNNING.get(url);
    if (!chain) throw new Error(`no abacus chain runs at ${url}`);
    return chain;
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    RUNNING.delete(this.url);
  }

  credit(address: string, amount: bigint): void {
    this.#balances.set(address, this.balanceOf(address) + amount);
  }

  balanceOf(address: string): bigint {
    return this.#balances.get(address) ?? 0n;
  }

  head(): AbacusBlock {
    return this.#blocks.at(-1)!;
  }

  block(n: bigint): AbacusBlock | undefined {
    return n >= 0n && n < BigInt(this.#blocks.length) ? this.#blocks[Number(n)] : undefined;
  }

  receipt(hash: string): (AbacusReceipt & { tx: AbacusTx }) | undefined {
    return this.#receipts.get(hash);
  }

  /** A signed transaction from the network: checked, then pooled (or known already). */
  submit(raw: string): string {
    const tx = this.#decode(raw);
    if (this.#receipts.has(tx.hash) || this.#pool.has(tx.hash)) return tx.hash;
    if (tx.validUntil <= this.head().number)
      throw new ChainRejectedError('expired', `valid until block ${tx.validUntil}, the head is past it`);
    if (this.balanceOf(tx.from) < tx.value + FEE)
      throw new ChainRejectedError('insufficient-funds', `${tx.from} cannot pay ${tx.value} + ${FEE}`);
    this.#pool.set(tx.hash, tx);
    return tx.hash;
  }

  /** Seals a block with what the pool holds that is still valid and paid for. */
  mine(): AbacusBlock {
    const number = this.head().number + 1n;
    const included: AbacusTx[] = [];
    for (const [hash, tx] of this.#pool) {
      if (tx.validUntil < number) {
        this.#pool.delete(hash);
        continue;
      }
      if (!this.including || this.balanceOf(tx.from) < tx.value + FEE) continue;
      this.#balances.set(tx.from, this.balanceOf(tx.from) - tx.value - FEE);
      this.credit(tx.to, tx.value);
      this.#pool.delete(hash);
      included.push(tx);
    }
    const block = this.#seal(included);
    for (const tx of included) this.#receipts.set(tx.hash, { tx, block: block.number, blockHash: block.hash, fee: FEE });
    return block;
  }

  #seal(txs: AbacusTx[]): AbacusBlock {
    const parent = this.#blocks.at(-1);
    const number = parent ? parent.number + 1n : 0n;
    const parentHash = parent?.hash ?? hex(new Uint8Array(32));
    const hash = hex(sha256(`${this.chainId}:${number}:${parentHash}:${txs.map((t) => t.hash).join(',')}`));
    const block = { number, hash, parentHash, timestamp: Math.floor(Date.now() / 1000), txs };
    this.#blocks.push(block);
    return block;
  }

  #decode(raw: string): AbacusTx {
    let parsed: { payload: AbacusPayload; signature: string };
    try {
      parsed = JSON.parse(Buffer.from(raw.replace(/^0x/, ''), 'hex').toString('utf8'));
    } catch {
      throw new ChainRejectedError('invalid', 'not an abacus transaction');
    }
    const { payload, signature } = parsed;
    if (payload?.chainId !== this.chainId) throw new ChainRejectedError('invalid', 'another chain');
    const bytes = Buffer.from(String(signature).replace(/^0x/, ''), 'hex');
    const from = (() => {
      try {
        const sig = secp256k1.Signature.fromCompact(bytes.subarray(0, 64)).addRecoveryBit(bytes[64]!);
        return abacusAddress(sig.recoverPublicKey(sha256(JSON.stringify(payload))).toRawBytes(true));
      } catch {
        return null;
      }
    })();
    if (from !== payload.from) throw new ChainRejectedError('invalid', 'the signature is not the sender’s');
    const hash = hex(sha256(Buffer.from(raw.replace(/^0x/, ''), 'hex')));
    return { hash, from, to: payload.to, value: BigInt(payload.value), validUntil: BigInt(payload.validUntil) };
  }
}
