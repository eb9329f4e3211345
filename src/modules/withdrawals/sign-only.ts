/**
 * Sign-only withdrawals (POST .../addresses/{addressId}/withdraw/sign): each item's
 * transaction signed now and stored as a SIGNED Transaction, never broadcast by us. Kept
 * apart from service.ts, which checks the request and its funds for both paths, because
 * signing outside the outbound pipeline has its own rules (a nonce read, not reserved; an
 * expiry family's transaction built now). The rows and the response are the service's
 * (hooks), as create.ts does for broadcast withdrawals.
 */
import type { DbConn } from '../../db/pool.js';
import { uuidv7 } from '../../lib/ids.js';
import { intentOf, type GasPlan } from './funds.js';
import { claim, type IdempotencyKey } from './idempotency.js';
import type { Sender, WithdrawResult, WithdrawalServiceDeps } from './types.js';
import * as store from './store.js';
import type { Item } from './validate.js';
import type { AuthContext } from '../apikeys/service.js';
import { countedOf } from '../policies/service.js';
import { candidateOf, refuseUnlessAllowed } from './approval.js';
import { readStanding, standingRefusal } from './standing.js';

export interface SignJob {
  /** Who asks (the policies' initiator). */
  auth: AuthContext;
  s: Sender;
  items: Item[];
  /** Indexes of the items whose reference was new when checked. */
  fresh: number[];
  /** The family's quotes of the fresh items (null when none is fresh). */
  plan: GasPlan | null;
  key: IdempotencyKey | null;
  single: boolean;
}

export interface SignHooks {
  /** Per item, the id of the original already on the wallet under its reference. */
  existing(tx: DbConn, s: Sender, items: Item[]): Promise<(string | undefined)[]>;
  row(s: Sender, item: Item, id: string, signed: store.NewWithdrawal['signed']): Omit<store.NewWithdrawal, 'counted'>;
  respond(tx: DbConn, ids: string[], key: IdempotencyKey | null, single: boolean): Promise<WithdrawResult>;
}

export async function signOnly(deps: WithdrawalServiceDeps, job: SignJob, hooks: SignHooks): Promise<WithdrawResult> {
  const { s, items, fresh, plan, key, single } = job;
  const { db, signer, outbound, webhooks } = deps;
  const signed = new Map<number, NonNullable<store.NewWithdrawal['signed']> & { nonce: bigint | null }>();
  if (plan) {
    const family = s.chain.adapter.sender;
    const intents = fresh.map((i) => intentOf(s.address, items[i]!, plan.payer));
    // 'nonce' families: the sender's next nonces, not reserved: a signed transaction that is
    // never broadcast must not leave a hole that blocks the pipeline's sends
    // (docs/withdrawals.md). 'expiry' families (Tron) take none: each transaction is built
    // now with a fresh deadline, and expires unbroadcast without blocking anything. What the
    // family quoted is what is signed (outbound's ordering strategy, detached).
    const slots = await outbound.detached(
      s.chain,
      s.address,
      intents.map((intent, k) => ({ intent, quote: plan.quotes[k]! })),
    );
    for (const [k, i] of fresh.entries()) {
      const intent = intents[k]!;
      const { nonce: at, network } = slots[k]!;
      // A fee payer other than the sender (a child's master, Solana) signs too: both keys lent at once.
      const tx = plan.payer
        ? await signer.withKeys(
            s.wallet.id,
            [
              { index: s.index, from: s.address },
              { index: 0, from: plan.payer },
            ],
            ([key, payer]) => family.sign(intent, at, network, key!, payer!),
          )
        : await signer.withKey(s.wallet.id, s.index, s.address, (key) => family.sign(intent, at, network, key));
      // The fee fields the Transaction keeps, as the family shows them.
      signed.set(i, { ...tx, nonce: at, fees: s.chain.adapter.fees.ofNetwork(network) });
    }
  }
  return db.transaction().execute(async (tx) => {
    if (key) await claim(tx, key);
    const existing = await hooks.existing(tx, s, items);
    // The wallet's standing as it is now, held to the COMMIT (standing.ts): a deactivation, an
    // asset disabled or a whitelist entry removed while the request signed refuses it here,
    // and the signatures made are never handed out.
    const refused = standingRefusal(await readStanding(deps, tx, s.wallet.id), items);
    if (refused) throw refused;
    // Policies decide again under their locks (service.ts asked before signing): a refusal
    // here rolls everything back and the signatures made are never handed out.
    const now = items.flatMap((item, i) => (existing[i] ? [] : [item]));
    const candidates = now.map((item) => candidateOf(deps, job.auth, s, item, single, true));
    if (candidates.length > 0) {
      const session = await deps.policies.session(tx, s.wallet.business_id, candidates);
      refuseUnlessAllowed(now, session.decide(candidates));
    }
    const ids: string[] = [];
    let k = 0; // the item's index among `now` (and `candidates`)
    for (const [i, item] of items.entries()) {
      const id = existing[i] ?? uuidv7();
      ids.push(id);
      if (existing[i]) continue;
      // A twin with the same reference may commit first: the unique key refuses this one and the request is retried.
      const sig = signed.get(i)!;
      const counted = countedOf(candidates[k++]!);
      await deps.transactions.createWithdrawal(tx, { ...hooks.row(s, item, id, sig), nonce: sig.nonce, counted });
      await webhooks.emitForTransaction(tx, id, 'signed.success');
    }
    return hooks.respond(tx, ids, key, single);
  });
}
