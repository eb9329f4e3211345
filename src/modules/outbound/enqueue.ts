/**
 * Taking a place in the outbound pipeline (OutboundService.enqueue, enqueueMany): the request
 * a caller makes, checked, its sender's address derived, nonces allocated from the `nonces`
 * counter, and the rows and their outbound_send jobs inserted, all in the caller's database
 * transaction. Kept apart from service.ts, which drives rows once they exist (send, track,
 * replace), because this is the one part that runs in other modules' transactions.
 */
import { sharesKeys } from '../../chains/registry.js';
import type { IntentBody, NetworkData } from '../../chains/types.js';
import type { DbConn } from '../../db/pool.js';
import { ValidationError } from '../../lib/errors.js';
import { uuidv7 } from '../../lib/ids.js';
import type { CatalogueService, ChainHandle } from '../catalogue/service.js';
import type { WalletRow, WalletService } from '../wallets/service.js';
import { validate } from './checks.js';
import { orderingOf } from './ordering.js';
import * as store from './store.js';
import { offers } from '../../chains/registry.js';

export interface EnqueueRequest {
  /** chains.id of the chain to send on; the wallet must live on it. */
  chainId: string;
  walletId: string;
  /** The wallet's row when the caller has it at hand: saves reading it again. */
  wallet?: WalletRow;
  /**
   * Derivation index of the sender: 0 is the master address, 1..n its children; null for an
   * address whose key the wallet imported, named by `fromAddress`.
   */
  fromIndex: number | null;
  fromAddress?: string;
  /** What the transaction sends (chains/intents.ts): a native or token payment, or a contract call. */
  intent: IntentBody;
  /** Skips estimation (in the family's units); required when the transaction must go out even if it reverts. */
  gasLimit?: bigint;
  /**
   * Fixed fields as the family's quote gave them (FeeQuote.fixed, or Sender.fundedNetwork: a
   * sweep signed with exactly what its top-up paid for); gasLimit wins over them. The rest
   * is quoted when the row is signed.
   */
  network?: NetworkData;
  /**
   * Selects the subscribers of outbound.signed / settled / confirmed (src/subscriptions.ts):
   * one of events.ts's `Purpose` (a string here only so that the pipeline's own tests can
   * send rows nobody subscribes to; src/events.test.ts checks every purpose the source sends).
   */
  purpose: string;
  /** What the transaction belongs to (a sweep, a transaction). */
  ownerId?: string;
  /**
   * Several owners of one row (a call carrying several transfers, Sender.combine), in order:
   * the row's owner_id is then a new group id listing them (outbound_owners; ownersOf).
   * Instead of ownerId.
   */
  owners?: string[];
  /**
   * Who pays the fee, where the family lets another account pay it and sign as fee payer
   * (the feeSponsorship capability: Solana): the wallet's master address, whose key (index 0) signs
   * too. Ignored by families where the sender always pays (EVM, Tron) and when it is the sender.
   */
  feePayer?: string;
  /**
   * The most the fee may be when the row is signed, in native base units: what the caller
   * reserved for it from the quote it was accepted with. A fresher quote above it is bid
   * down to it (Sender.prepare), so the signed transaction never costs more than was held;
   * should the node then refuse the bid as too low, the stuck row gets the pipeline's usual
   * replacement, which first checks the sender can pay for it. Absent: priced when signed.
   */
  feeCeiling?: bigint;
  /**
   * The chain may be another than the wallet's when it shares the wallet's keys (the same
   * family and account path): an asset recovery of funds sent to our address on the wrong
   * chain. Without it the wallet must live on the chain.
   */
  crossChain?: boolean;
}

/** OutboundService.enqueueMany: see there. */
export async function enqueueMany(
  catalogue: CatalogueService,
  walletService: WalletService,
  tx: DbConn,
  reqs: EnqueueRequest[],
): Promise<{ id: string; nonce: bigint | null; from: string }[]> {
  // On the bare pool each statement would commit alone: a crash between them would leak a nonce.
  if (!tx.isTransaction) throw new Error('OutboundService.enqueue must run inside a database transaction');
  const planned: { chain: ChainHandle; from: string; req: EnqueueRequest; checked: ReturnType<typeof validate>; master: string }[] = [];
  const wallets = new Map<string, WalletRow>();
  // Deriving an address is a curve operation: once per sender of the batch, not per request.
  const senders = new Map<string, string>();
  for (const req of reqs) {
    const chain = catalogue.chain(req.chainId);
    const checked = validate(chain, req);
    if (req.owners && (req.owners.length < 2 || req.ownerId !== undefined)) throw new Error('owners: at least two, instead of ownerId');
    let wallet = wallets.get(req.walletId) ?? (req.wallet?.id === req.walletId ? req.wallet : undefined);
    wallet ??= await walletService.requireRow(req.walletId, tx);
    wallets.set(req.walletId, wallet);
    if (wallet.chain_id !== chain.id && !(req.crossChain && sharesKeys(catalogue.chain(wallet.chain_id).config, chain.config))) {
      throw new ValidationError(`wallet ${req.walletId} does not live on chain ${chain.key}`);
    }
    const senderKey = `${wallet.id}:${req.fromIndex}`;
    let from = senders.get(senderKey);
    if (req.fromIndex === null) from = chain.adapter.normalizeAddress(req.fromAddress!)!;
    else if (from === undefined) senders.set(senderKey, (from = await walletService.addressOf(wallet, req.fromIndex, tx)));
    planned.push({ chain, from, req, checked, master: wallet.address });
  }
  // Senders in order of first appearance; each takes its slots in one statement (the chain's
  // ordering strategy: consecutive nonces, or none on an 'expiry' family).
  const slots = new Map<string, (bigint | null)[]>();
  for (const p of planned) {
    const k = `${p.chain.id}:${p.from}`;
    if (slots.has(k)) continue;
    const count = planned.filter((q) => q.chain.id === p.chain.id && q.from === p.from).length;
    slots.set(k, await orderingOf(p.chain).take(tx, p.chain, p.from, count));
  }
  const rows: store.NewOutbound[] = planned.map((p) => {
    const nonce = slots.get(`${p.chain.id}:${p.from}`)!.shift() ?? null;
    return {
      id: uuidv7(),
      chainId: p.chain.id,
      walletId: p.req.walletId,
      fromAddress: p.from,
      fromIndex: p.req.fromIndex,
      nonce,
      feePayer: feePayerOf(p.chain, p.from, p.req.feePayer, p.master),
      feeCeiling: p.req.feeCeiling ?? null,
      ...p.checked,
      purpose: p.req.purpose,
      ownerId: p.req.owners ? uuidv7() : (p.req.ownerId ?? null),
    };
  });
  await store.insertOutbounds(tx, rows);
  await store.insertOwnerGroups(
    tx,
    planned.flatMap((p, k) => (p.req.owners ? [{ groupId: rows[k]!.ownerId!, owners: p.req.owners }] : [])),
  );
  await store.enqueueSendJobs(
    tx,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({ id: r.id, nonce: r.nonce, from: r.fromAddress }));
}

/** The fee payer a row records: another account than the sender, on a family that lets it pay; else null (the sender pays). */
function feePayerOf(chain: ChainHandle, from: string, feePayer: string | undefined, master: string): string | null {
  if (!feePayer || !offers(chain.adapter, 'feeSponsorship')) return null;
  const payer = chain.adapter.normalizeAddress(feePayer);
  // Only the wallet's own master pays for its addresses: its key (index 0) is the one lent.
  if (payer === null || payer !== master) throw new ValidationError(`feePayer ${feePayer} is not the wallet's master address`);
  return payer === from ? null : payer;
}
