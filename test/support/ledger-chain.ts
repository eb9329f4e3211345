/**
 * TEST DOUBLE, part of the ledger family (ledger-family.ts): the chain itself, in memory.
 * Balances, nonces, a pool, blocks, receipts, and the transaction format (a JSON payload and
 * its secp256k1 signature over sha256; raw = hex of { payload, signature }; hash = sha256 of
 * raw). Refusals are the seam's typed ChainRejectedError reasons.
 *
 * Two orderings, chosen when the chain is made:
 * - nonce (default): a nonce per sender, each used once and in order, replaceable in the
 *   pool with +10% on both fee fields (as EVM);
 * - expiry (`expiryBlocks`): no nonce; a transaction names the last block that may include it
 *   (`validUntil`, as Solana's last valid block height or Tron's expiration); broadcast
 *   refuses it ('expired') once the head has reached that block, and the pool forgets it
 *   when a block past it is sealed. Duplicates (same hash) are known, never applied twice.
 */
import { createHash } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1';
import { getAddress } from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import { ChainRejectedError } from '../../src/chains/errors.js';
import type { BlockRef } from '../../src/chains/types.js';

/** Units a native transfer uses (the ledger's "gas"); the least a transaction can carry. */
export const TRANSFER_UNITS = 1_000n;
/** Fee fields of a replacement: at least this percent of the original's (the ledger's rule, as geth's). */
export const BUMP_PERCENT = 110n;

export interface LedgerPayload {
  chainId: number;
  from: string;
  to: string;
  value: string;
  /** 'nonce' ordering only. */
  nonce?: string;
  /** 'expiry' ordering only: the last block that may include the transaction. */
  validUntil?: string;
  units: string;
  feeCap: string;
  tip: string;
}

export interface LedgerTx {
  payload: LedgerPayload;
  hash: string;
  from: string;
  to: string;
  value: bigint;
  /** null on an expiry chain. */
  nonce: bigint | null;
  /** null on a nonce chain. */
  validUntil: bigint | null;
  units: bigint;
  feeCap: bigint;
  tip: bigint;
}

/** A receipt as a ledger node reports it (the family maps it onto the seam's neutral Receipt). */
export interface LedgerReceipt {
  status: 'success' | 'reverted';
  blockNumber: bigint;
  blockHash: string;
  gasUsed: bigint;
  effectiveGasPrice: bigint;
}

export interface Block extends BlockRef {
  txs: { tx: LedgerTx; receipt: LedgerReceipt }[];
}

export const sha256 = (bytes: Uint8Array | string): Buffer => createHash('sha256').update(bytes).digest();
export const hex = (b: Uint8Array): `0x${string}` => `0x${Buffer.from(b).toString('hex')}`;
const key = (address: string) => address.toLowerCase();

/** The chain itself: what a node of it holds and does. */
export class LedgerChain {
  readonly chainId: number;
  /** Blocks a transaction stays valid after the head it was prepared at; null: nonce ordering. */
  readonly expiryBlocks: bigint | null;
  baseFee: bigint;
  readonly #balances = new Map<string, bigint>();
  readonly #nonces = new Map<string, bigint>();
  /** Pool: by sender, by nonce. */
  readonly #pool = new Map<string, Map<bigint, LedgerTx>>();
  /** Pool of an expiry chain: by hash, in arrival order. */
  readonly #expiring = new Map<string, LedgerTx>();
  readonly #blocks: Block[] = [];
  readonly #receipts = new Map<string, { tx: LedgerTx; receipt: LedgerReceipt }>();
  #timer: NodeJS.Timeout | null = null;
  /** While false, blocks are still produced but carry no transaction (a congested chain). */
  including = true;
  /** For tests: runs when the family is asked whether a transaction expired, before it reads the head. */
  beforeExpiryCheck: (() => void) | null = null;
  /** Every broadcast the chain answered, in order (for tests: what was refused and why). */
  readonly broadcasts: { hash: string | null; outcome: string }[] = [];

  constructor(opts: { chainId: number; baseFee?: bigint; blockMs?: number; expiryBlocks?: number }) {
    this.chainId = opts.chainId;
    this.expiryBlocks = opts.expiryBlocks === undefined ? null : BigInt(opts.expiryBlocks);
    this.baseFee = opts.baseFee ?? 10n;
    this.#blocks.push(this.#seal([], '0x' + '00'.repeat(32)));
    if (opts.blockMs) {
      this.#timer = setInterval(() => this.mine(), opts.blockMs);
      this.#timer.unref();
    }
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** A faucet: credits `amount` to `address`. */
  credit(address: string, amount: bigint): void {
    this.#balances.set(key(address), this.balanceOf(address) + amount);
  }

  balanceOf(address: string): bigint {
    return this.#balances.get(key(address)) ?? 0n;
  }

  /** Mined transactions of a sender ('latest'), or with its pool's run of next nonces ('pending'). */
  nonceOf(address: string, which: 'pending' | 'latest'): bigint {
    let n = this.#nonces.get(key(address)) ?? 0n;
    if (which === 'pending') while (this.#pool.get(key(address))?.has(n)) n++;
    return n;
  }

  head(): Block {
    return this.#blocks[this.#blocks.length - 1]!;
  }

  block(number: bigint): Block | null {
    return number >= 0n && number < BigInt(this.#blocks.length) ? this.#blocks[Number(number)]! : null;
  }

  receipt(hash: string): LedgerReceipt | null {
    return this.#receipts.get(key(hash))?.receipt ?? null;
  }

  /** Transactions of a mined block, for scans. */
  transactionsOf(number: bigint): LedgerTx[] {
    return this.block(number)?.txs.map((t) => t.tx) ?? [];
  }

  minedTransaction(hash: string): LedgerTx | null {
    return this.#receipts.get(key(hash))?.tx ?? null;
  }

  pooled(hash: string): boolean {
    if (this.#expiring.has(key(hash))) return true;
    for (const byNonce of this.#pool.values()) for (const tx of byNonce.values()) if (tx.hash === key(hash)) return true;
    return false;
  }

  /** Checks and pools a signed transaction; its hash, or a typed refusal. */
  submit(raw: string): string {
    try {
      const hash = this.#submit(raw);
      this.broadcasts.push({ hash, outcome: 'accepted' });
      return hash;
    } catch (err) {
      this.broadcasts.push({ hash: null, outcome: err instanceof ChainRejectedError ? err.reason : 'error' });
      throw err;
    }
  }

  #submit(raw: string): string {
    const tx = decode(raw, this.chainId);
    if (this.#receipts.has(tx.hash) || this.pooled(tx.hash)) return tx.hash; // already known
    if (this.expiryBlocks !== null) return this.#submitExpiring(tx);
    if (tx.nonce === null) throw new ChainRejectedError('invalid', 'a transaction of this chain needs a nonce');
    const mined = this.#nonces.get(key(tx.from)) ?? 0n;
    if (tx.nonce < mined) throw new ChainRejectedError('nonce-used', `nonce ${tx.nonce} of ${tx.from} is used (next is ${mined})`);
    if (tx.feeCap < this.baseFee) throw new ChainRejectedError('fee-too-low', `fee cap ${tx.feeCap} is under the base fee ${this.baseFee}`);
    if (this.balanceOf(tx.from) < tx.value + tx.units * tx.feeCap) {
      throw new ChainRejectedError('insufficient-funds', `${tx.from} cannot pay ${tx.value} plus ${tx.units} units at ${tx.feeCap}`);
    }
    const byNonce = this.#pool.get(key(tx.from)) ?? new Map<bigint, LedgerTx>();
    const old = byNonce.get(tx.nonce);
    if (old && (tx.feeCap * 100n < old.feeCap * BUMP_PERCENT || tx.tip * 100n < old.tip * BUMP_PERCENT)) {
      throw new ChainRejectedError('replacement-underpriced', `a replacement of nonce ${tx.nonce} must pay 10% more on both fee fields`);
    }
    byNonce.set(tx.nonce, tx);
    this.#pool.set(key(tx.from), byNonce);
    return tx.hash;
  }

  #submitExpiring(tx: LedgerTx): string {
    if (tx.validUntil === null) throw new ChainRejectedError('invalid', 'a transaction of this chain needs validUntil');
    const head = this.head().number;
    if (head >= tx.validUntil) throw new ChainRejectedError('expired', `valid until block ${tx.validUntil}; the head is ${head}`);
    if (tx.feeCap < this.baseFee) throw new ChainRejectedError('fee-too-low', `fee cap ${tx.feeCap} is under the base fee ${this.baseFee}`);
    if (this.balanceOf(tx.from) < tx.value + tx.units * tx.feeCap) {
      throw new ChainRejectedError('insufficient-funds', `${tx.from} cannot pay ${tx.value} plus ${tx.units} units at ${tx.feeCap}`);
    }
    this.#expiring.set(tx.hash, tx);
    return tx.hash;
  }

  /** Applies a transaction's transfer and fee; false (nothing changed) when the sender cannot pay. */
  #apply(tx: LedgerTx, number: bigint, included: { tx: LedgerTx; receipt: LedgerReceipt }[]): boolean {
    if (tx.feeCap < this.baseFee) return false; // waits for the base fee to fall, or a replacement
    const price = tx.feeCap < this.baseFee + tx.tip ? tx.feeCap : this.baseFee + tx.tip;
    const fee = TRANSFER_UNITS * price;
    if (this.balanceOf(tx.from) < tx.value + fee) return false;
    this.#balances.set(key(tx.from), this.balanceOf(tx.from) - tx.value - fee);
    this.credit(tx.to, tx.value);
    included.push({
      tx,
      receipt: { status: 'success', blockNumber: number, blockHash: '', gasUsed: TRANSFER_UNITS, effectiveGasPrice: price },
    });
    return true;
  }

  /** Produces one block with every executable pool transaction (in nonce order per sender). */
  mine(): Block {
    const included: { tx: LedgerTx; receipt: LedgerReceipt }[] = [];
    const number = BigInt(this.#blocks.length);
    for (const [hash, tx] of this.#expiring) {
      // Past its last valid block: no block can include it any more.
      if (number > tx.validUntil!) this.#expiring.delete(hash);
      else if (this.including && this.#apply(tx, number, included)) this.#expiring.delete(hash);
    }
    for (const [sender, byNonce] of this.including ? this.#pool : []) {
      for (let n = this.#nonces.get(sender) ?? 0n; byNonce.has(n); n++) {
        if (!this.#apply(byNonce.get(n)!, number, included)) break;
        this.#nonces.set(sender, n + 1n);
        byNonce.delete(n);
      }
      // A transaction whose nonce got mined by another version is gone from the pool.
      for (const n of byNonce.keys()) if (n < (this.#nonces.get(sender) ?? 0n)) byNonce.delete(n);
    }
    const block = this.#seal(included, this.head().hash);
    this.#blocks.push(block);
    for (const t of included) {
      t.receipt.blockHash = block.hash;
      this.#receipts.set(t.tx.hash, t);
    }
    return block;
  }

  #seal(txs: Block['txs'], parentHash: string): Block {
    const number = BigInt(this.#blocks.length);
    const timestamp = Math.floor(Date.now() / 1000);
    const hash = hex(sha256(`${this.chainId}:${number}:${parentHash}:${timestamp}:${txs.map((t) => t.tx.hash).join(',')}`));
    return { number, hash, parentHash, timestamp, txs };
  }
}

/** Reads and checks a raw transaction: format, chain, signature (who signed it). */
export function decode(raw: string, chainId: number): LedgerTx {
  let payload: LedgerPayload;
  let signature: string;
  try {
    if (!/^0x([0-9a-f]{2})+$/i.test(raw)) throw new Error('not hex');
    ({ payload, signature } = JSON.parse(Buffer.from(raw.slice(2), 'hex').toString('utf8')));
  } catch {
    throw new ChainRejectedError('invalid', 'not a ledger transaction');
  }
  if (payload.chainId !== chainId) throw new ChainRejectedError('invalid', `signed for chain ${payload.chainId}, not ${chainId}`);
  let signer: string;
  try {
    const bytes = Buffer.from(signature.replace(/^0x/, ''), 'hex');
    const sig = secp256k1.Signature.fromCompact(bytes.subarray(0, 64)).addRecoveryBit(bytes[64]!);
    const point = sig.recoverPublicKey(sha256(JSON.stringify(payload)));
    signer = publicKeyToAddress(hex(point.toRawBytes(false)));
  } catch {
    throw new ChainRejectedError('invalid', 'bad signature');
  }
  if (key(signer) !== key(payload.from)) throw new ChainRejectedError('invalid', `signed by ${signer}, not by the sender ${payload.from}`);
  return {
    payload,
    hash: hex(sha256(Buffer.from(raw.slice(2), 'hex'))),
    from: getAddress(payload.from),
    to: getAddress(payload.to),
    value: BigInt(payload.value),
    nonce: payload.nonce === undefined ? null : BigInt(payload.nonce),
    validUntil: payload.validUntil === undefined ? null : BigInt(payload.validUntil),
    units: BigInt(payload.units),
    feeCap: BigInt(payload.feeCap),
    tip: BigInt(payload.tip),
  };
}
