/**
 * Payment links and checkout sessions (docs/checkout.md): the API's rules, the payer's page's
 * reads and writes, and the work that follows deposits to a session's address.
 */
import type { Db, DbConn } from '../../db/pool.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { NotFoundError } from '../../lib/errors.js';
import { uuidv7 } from '../../lib/ids.js';
import { pageMeta, type PageMeta } from '../../lib/schema.js';
import { assertMayWrite, type AuthContext } from '../apikeys/service.js';
import type { AddressService } from '../addresses/service.js';
import type { WalletAssetService } from '../assets/service.js';
import type { CatalogueService } from '../catalogue/service.js';
import type { WalletService } from '../wallets/service.js';
import type { WebhookService } from '../webhooks/service.js';
import {
  checkAmountFits,
  checkImage,
  checkRedirectUrl,
  configurationsOf,
  isOpen,
  isReservedSlug,
  linkAmount,
  presentLink,
  requireReach,
  resolveAccepts,
  slugFrom,
  slugTaken,
} from './links.js';
import type { CheckoutView, CreateCheckoutBody, CreateLinkBody, PaymentLinkView, UpdateLinkBody } from './schemas.js';
import { present, recompute, startSession, takenNow, type Channel, type SessionDeps } from './sessions.js';
import * as store from './store.js';

export type { CheckoutView, PaymentLinkView } from './schemas.js';
export type { LinkRow, CheckoutRow } from './store.js';
export { isHttpUrl, isOpen } from './links.js';
export { dueOf, owing, paymentUri } from './sessions.js';

/** A link as the payer's page needs it: the row, what it takes now (its wallets still enable), and whether it is open. */
export interface PublicLink {
  link: store.LinkRow;
  accepts: store.AcceptRow[];
  open: boolean;
}

export interface Upload {
  data: Buffer;
}

export class CheckoutService {
  readonly #deps: SessionDeps;
  #baseUrl = '';

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly catalogue: CatalogueService,
    private readonly wallets: WalletService,
    private readonly walletAssets: WalletAssetService,
    addresses: AddressService,
    webhooks: WebhookService,
    private readonly logger: Logger,
  ) {
    this.#deps = {
      db,
      clock,
      catalogue,
      addresses,
      webhooks,
      baseUrl: () => this.#baseUrl,
      enabledOf: async (walletId) => new Set((await walletAssets.enabledCached({ id: walletId })).map((e) => e.asset.row.id)),
    };
  }

  /** Where the pages are served (PUBLIC_URL or the server's address), for `url` fields; relative until set. */
  useBaseUrl(url: string): void {
    this.#baseUrl = url.replace(/\/$/, '');
  }

  // ---- links ---------------------------------------------------------------------------

  async createLink(auth: AuthContext, input: CreateLinkBody, image: Upload | null, channel: 'api' | 'dashboard'): Promise<PaymentLinkView> {
    assertMayWrite(auth);
    checkRedirectUrl(input.redirectUrl);
    if (input.slug !== undefined && isReservedSlug(input.slug)) throw slugTaken();
    const accepted = await resolveAccepts({ wallets: this.wallets, walletAssets: this.walletAssets }, auth, input.accepts);
    const amount = input.amount ? linkAmount(input.amount) : null;
    checkAmountFits(
      amount,
      accepted.map((a) => a.asset),
    );
    const configurations = configurationsOf(null, input.configurations);
    const picture = image ? checkImage(image.data) : null;
    const id = uuidv7();
    const slug = input.slug ?? slugFrom(input.name);
    const link = {
      id,
      businessId: auth.businessId,
      slug,
      name: input.name,
      description: input.description ?? null,
      amount,
      paymentLimit: input.paymentLimit ?? null,
      redirectUrl: input.redirectUrl ?? null,
      successMessage: input.successMessage || null,
      inactiveMessage: input.inactiveMessage || null,
      metadata: input.metadata ?? null,
      image: picture,
      configurations,
      network: accepted[0]!.asset.chain.row.network,
      createdChannel: channel,
      now: this.clock.now(),
      accepts: accepted.map((a) => ({ walletId: a.wallet.id, assetId: a.asset.row.id })),
    };
    // The link, what it accepts and its claim on the slug commit together.
    await this.db.transaction().execute(async (tx) => {
      if (!(await store.insertLink(tx, link)) || !(await store.claimSlug(tx, slug, auth.businessId, id))) throw slugTaken();
    });
    return this.getLink(auth, id);
  }

  async getLink(auth: AuthContext, id: string): Promise<PaymentLinkView> {
    const { link, accepts } = await this.#reach(auth, id);
    return presentLink(link, accepts, this.catalogue, this.#baseUrl);
  }

  async listLinks(auth: AuthContext, page: number, limit: number): Promise<{ items: PaymentLinkView[]; meta: PageMeta }> {
    const { rows, total } = await store.listLinks(this.db, auth.businessId, auth.walletId, (page - 1) * limit, limit);
    const accepts = await store.acceptsOf(
      this.db,
      rows.map((r) => r.id),
    );
    const items = rows.map((r) => presentLink(r, accepts, this.catalogue, this.#baseUrl));
    return { items, meta: pageMeta(page, limit, items.length, total) };
  }

  async updateLink(auth: AuthContext, id: string, input: UpdateLinkBody, image: Upload | null): Promise<PaymentLinkView> {
    assertMayWrite(auth);
    checkRedirectUrl(input.redirectUrl);
    if (input.slug !== undefined && isReservedSlug(input.slug)) throw slugTaken();
    await this.db.transaction().execute(async (tx) => {
      const accepts = await store.acceptsOf(tx, [id]);
      const link = requireReach(auth, await store.findLink(tx, id, true), accepts);
      const amount = input.amount === undefined ? undefined : input.amount === '' ? null : linkAmount(input.amount);
      if (amount)
        checkAmountFits(
          amount,
          accepts.flatMap((a) => this.catalogue.asset(a.asset_id) ?? []),
        );
      const ok = await store.updateLink(
        tx,
        id,
        {
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.description !== undefined ? { description: input.description || null } : {}),
          ...(amount !== undefined ? { amount } : {}),
          ...(input.paymentLimit !== undefined ? { paymentLimit: input.paymentLimit } : {}),
          ...(input.redirectUrl !== undefined ? { redirectUrl: input.redirectUrl } : {}),
          ...(input.successMessage !== undefined ? { successMessage: input.successMessage || null } : {}),
          ...(input.inactiveMessage !== undefined ? { inactiveMessage: input.inactiveMessage || null } : {}),
          ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
          ...(input.slug !== undefined ? { slug: input.slug } : {}),
          ...(input.active !== undefined ? { active: input.active } : {}),
          ...(input.configurations !== undefined ? { configurations: configurationsOf(link.configurations, input.configurations) } : {}),
          ...(image ? { image: checkImage(image.data) } : {}),
        },
        this.clock.now(),
      );
      if (!ok) throw slugTaken();
      // A slug another business held before (renamed away since) is still theirs.
      if (input.slug !== undefined && !(await store.claimSlug(tx, input.slug, link.business_id, id))) throw slugTaken();
    });
    return this.getLink(auth, id);
  }

  // ---- sessions --------------------------------------------------------------------------

  /** The merchant starts a session for a payer (the API: any amount, the payer's details). */
  async createCheckout(auth: AuthContext, linkId: string, input: CreateCheckoutBody): Promise<CheckoutView> {
    assertMayWrite(auth);
    const { link, accepts } = await this.#reach(auth, linkId);
    const row = await startSession(this.#deps, link, accepts, input, 'api');
    return present(this.catalogue, row, link.slug, this.#baseUrl);
  }

  /** A session, its deadlines applied first (a read never shows a session past its deadline as open). */
  async getCheckout(auth: AuthContext, id: string): Promise<CheckoutView> {
    const row = await this.#fresh(id);
    if (!row || row.business_id !== auth.businessId || (auth.walletId !== null && row.wallet_id !== auth.walletId))
      throw new NotFoundError('Checkout');
    return present(this.catalogue, row, await this.#slug(row.link_id), this.#baseUrl);
  }

  async listCheckouts(auth: AuthContext, linkId: string, page: number, limit: number): Promise<{ items: CheckoutView[]; meta: PageMeta }> {
    const { link } = await this.#reach(auth, linkId);
    const { rows, total } = await store.listCheckouts(this.db, link.id, (page - 1) * limit, limit);
    const items = rows.map((r) => present(this.catalogue, r, link.slug, this.#baseUrl));
    return { items, meta: pageMeta(page, limit, items.length, total) };
  }

  // ---- the payer's page (no API key: the slug and the session id are what the payer holds) ----

  async publicLink(slug: string): Promise<PublicLink | null> {
    const link = await store.findLinkBySlug(this.db, slug);
    if (!link) return null;
    // What its wallets no longer enable is not offered: the indexer would not record its payment.
    const accepts = await takenNow(this.#deps, await store.acceptsOf(this.db, [link.id]));
    return { link, accepts, open: isOpen(link) && accepts.length > 0 };
  }

  async startFromPage(slug: string, input: CreateCheckoutBody): Promise<store.CheckoutRow> {
    const found = await this.publicLink(slug);
    if (!found) throw new NotFoundError('Payment link');
    return startSession(this.#deps, found.link, found.accepts, input, 'page' satisfies Channel);
  }

  /**
   * A session of the link named by `slug`, its deadlines applied; null when there is none.
   * The slug may be one the link was renamed away from: the URL a payer was given (in an
   * email, a QR code on a screen) keeps working until a link of the business takes it again.
   */
  async publicCheckout(slug: string, id: string): Promise<{ link: store.LinkRow; row: store.CheckoutRow; view: CheckoutView } | null> {
    const stored = await store.findCheckout(this.db, id);
    const link = stored ? await store.findLink(this.db, stored.link_id) : undefined;
    if (!stored || !link) return null;
    // Checked before the deadlines are applied: a stranger's guess moves no session on.
    if (link.slug.toLowerCase() !== slug.toLowerCase() && !(await store.holdsSlug(this.db, slug, link.id))) return null;
    const row = await this.#fresh(id, stored);
    if (!row) return null;
    return { link, row, view: present(this.catalogue, row, link.slug, this.#baseUrl) };
  }

  async image(linkId: string): Promise<{ image: Buffer; image_type: string } | undefined> {
    return store.imageOf(this.db, linkId);
  }

  /** Rows of sessions as stored (the live page's poll); deadlines applied to those past them. */
  async rows(ids: string[]): Promise<store.CheckoutRow[]> {
    const rows = await store.findCheckouts(this.db, ids);
    const now = this.clock.now();
    const due = rows.filter((r) => isDue(r, now));
    if (due.length === 0) return rows;
    for (const r of due) await this.recompute(r.id);
    return store.findCheckouts(this.db, ids);
  }

  // ---- after deposits, and on the clock --------------------------------------------------

  /** deposit.recorded and deposit.confirmed, in the indexer's transaction: deposits to sessions' addresses attached, and a job to move the sessions on. */
  queuePayments(tx: DbConn, depositIds: string[]): Promise<void> {
    return store.queuePayments(tx, depositIds, this.clock.now());
  }

  /** Job checkout_payments: the sessions moved on (the deposits attached, if queuePayments has not: first sighting kept). */
  async takePayments(depositIds: string[], seenAt: Date): Promise<void> {
    const ids = await store.attachPayments(this.db, depositIds, seenAt);
    // One range's deposits may pay sessions of many businesses: the job fails (and is
    // retried) after moving on all the others.
    const [failed] = await this.#recomputeAll(ids);
    if (failed) throw failed.err;
  }

  /** Job checkouts_tick: sessions past a deadline, page by page until none is left. */
  async tick(page = 500): Promise<number> {
    const now = this.clock.now();
    const failed: { id: string; err: unknown }[] = [];
    let seen = 0;
    for (let after: store.DueCheckout | undefined; ;) {
      const due = await store.dueCheckouts(this.db, now, page, after);
      failed.push(...(await this.#recomputeAll(due.map((d) => d.id))));
      seen += due.length;
      if (due.length < page) break;
      after = due[due.length - 1];
    }
    // A failing session stays due: the next tick, or a read of it, tries again.
    if (failed.length > 0) {
      const err = failed[0]!.err;
      this.logger.error(
        { count: failed.length, first: failed.slice(0, 5).map((f) => f.id), err: err instanceof Error ? err.message : String(err) },
        'checkout sessions not moved on',
      );
    }
    return seen;
  }

  /**
   * Moves each session on, one failing (say its asset left the catalogue) not stopping the
   * others, of every business, behind it; answers the failures.
   */
  async #recomputeAll(ids: string[]): Promise<{ id: string; err: unknown }[]> {
    const failed: { id: string; err: unknown }[] = [];
    for (const id of ids) await this.recompute(id).catch((err: unknown) => failed.push({ id, err }));
    return failed;
  }

  recompute(id: string): Promise<void> {
    return recompute(this.#deps, id, (linkId, tx) => this.#slug(linkId, tx));
  }

  /** The session, its deadlines applied; `read`: as just read, when the caller has it. */
  async #fresh(id: string, read?: store.CheckoutRow): Promise<store.CheckoutRow | undefined> {
    const row = read ?? (await store.findCheckout(this.db, id));
    if (!row || !isDue(row, this.clock.now())) return row;
    await this.recompute(id);
    return store.findCheckout(this.db, id);
  }

  async #slug(linkId: string, db: DbConn = this.db): Promise<string> {
    return (await store.findLink(db, linkId))!.slug;
  }

  async #reach(auth: AuthContext, id: string) {
    const accepts = await store.acceptsOf(this.db, [id]);
    const link = requireReach(auth, await store.findLink(this.db, id), accepts);
    return { link, accepts };
  }
}

/** An open session one of whose deadlines has passed (the tick's and every read's business). */
function isDue(row: store.CheckoutRow, now: Date): boolean {
  if (row.status !== 'new' && row.status !== 'processing') return false;
  const t = now.getTime();
  return (t >= row.expires_at.getTime() && BigInt(row.seen_in_time) < BigInt(row.threshold)) || t >= row.monitor_until.getTime();
}
