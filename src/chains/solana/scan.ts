/**
 * Reading deposits off a Solana node: blocks and the value they moved to watched owners.
 *
 * Numbers are slots. A slot may have no block (the leader skipped it, or its block was on a
 * dropped fork); the indexer wants a reference for every number of a range, linked by
 * parent hashes, so a slot without a block reads as the newest block before it (its hash
 * as both hash and parent): the next block's parent is then exactly the reference before it,
 * and a block dropped with its fork reads differently than when it was recorded (the
 * indexer rewinds, as on an EVM reorg).
 *
 * Transfers come from each transaction's balances, not its instructions: an SPL deposit is a
 * rise of a token account's amount (postTokenBalances - preTokenBalances, which name the
 * account's owner and mint; a token account created in the same transaction has a post
 * balance only) and a SOL deposit a rise of a watched account's lamports. This sees every way
 * tokens arrive (transfer, transferChecked, a program's CPI, an account created by the
 * sender) with one getBlock per block, whatever the number of watched owners. A failed
 * transaction moved nothing but its fee and is skipped.
 */
import type { BlockRef, ScanResult, TransferEvent } from '../types.js';
import { associatedTokenAccount, TOKEN_PROGRAMS } from './balances.js';
import { isNotAvailable, isSkippedSlot, u64, type SolanaNode, type SolanaRpc } from './rpc.js';

/** Derived associated token accounts (a PDA search each), by owner, mint and program; cleared when full. */
const ATAS = new Map<string, Promise<string>>();
const ATAS_MAX = 100_000;

function ataOf(owner: string, mint: string, program: string): Promise<string> {
  const k = `${owner} ${mint} ${program}`;
  let found = ATAS.get(k);
  if (!found) {
    if (ATAS.size >= ATAS_MAX) ATAS.clear();
    ATAS.set(k, (found = associatedTokenAccount(owner, mint, program)));
    found.catch(() => ATAS.delete(k));
  }
  return found;
}

/**
 * Whether a token account is its owner's associated token account: the only one the sweep
 * and the balance reads look at (balances.ts). Tokens sent into any other account the owner
 * holds are not a deposit the service could move, so they are not credited (docs/solana.md).
 */
async function isAssociated(account: string, owner: string, mint: string, program: string | undefined): Promise<boolean> {
  for (const p of program ? [program] : TOKEN_PROGRAMS) if ((await ataOf(owner, mint, p)) === account) return true;
  return false;
}

/** How far back a skipped slot looks for the block before it; further back, it keeps going. */
const LOOKBACK = 256n;

interface TokenBalanceJson {
  accountIndex: number;
  mint: string;
  owner?: string;
  /** The token program that owns the account (nodes since 1.11 say it). */
  programId?: string;
  uiTokenAmount: { amount: string };
}

/** A transaction of getBlock / getTransaction (encoding json), the fields read here. */
export interface SolanaTxJson {
  transaction: { signatures: string[]; message: { accountKeys: string[] } };
  meta: {
    err: unknown;
    /** Lamports the fee payer paid as the fee. */
    fee?: bigint | number;
    preBalances: (bigint | number)[];
    postBalances: (bigint | number)[];
    preTokenBalances?: TokenBalanceJson[];
    postTokenBalances?: TokenBalanceJson[];
    loadedAddresses?: { writable: string[]; readonly: string[] };
  } | null;
}

interface SolanaBlockJson {
  blockhash: string;
  previousBlockhash: string;
  blockTime: bigint | number | null;
  transactions?: SolanaTxJson[];
}

const BLOCK_OPTS = { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0, rewards: false } as const;

/** The block in `slot` at `confirmed`: 'skipped' (a finalized slot without a block), or null when not available (-32004). */
async function readBlock(rpc: SolanaRpc, slot: bigint, details: 'full' | 'none'): Promise<SolanaBlockJson | 'skipped' | null> {
  try {
    const block =
      details === 'full'
        ? await rpc.getBlock(slot, { ...BLOCK_OPTS, transactionDetails: 'full' }).send()
        : await rpc.getBlock(slot, { ...BLOCK_OPTS, transactionDetails: 'none' }).send();
    return (block as unknown as SolanaBlockJson | null) ?? 'skipped';
  } catch (err) {
    if (isSkippedSlot(err)) return 'skipped';
    if (isNotAvailable(err)) return null;
    throw err;
  }
}

const refOf = (slot: bigint, b: SolanaBlockJson): BlockRef => ({
  number: slot,
  hash: b.blockhash,
  parentHash: b.previousBlockhash,
  timestamp: b.blockTime === null ? 0 : Number(b.blockTime),
});

/** A slot without a block: the block before it, as hash and parent. */
const emptySlot = (slot: bigint, before: BlockRef): BlockRef => ({
  number: slot,
  hash: before.hash,
  parentHash: before.hash,
  timestamp: before.timestamp,
});

/** The newest slot with a block at or below `slot` (confirmed), or null when none is (before genesis). */
async function blockAtOrBelow(rpc: SolanaRpc, slot: bigint): Promise<bigint | null> {
  for (let end = slot; end >= 0n; end -= LOOKBACK) {
    const start = end - LOOKBACK + 1n > 0n ? end - LOOKBACK + 1n : 0n;
    const slots = await rpc.getBlocks(start, end, { commitment: 'confirmed' }).send();
    if (slots.length) return u64(slots[slots.length - 1]);
  }
  return null;
}

/** The reference of `slot` (see the file's comment), or null above the confirmed slot. */
export async function blockRef(node: SolanaNode, slot: bigint): Promise<BlockRef | null> {
  const rpc = await node.rpc();
  let block = await readBlock(rpc, slot, 'none');
  if (block === null) {
    // agave answers -32004 too for a slot at or below the confirmed one that holds no block of
    // the confirmed chain (skipped, or its block dropped with a fork) while it is not
    // finalized: only a finalized slot without a block is -32007. Such a slot is read as
    // skipped; one the confirmed slot reached between the two reads is read again.
    const confirmed = u64(await rpc.getSlot({ commitment: 'confirmed' }).send());
    if (slot > confirmed) return null;
    block = (await readBlock(rpc, slot, 'none')) ?? 'skipped';
  }
  if (block !== 'skipped') return refOf(slot, block);
  const real = await blockAtOrBelow(rpc, slot);
  if (real === null) return null;
  const before = await readBlock(rpc, real, 'none');
  // Gone between the two reads (a fork dropped it): the caller reads again.
  if (before === null || before === 'skipped') throw new Error(`slot ${real} changed while it was read`);
  return emptySlot(slot, refOf(real, before));
}

/**
 * Every slot of `from..to` (confirmed), with the transfers of `mints` (and SOL) to owners for
 * which `isWatched` is true. One getBlocks and one getBlock per block.
 */
export async function scanSlots(
  node: SolanaNode,
  from: bigint,
  to: bigint,
  mints: string[],
  isWatched: (address: string) => boolean,
): Promise<ScanResult> {
  const rpc = await node.rpc();
  const slots = (await rpc.getBlocks(from, to, { commitment: 'confirmed' }).send()).map(u64);
  const found = new Map<bigint, SolanaBlockJson>();
  for (const slot of slots) {
    const block = await readBlock(rpc, slot, 'full');
    if (block === null || block === 'skipped') throw new Error(`slot ${slot} changed while the range was read`);
    found.set(slot, block);
  }
  const wanted = new Set(mints);
  const blocks: BlockRef[] = [];
  const transfers: TransferEvent[] = [];
  // The reference before the first block of the range, for the empty slots that lead it.
  let last: BlockRef | null = null;
  if (slots[0] !== from) {
    const before = from === 0n ? null : await blockRef(node, from - 1n);
    if (before) last = before;
    else if (slots.length) last = { number: from - 1n, hash: found.get(slots[0]!)!.previousBlockhash, parentHash: '', timestamp: 0 };
  }
  for (let slot = from; slot <= to; slot++) {
    const block = found.get(slot);
    if (block) {
      last = refOf(slot, block);
      blocks.push(last);
      for (const tx of block.transactions ?? []) transfers.push(...(await transfersOf(tx, slot, last.hash, wanted, isWatched)));
    } else if (last) blocks.push(emptySlot(slot, last));
    else throw new Error(`no block at or before slot ${slot}`);
  }
  return { blocks, transfers };
}

/**
 * The value one transaction moved to watched owners: SPL (by token account, logIndex = the
 * account's index in the transaction) and SOL (logIndex = -1 - the account's index, so
 * native transfers keep negative indexes as on the other families).
 */
export async function transfersOf(
  tx: SolanaTxJson,
  slot: bigint,
  blockHash: string,
  mints: Set<string>,
  isWatched: (address: string) => boolean,
): Promise<TransferEvent[]> {
  const meta = tx.meta;
  if (!meta || meta.err !== null) return [];
  const keys = [
    ...tx.transaction.message.accountKeys,
    ...(meta.loadedAddresses?.writable ?? []),
    ...(meta.loadedAddresses?.readonly ?? []),
  ];
  const signature = tx.transaction.signatures[0]!;
  const feePayer = keys[0]!;
  const out: TransferEvent[] = [];
  const at = { txHash: signature, block: { number: slot, hash: blockHash } };

  // SPL: per token account, post - pre (absent = 0: created or closed in the transaction).
  const pre = new Map((meta.preTokenBalances ?? []).map((b) => [b.accountIndex, b]));
  const post = new Map((meta.postTokenBalances ?? []).map((b) => [b.accountIndex, b]));
  const amountOf = (b: TokenBalanceJson | undefined) => (b ? BigInt(b.uiTokenAmount.amount) : 0n);
  for (const [index, after] of post) {
    if (!mints.has(after.mint) || !after.owner || !isWatched(after.owner)) continue;
    const delta = amountOf(after) - amountOf(pre.get(index));
    if (delta <= 0n) continue;
    if (!(await isAssociated(keys[index]!, after.owner, after.mint, after.programId))) continue;
    // The sender: the owner of the account of the same mint that lost the most. Every owner
    // whose account of the mint lost some paid into the transaction too (payers): with several,
    // the balances cannot tell whose tokens reached which account, so each is screened.
    let from = feePayer;
    let most = 0n;
    const losers: string[] = [];
    for (const [i, b] of pre) {
      const loss = amountOf(b) - amountOf(post.get(i));
      if (b.mint !== after.mint || loss <= 0n || !b.owner) continue;
      losers.push(b.owner);
      if (loss > most) [from, most] = [b.owner, loss];
    }
    out.push({ ...at, token: after.mint, from, ...payersOf(from, losers), to: after.owner, amount: delta, logIndex: index });
  }

  // SOL: a watched account's lamports rose. The sender: the account that lost the most; a
  // token account stands for its owner (a token account closed in the transaction gives its
  // rent to the close's destination, often the fee payer: a sweep that closes the child's
  // account returns that rent to the master, a movement between the wallet's own addresses).
  const tokenOwner = new Map((meta.preTokenBalances ?? []).flatMap((b) => (b.owner ? [[b.accountIndex, b.owner] as const] : [])));
  let sender = feePayer;
  let most = 0n;
  // Every account that paid lamports in (the fee payer only beyond its fee), as for tokens.
  const fee = u64(meta.fee ?? 0);
  const losers: string[] = [];
  meta.preBalances.forEach((p, i) => {
    const loss = u64(p) - u64(meta.postBalances[i] ?? 0);
    if (loss > (i === 0 ? fee : 0n)) losers.push(tokenOwner.get(i) ?? keys[i]!);
    if (loss > most) [sender, most] = [tokenOwner.get(i) ?? keys[i]!, loss];
  });
  const payers = payersOf(sender, losers);
  meta.postBalances.forEach((p, i) => {
    const delta = u64(p) - u64(meta.preBalances[i] ?? 0);
    const key = keys[i];
    if (delta > 0n && key && isWatched(key))
      out.push({ ...at, token: null, from: sender, ...payers, to: key, amount: delta, logIndex: -1 - i });
  });
  return out;
}

/** `payers` of a transfer: the other addresses that paid into its transaction, each once (absent: none). */
function payersOf(from: string, losers: string[]): { payers?: string[] } {
  const others = [...new Set(losers)].filter((a) => a !== from);
  return others.length ? { payers: others } : {};
}

/** The transfers of one transaction (the deposit finder), [] when it is not confirmed or failed. */
export async function transfersOfSignature(
  node: SolanaNode,
  signature: string,
  mints: string[],
  isWatched: (address: string) => boolean,
): Promise<TransferEvent[]> {
  const rpc = await node.rpc();
  const tx = (await rpc
    .getTransaction(signature as Parameters<SolanaRpc['getTransaction']>[0], {
      commitment: 'confirmed',
      encoding: 'json',
      maxSupportedTransactionVersion: 0,
    })
    .send()) as unknown as (SolanaTxJson & { slot: bigint }) | null;
  if (!tx) return [];
  const ref = await blockRef(node, u64(tx.slot));
  if (!ref) return [];
  return transfersOf(tx, u64(tx.slot), ref.hash, new Set(mints), isWatched);
}
