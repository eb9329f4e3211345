/**
 * Checkout sessions: how one starts (the asset and amount chosen, a dedicated child address
 * issued), how its state moves when payments arrive or the clock passes its deadlines
 * (status.ts decides; here it is stored and told, in one transaction), and how it is shown.
 */
import { capability, offers } from '../../chains/registry.js';
import type { PaymentRequests } from '../../chains/types.js';
import type { Db, DbConn } from '../../db/pool.js';
import type { Clock } from '../../lib/clock.js';
import { BusinessRuleError, ValidationError } from '../../lib/errors.js';
import { uuidv7 } from '../../lib/ids.js';
import { formatAmount, parseAmount } from '../../lib/money.js';
import type { AddressService } from '../addresses/service.js';
import type { AssetHandle, CatalogueService } from '../catalogue/service.js';
import type { WebhookService } from '../webhooks/service.js';
import { checkRedirectUrl, configurationsOf, isOpen } from './links.js';
import type { CheckoutView, CreateCheckoutBody } from './schemas.js';
import { nextState, thresholdOf } from './status.js';
import * as store from './store.js';

export interface SessionDeps {
  db: Db;
  clock: Clock;
  catalogue: CatalogueService;
  addresses: AddressService;
  webhooks: WebhookService;
  /** Where the pages are (PUBLIC_URL, or the server's own address): the `url` of a session. */
  baseUrl(): string;
  /** Catalogue ids of the assets the wallet enables now (the indexer records deposits of these only). */
  enabledOf(walletId: string): Promise<ReadonlySet<string>>;
}

/** Who starts a session: the merchant through the API (may set the amount), or a payer on the page. */
export type Channel = 'api' | 'page';

/** The (wallet, asset) pairs of a link its wallets still enable: what a payer may be asked to pay in. */
export async function takenNow(deps: Pick<SessionDeps, 'enabledOf'>, accepts: store.AcceptRow[]): Promise<store.AcceptRow[]> {
  const enabled = new Map<string, ReadonlySet<string>>();
  for (const walletId of new Set(accepts.map((a) => a.wallet_id))) enabled.set(walletId, await deps.enabledOf(walletId));
  return accepts.filter((a) => enabled.get(a.wallet_id)!.has(a.asset_id));
}

/**
 * The (wallet, asset) of a link a session is for: the one asked for, or the only one that
 * fits, among those its wallet still enables. An asset disabled on the wallet since the link
 * was made is refused (ASSET_NOT_ENABLED): the indexer records no deposit of it, so the payer
 * would pay a session that never sees the payment.
 */
async function choose(deps: SessionDeps, accepts: store.AcceptRow[], input: CreateCheckoutBody) {
  const fits = accepts.filter((a) => {
    if (input.walletId && a.wallet_id !== input.walletId) return false;
    if (!input.asset) return true;
    const asset = deps.catalogue.asset(a.asset_id);
    return a.asset_id === input.asset || asset?.row.symbol.toUpperCase() === input.asset.toUpperCase();
  });
  const field = input.asset ? 'asset' : 'walletId';
  if (fits.length === 0)
    throw new BusinessRuleError('ASSET_NOT_ACCEPTED', 'This payment link does not take that wallet and asset', [
      { field, message: 'not accepted by the link' },
    ]);
  const live = await takenNow(deps, fits);
  if (live.length === 1) return live[0]!;
  if (live.length === 0) {
    const names = [...new Set(fits.map((a) => deps.catalogue.asset(a.asset_id)?.row.symbol ?? a.asset_id))].join(', ');
    throw new BusinessRuleError('ASSET_NOT_ENABLED', `${names} is no longer enabled on the wallet: this link cannot take it now`, [
      { field, message: 'not enabled on the wallet' },
    ]);
  }
  throw new ValidationError('Choose the network and asset: this link takes several (walletId and asset)', [
    { field: 'asset', message: `one of ${live.map((a) => `${a.wallet_id}/${deps.catalogue.asset(a.asset_id)?.row.symbol}`).join(', ')}` },
  ]);
}

/**
 * Starts a session on an open link: a child address of the chosen wallet whose metadata
 * names the link and the session (so its deposits' webhooks carry them), the amount in the
 * asset's base units, the deadlines. A payer on the page may choose the amount only when
 * the link has none; the merchant (API) may set any.
 */
export async function startSession(
  deps: SessionDeps,
  link: store.LinkRow,
  accepts: store.AcceptRow[],
  input: CreateCheckoutBody,
  channel: Channel,
): Promise<store.CheckoutRow> {
  if (!isOpen(link)) throw inactive(link);
  checkRedirectUrl(input.redirectUrl);
  const pick = await choose(deps, accepts, input);
  const asset = deps.catalogue.asset(pick.asset_id)!;
  const given = channel === 'api' ? (input.amount ?? link.amount) : (link.amount ?? input.amount);
  if (!given)
    throw new ValidationError('amount is required: this link lets the payer choose it', [{ field: 'amount', message: 'required' }]);
  const amount = parseAmount(given, asset.row.decimals, 'amount');
  if (amount === 0n) throw new ValidationError('amount must be more than 0', [{ field: 'amount', message: 'must be positive' }]);
  const terms = configurationsOf(link.configurations);
  const id = uuidv7();
  const now = deps.clock.now();
  // Checked before an address is issued, and again under the link's lock as the session is
  // written (two payers starting at once); between the two, a refusal leaves the issued
  // address unused.
  if (link.payment_limit !== null && (await store.heldPayments(deps.db, link.id, now)) >= link.payment_limit)
    throw full(link.payment_limit);
  const expiresAt = new Date(now.getTime() + terms.expiresInMinutes * 60_000);
  // Issued for the link's business (the payer holds no key): a child address like any other.
  const address = await deps.addresses.create({ keyId: 'checkout', businessId: link.business_id, walletId: null }, pick.wallet_id, {
    name: `checkout ${id}`,
    metadata: {
      ...(link.metadata ?? {}),
      ...(input.metadata ?? {}),
      paymentLinkId: link.id,
      checkoutId: id,
      ...(input.reference ? { reference: input.reference } : {}),
    },
  });
  return deps.db.transaction().execute(async (tx) => {
    const limit = await store.lockLinkLimit(tx, link.id);
    if (limit !== null && (await store.heldPayments(tx, link.id, now)) >= limit) throw full(limit);
    return store.insertCheckout(tx, {
      id,
      linkId: link.id,
      businessId: link.business_id,
      walletId: pick.wallet_id,
      assetId: asset.row.id,
      addressId: address.id,
      address: address.address,
      amount,
      threshold: thresholdOf(amount, terms.underpaymentTolerance),
      expiresAt,
      monitorUntil: new Date(expiresAt.getTime() + terms.monitoringMinutes * 60_000),
      paymentReference: paymentRequestsOf(asset)?.newReference?.() ?? null,
      reference: input.reference ?? null,
      email: input.email ?? null,
      payerName: input.name ?? null,
      redirectUrl: input.redirectUrl ?? null,
      metadata: input.metadata ?? null,
      createdChannel: channel,
      now,
    });
  });
}

/**
 * A link whose paymentLimit is taken: by settled sessions, and by sessions open now that may
 * still settle. Each payer holds a place while paying, so the limit is never passed (a link
 * selling 100 tickets settles 100 at most); a session that expires gives its place back.
 */
function full(limit: number): BusinessRuleError {
  return new BusinessRuleError(
    'PAYMENT_LINK_INACTIVE',
    `All ${limit} payment(s) this link takes are settled or held by payers paying now: try again later`,
  );
}

export function inactive(link: store.LinkRow): BusinessRuleError {
  return new BusinessRuleError('PAYMENT_LINK_INACTIVE', link.inactive_message || 'This payment link no longer takes payments');
}

/**
 * Moves a session on from its payments and the clock, in one transaction under its row lock:
 * the new state and its webhook events (the wallet's URL) commit together, or not at all.
 * Safe to repeat: a state already reached tells nothing again.
 */
export async function recompute(deps: SessionDeps, id: string, slugOf: (linkId: string, tx: DbConn) => Promise<string>): Promise<void> {
  await deps.db.transaction().execute(async (tx) => {
    const row = await store.findCheckout(tx, id, true);
    if (!row) return;
    let totals = await store.totalsOf(tx, id);
    const now = deps.clock.now();
    const before = {
      status: row.status,
      partial: row.partial,
      overpaid: row.overpaid,
      paidLate: row.paid_late,
      seenBefore: { seenInTime: BigInt(row.seen_in_time), seenLate: BigInt(row.seen_late), confirmedInTime: 0n },
    };
    const terms = {
      amount: BigInt(row.amount),
      threshold: BigInt(row.threshold),
      expiresAt: row.expires_at,
      monitorUntil: row.monitor_until,
    };
    let { state, events } = nextState(before, terms, totals, now);
    // Expiring says nothing was seen in time, but a deposit the indexer saw before the deadline
    // may still be in its open transaction (attached there, its row holding a key share on the
    // session: store.queuePayments), invisible here. Expired only once no such transaction is
    // in flight: the strong lock conflicts with that key share, and skipping it leaves the
    // session to the checkout_payments job that transaction queues (or the next tick).
    // The same for `invalid` (the window over, nothing confirmed in it): that transaction may be
    // the one confirming the payment within the window.
    if ((state.status === 'expired' || state.status === 'invalid') && row.status !== state.status) {
      if (!(await store.lockCheckoutAlone(tx, id))) return;
      totals = await store.totalsOf(tx, id);
      ({ state, events } = nextState(before, terms, totals, now));
    }
    const same =
      state.status === row.status &&
      state.partial === row.partial &&
      state.overpaid === row.overpaid &&
      state.paidLate === row.paid_late &&
      totals.seenInTime === BigInt(row.seen_in_time) &&
      totals.seenLate === BigInt(row.seen_late) &&
      totals.confirmed === BigInt(row.amount_confirmed);
    if (same) return;
    await store.updateCheckout(tx, id, {
      ...state,
      seenInTime: totals.seenInTime,
      seenLate: totals.seenLate,
      confirmed: totals.confirmed,
      now,
    });
    if (events.length === 0) return;
    const view = present(deps.catalogue, (await store.findCheckout(tx, id))!, await slugOf(row.link_id, tx), deps.baseUrl());
    for (const name of events) {
      await deps.webhooks.emit(tx, { walletId: row.wallet_id, transactionId: null, name, reference: row.reference ?? row.id, data: view });
    }
  });
}

/**
 * The session's payment URI (the QR code's content) for what is still due; null once nothing
 * is (paid in full, even before its confirmations: a URI then asks the payer to pay again) or
 * the session is closed, and where the family offers no URI scheme.
 */
export function paymentUri(asset: AssetHandle, row: store.CheckoutRow, label?: string): string | null {
  const requests = paymentRequestsOf(asset);
  if (!requests || !owing(row)) return null;
  return requests.uri({
    recipient: row.address,
    token: asset.row.is_native ? null : asset.row.address,
    amount: dueOf(row),
    decimals: asset.row.decimals,
    ...(label ? { label } : {}),
    ...(row.payment_reference ? { reference: row.payment_reference } : {}),
  });
}

/**
 * The asset's chain's payment-request URIs (the paymentRequests capability), or null where
 * its family offers none: the page then shows the address and amount to copy, without a QR code.
 */
function paymentRequestsOf(asset: AssetHandle): PaymentRequests | null {
  const adapter = asset.chain.adapter;
  return offers(adapter, 'paymentRequests') ? capability(adapter, 'paymentRequests') : null;
}

/** Open and short of its amount: the payer is still asked to pay (`amountDue`, the page's instructions, the URI). */
export function owing(row: store.CheckoutRow): boolean {
  return (row.status === 'new' || row.status === 'processing') && dueOf(row) > 0n;
}

export function dueOf(row: store.CheckoutRow): bigint {
  const due = BigInt(row.amount) - BigInt(row.seen_in_time) - BigInt(row.seen_late);
  return due > 0n ? due : 0n;
}

export function present(catalogue: CatalogueService, row: store.CheckoutRow, slug: string, baseUrl: string): CheckoutView {
  const asset = catalogue.asset(row.asset_id)!;
  const d = asset.row.decimals;
  const config = asset.chain.config;
  return {
    id: row.id,
    paymentLinkId: row.link_id,
    url: `${baseUrl}/pay/${slug}/${row.id}`,
    status: row.status,
    partial: row.partial,
    overpaid: row.overpaid,
    paidLate: row.paid_late,
    amount: formatAmount(BigInt(row.amount), d),
    amountPaid: formatAmount(BigInt(row.seen_in_time) + BigInt(row.seen_late), d),
    amountConfirmed: formatAmount(BigInt(row.amount_confirmed), d),
    amountDue: formatAmount(dueOf(row), d),
    currency: asset.row.symbol,
    asset: { id: asset.row.id, symbol: asset.row.symbol, decimals: d, address: asset.row.address },
    blockchain: { slug: config.blockchain.slug, name: config.blockchain.name },
    network: asset.chain.row.network,
    walletId: row.wallet_id,
    address: row.address,
    addressId: row.address_id,
    paymentUri: paymentUri(asset, row),
    paymentReference: row.payment_reference,
    expiresAt: row.expires_at.toISOString(),
    monitorUntil: row.monitor_until.toISOString(),
    reference: row.reference,
    email: row.email,
    name: row.payer_name,
    redirectUrl: row.redirect_url,
    metadata: row.metadata,
    createdChannel: row.created_channel,
    settledAt: row.settled_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
