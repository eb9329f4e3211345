/**
 * Creating broadcast withdrawals: one database transaction for a batch of requests from
 * one sender (batcher.ts), under the sender's lock. Each request is judged in arrival
 * order exactly as if it had its own transaction after the previous ones committed:
 *
 * 1. Idempotency keys claimed first (sorted, so two processes claim in one order), so a
 *    concurrent twin waits; a key already taken answers that request with KeyTaken.
 * 2. The wallet's standing (active, its enabled assets, its whitelist: standing.ts, held to
 *    the COMMIT) and the references read once for the whole batch; a reference
 *    taken by an earlier request of the batch counts as taken (same payment: the original;
 *    another: 409).
 * 3. Policies (approval.ts): the business's rules read and the velocity windows of the
 *    batch locked and read once; each request's items decided in order (the earlier
 *    requests of the batch counted in the windows). A BLOCK refuses the request before
 *    anything is reserved; an item a rule holds for approval is reserved and written
 *    PENDING_APPROVAL, without an outbound row.
 * 4. Reservations read once (funds.ts): every request is checked against its own balance
 *    snapshot, the sender's PENDING (and PENDING_APPROVAL) withdrawals, those settled since
 *    its snapshot, and what the requests accepted before it in this batch reserve.
 * 5. The accepted requests' outbound rows (consecutive nonces, send jobs) and Transactions
 *    written with a constant number of statements, then the approval requests of the held
 *    items; keyed requests store their response.
 *
 * A request refused in steps 1-4 writes nothing (its claimed key is given back) and does
 * not affect the others. Anything else fails the whole transaction, and the batcher then
 * retries each request alone.
 */
import type { DbConn } from '../../db/pool.js';
import type { Purpose } from '../../events.js';
import { BusinessRuleError } from '../../lib/errors.js';
import { uuidv7 } from '../../lib/ids.js';
import type { Outcome } from './batcher.js';
import { paymentOf, chargedFee, checkHeld, intentOf, lockedReads, type GasPlan, type Reserved, type Snapshot } from './funds.js';
import { transferGroups } from './groups.js';
import type { FeeQuote, IntentBody, TxIntent } from '../../chains/types.js';
import { bodyOf } from '../../chains/intents.js';
import { KeyTaken, type IdempotencyKey } from './idempotency.js';
import { referenceInUse, type Counted, type TransactionView } from '../transactions/service.js';
import { countedOf } from '../policies/service.js';
import type { Sender, WithdrawResult, WithdrawalServiceDeps } from './types.js';
import type { AuthContext } from '../apikeys/service.js';
import { candidateOf, decideItems, openApprovals, type Held } from './approval.js';
import * as store from './store.js';
import { readStanding, standingRefusal } from './standing.js';
import type { Item } from './validate.js';
import { capability } from '../../chains/registry.js';
import { addressKey } from '../../chains/address-key.js';

export interface CreateJob {
  /** Who asks: the policies' initiator, never an approver of what it asks for. */
  auth: AuthContext;
  s: Sender;
  items: Item[];
  /** Indexes of the items whose reference was new before the lock. */
  fresh: number[];
  /** The family's quotes and the balances of the fresh items (null when none is fresh). */
  costs: { plan: GasPlan; snap: Snapshot } | null;
  key: IdempotencyKey | null;
  single: boolean;
  /** A settlement: the beneficiary it pays, which must still receive settlements (WithdrawRequest.settlesTo). */
  settlesTo?: string;
}

/**
 * ids: the Transactions, and `views`, all of the batch's read after its commit with one
 * loadMany (not under the lock); data: a keyed request's response, stored with the writes.
 */
export type CreateResult = { ids: string[]; views: Promise<Map<string, TransactionView>> } | { data: WithdrawResult };

export interface CreateHooks {
  row(s: Sender, item: Item, id: string, reservedFee: bigint): Omit<store.NewWithdrawal, 'counted'>;
  respond(tx: DbConn, ids: string[], key: IdempotencyKey, single: boolean): Promise<WithdrawResult>;
}

interface Accepted {
  job: number;
  ids: string[];
}

export async function createBatch(deps: WithdrawalServiceDeps, jobs: CreateJob[], hooks: CreateHooks): Promise<Outcome<CreateResult>[]> {
  const s = jobs[0]!.s;
  // Which items share a transaction (the family may read the chain: before the lock).
  const groupings = await Promise.all(
    jobs.map((job) => transferGroups(job.s.chain, job.s.address, job.items, job.fresh, job.costs?.plan ?? null)),
  );
  await deps.outbound.ready(s.chain, [s.address]);
  const outcomes = await deps.db.transaction().execute(async (tx) => {
    const out: (Outcome<CreateResult> | undefined)[] = jobs.map(() => undefined);
    const fail = (j: number, error: unknown) => (out[j] = { ok: false, error });

    // 1. Keys.
    const keyed = jobs.flatMap((job, j) => (job.key ? [{ j, key: job.key }] : [])).sort((a, b) => cmp(a.key.key, b.key.key));
    const claimed = new Set<number>();
    for (const { j, key } of keyed) {
      if (await store.claimKey(tx, key.walletId, key.key, key.fingerprint)) claimed.add(j);
      else fail(j, new KeyTaken());
    }
    await store.lockSender(tx, s.chain.id, s.address);

    // 2 and 3. References and reservations, each read once.
    const live = jobs.flatMap((job, j) => (out[j] ? [] : [j]));
    const refs = [...new Set(live.flatMap((j) => jobs[j]!.items.flatMap((i) => (i.reference ? [i.reference] : []))))];
    const found = await store.findByReferences(tx, s.wallet.id, refs);
    // Whether the wallet is active, its assets and its whitelist as they are now, held to the
    // COMMIT (standing.ts): what the request checked before it read the chain may have changed.
    const standing = await readStanding(deps, tx, s.wallet.id);
    // A settlement pays its beneficiary only while it is the wallet's settlement beneficiary in
    // force, read under the beneficiaries' lock that readStanding holds shared to the COMMIT: a
    // run resumed after its beneficiary was deleted, deactivated, taken off settlement or
    // replaced by a new default (and that answered), or one under way meanwhile, must not pay it.
    const settling = live.some((j) => jobs[j]!.settlesTo) ? await store.settlementBeneficiaryInForce(tx, s.wallet.id) : null;
    const snaps = live.flatMap((j) => (jobs[j]!.costs ? [jobs[j]!.costs!.snap.at] : []));
    const since = snaps.reduce<Date | null>((a, b) => (a === null || b < a ? b : a), null);
    const held = since ? await store.heldBack(tx, s.chain.id, s.address, since) : [];
    // 3. The rules and the velocity windows every fresh item may count in (locked to the commit).
    const policy = await deps.policies.session(
      tx,
      s.wallet.business_id,
      live.flatMap((j) => jobs[j]!.fresh.map((i) => candidateOf(deps, jobs[j]!.auth, jobs[j]!.s, jobs[j]!.items[i]!, jobs[j]!.single))),
    );
    const reserved: Reserved[] = [];
    const locked = lockedReads();
    const accepted: Accepted[] = [];
    const writes: {
      id: string;
      item: Item;
      quote: FeeQuote;
      fee: bigint;
      payer: string | undefined;
      job: CreateJob;
      /** Held for approval by this rule's decision (no outbound row). */
      waits: Held['decision'] | null;
      /** What its decision counted in the windows. */
      counted: Counted;
    }[] = [];
    // One outbound row per entry: indexes into writes (several: one transaction carrying them all).
    const calls: number[][] = [];

    for (const j of live) {
      const job = jobs[j]!;
      try {
        const existing = job.items.map((item) => original(job.s, item, item.reference ? found.get(item.reference) : undefined));
        // References are only ever added, so what is new now was new before and has its costs.
        const now = job.fresh.filter((i) => !existing[i]);
        // What the wallet allows now judges what would be paid now (`now`): an item whose
        // reference was paid is answered with its original (a retry after a lost answer must
        // learn it was paid, not that it is refused, whatever changed since).
        if (now.length > 0) {
          const refused = standingRefusal(
            standing,
            now.map((i) => job.items[i]!),
          );
          if (refused) throw refused;
          if (job.settlesTo && job.settlesTo !== settling) {
            throw new BusinessRuleError('BENEFICIARY_NOT_SETTLING', 'The beneficiary no longer receives settlements; nothing was paid');
          }
        }
        const quoteOf = (i: number) => job.costs!.plan.quotes[job.fresh.indexOf(i)]!;
        // What the sender pays (0 when its master pays the fees: sponsored, funds.ts).
        const feeOf = (i: number) => chargedFee(job.costs!.plan, job.fresh.indexOf(i));
        // Policies before funds: a BLOCK throws here, with nothing reserved.
        const { candidates, decisions } = decideItems(
          deps,
          policy,
          job.auth,
          job.s,
          now.map((i) => job.items[i]!),
          job.single,
        );
        if (now.length > 0) {
          const items = now.map((i) => job.items[i]!);
          const fees = now.map(feeOf);
          await checkHeld(job.s.chain, job.s.address, items, fees, job.costs!.snap, held, reserved, locked);
        }
        policy.accept(candidates);
        const ids = job.items.map((_item, i) => existing[i] ?? uuidv7());
        for (const [k, i] of now.entries()) {
          const item = job.items[i]!;
          const quote = quoteOf(i);
          const d = decisions[k]!;
          reserved.push({ assetId: item.asset.asset.row.id, amount: item.amount, fees: feeOf(i) });
          writes.push({
            id: ids[i]!,
            item,
            quote,
            fee: feeOf(i),
            payer: job.costs!.plan.payer,
            job,
            waits: d.action === 'REQUIRE_APPROVAL' ? d : null,
            counted: countedOf(candidates[k]!),
          });
          // Later requests of the batch with this reference get this payment (or a 409).
          if (item.reference) found.set(item.reference, refOf(job.s, item, ids[i]!));
        }
        // The groups, of the items sent now (an item found by reference meanwhile, or held for approval, leaves its group).
        const at = new Map(
          now.flatMap((i, k) => (decisions[k]!.action === 'REQUIRE_APPROVAL' ? [] : [[i, writes.length - now.length + k] as const])),
        );
        for (const g of groupings[j]!) {
          const members = g.flatMap((i) => (at.has(i) ? [at.get(i)!] : []));
          if (members.length > 0) calls.push(members);
        }
        accepted.push({ job: j, ids });
      } catch (err) {
        fail(j, err);
        // The request stores nothing: a twin waiting on the key may then claim it.
        if (claimed.has(j)) await store.releaseKey(tx, job.key!.walletId, job.key!.key);
      }
    }

    // 5. Writes: outbound rows (nonces in arrival order, send jobs), then the Transactions.
    const sent = await deps.outbound.enqueueMany(
      tx,
      calls.map((call) => {
        const w = writes[call[0]!]!;
        const chain = w.job.s.chain;
        // Signed within the fees its withdrawals were quoted at acceptance (quoted again when
        // signed, a risen base fee would otherwise cost more than was held): what the funds
        // check held of the sender, or, where the master pays (sponsored, funds.ts), what the
        // master was checked to hold, so the master never pays what nobody was quoted.
        const reserved = call.reduce((sum, k) => sum + writes[k]!.quote.fee, 0n);
        return {
          chainId: chain.id,
          walletId: w.job.s.wallet.id,
          wallet: w.job.s.wallet,
          fromIndex: w.job.s.index,
          // The client's gasLimit / gasPrice as the family translated them (gas-options.ts); the rest is quoted when signed.
          network: w.quote.fixed,
          ...(reserved > 0n ? { feeCeiling: reserved } : {}),
          purpose: 'withdraw' satisfies Purpose,
          // A child's fees paid by its master (Solana): the master signs as fee payer.
          ...(w.payer ? { feePayer: w.payer } : {}),
          ...(call.length === 1
            ? { intent: paymentOf(w.item), ownerId: w.id }
            : {
                intent: combined(
                  call.map((k) => intentOf(w.job.s.address, writes[k]!.item, w.payer)),
                  chain,
                ),
                owners: call.map((k) => writes[k]!.id),
              }),
        };
      }),
    );
    const nonceOf = new Map(calls.flatMap((call, c) => call.map((k) => [k, sent[c]!.nonce] as const)));
    const inserted = await deps.transactions.createWithdrawals(
      tx,
      writes.map((w, k) => ({
        ...hooks.row(w.job.s, w.item, w.id, w.fee),
        counted: w.counted,
        nonce: nonceOf.get(k) ?? null,
        // Held for approval: sent, once approved, with what the client fixed (the rest estimated
        // then), within the fee quoted now (also where the master pays it: approval.ts).
        ...(w.waits ? { awaitingApproval: true, sendNetwork: w.job.costs!.plan.clientFixed, quotedFee: w.quote.fee } : {}),
      })),
    );
    await openApprovals(
      deps,
      tx,
      writes.flatMap((w) => (w.waits ? [{ transactionId: w.id, s: w.job.s, auth: w.job.auth, decision: w.waits }] : [])),
    );
    for (const { job: j, ids } of accepted) {
      const job = jobs[j]!;
      if (job.key) out[j] = { ok: true, value: { data: await hooks.respond(tx, ids, job.key, job.single) } };
    }
    return { out, accepted, inserted };
  });
  // Committed: the others' responses, presented together from the rows as written (each
  // caller awaits its share); only originals found by reference are read.
  const unkeyed = outcomes.accepted.filter((a) => !jobs[a.job]!.key);
  const all = [...new Set(unkeyed.flatMap((a) => a.ids))];
  const written = new Map(outcomes.inserted.map((r) => [r.id, r]));
  const views = Promise.all([
    deps.transactions.presentMany(all.flatMap((id) => written.get(id) ?? [])),
    deps.transactions.loadMany(all.filter((id) => !written.has(id))),
  ]).then(([fresh, old]) => new Map([...fresh, ...old].map((v) => [v.id, v])));
  views.catch(() => undefined); // each caller sees the rejection itself
  for (const a of unkeyed) outcomes.out[a.job] = { ok: true, value: { ids: a.ids, views } };
  return outcomes.out as Outcome<CreateResult>[];
}

/**
 * The id of the Transaction that already holds the item's reference, when it is the same
 * payment; a 409 when the reference belongs to something else.
 */
export function original(s: Sender, item: Item, found: store.WithdrawalRef | undefined, type: 'WITHDRAW' | 'SIGNED' = 'WITHDRAW') {
  if (!found) return undefined;
  if (
    found.type !== type ||
    !sameAddress(found.sender_address, s.address) ||
    found.asset_id !== item.asset.asset.row.id ||
    found.amount !== item.amount.toString() ||
    !sameAddress(found.recipient_address, item.to)
  ) {
    throw referenceInUse(item.reference!, found.id);
  }
  return found.id;
}

/** Whether a stored address (null: none) and a given one name the same account (addressKey). */
const sameAddress = (stored: string | null, given: string) => stored !== null && addressKey(stored) === addressKey(given);

function refOf(s: Sender, item: Item, id: string): store.WithdrawalRef {
  return {
    id,
    type: 'WITHDRAW',
    status: 'PENDING',
    sender_address: s.address,
    recipient_address: item.to,
    asset_id: item.asset.asset.row.id,
    amount: item.amount.toString(),
  };
}

/** The one intent carrying a group's transfers (the batching capability's combine), without its parties. */
function combined(intents: TxIntent[], chain: Sender['chain']): IntentBody {
  return bodyOf(capability(chain.adapter, 'batching').combine(intents));
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
