/**
 * AML screening (docs/aml.md): every address a payout goes to, and every deposit's sender,
 * checked against the lists in force on its chain, results combined.
 *
 * - Payouts (withdrawals, batch items, sign-only, contract transfers, auto-settlement
 *   destinations, beneficiaries when saved and when paid): `checkPayout` before anything is
 *   reserved or signed. A listed address is 422 AML_BLOCKED naming the list, recorded in the
 *   audit log, nothing else written. A provider that did not answer is 503 AML_UNAVAILABLE
 *   (the wallet's `onProviderFailure` BLOCK, the default), or lets the payout through with
 *   `amlScreening.status` NOT_SCREENED (ALLOW).
 * - Deposits: `depositScreener` before the indexer's range is recorded. A listed sender's
 *   deposit is credited all the same (the money is on chain), `amlScreening.status`
 *   FLAGGED, and held (`onDepositHit` HOLD, the default): not swept, auto-settled or settled
 *   until an operator releases it (`release`). One whose providers did not answer is
 *   NOT_SCREENED, held when the wallet fails closed, and screened again by a job.
 */
import type { Db, DbConn } from '../../db/pool.js';
import type { Changes } from '../../db/changes.js';
import type { Events } from '../../events.js';
import { BusinessRuleError, ConflictError, ForbiddenError, NotFoundError, UpstreamError, ValidationError } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import { addressKey } from '../../chains/address-key.js';
import type { AuthContext } from '../apikeys/service.js';
import type { AuditService } from '../audit/service.js';
import type { CatalogueService, ChainHandle } from '../catalogue/service.js';
import type { TransactionService, TransactionView } from '../transactions/service.js';
import { normaliseConfigurations, type WalletRow, type WalletService } from '../wallets/service.js';
import { OfflineLists } from './lists.js';
import { onChainProviders, type ScreeningProvider } from './providers.js';
import { ProviderRunner, type ProviderHealth, type RunnerOptions } from './runner.js';
import * as store from './store.js';
import { presentScreening, listLabel, type AmlScreening, type AmlSettings, type ScreeningResult } from './types.js';

export type { AmlScreening, AmlSettings, ScreeningResult } from './types.js';
export { combineScreenings } from './types.js';
export type { ScreeningProvider } from './providers.js';
export { httpProvider, type HttpProviderConfig } from './http-provider.js';
export { importList } from './lists.js';
export { parseListFile } from './sdn.js';

export interface AmlOptions {
  /** A provider's answer may take this long, then it counts as failed (default 5 s). */
  timeoutMs?: number;
  /** How long an answer is reused per (chain, address, provider) (default 60 s). */
  cacheTtlMs?: number;
  /** After a failure, how long calls fail at once before the provider is tried again (default 10 s). */
  retryMs?: number;
  /** Providers plugged in (an HTTP API: http-provider.ts), besides the lists and the on-chain reads. */
  providers?: ScreeningProvider[];
  /** How often the offline lists' versions are compared (default 30 s; notices make it sooner). */
  listRefreshMs?: number;
}

export interface AmlDeps {
  db: Db;
  catalogue: CatalogueService;
  wallets: WalletService;
  transactions: TransactionService;
  audit: AuditService;
  events: Events;
  changes: Changes;
  logger: Logger;
}

/** Who is paid, and under which field of the request (named in the 422). */
export interface PayoutRecipient {
  address: string;
  field: string;
}

/** What screening says of a deposit: its amlScreening, whether it is held, whether to screen it again. */
export interface DepositVerdict {
  screening: AmlScreening;
  held: boolean;
  rescreen: boolean;
}

/**
 * The verdict for a deposit credited to `walletId` whose money came from `senders` (its
 * `from`, then any other payer of its transaction: TransferEvent.payers), all screened: one
 * listed flags it (undefined: not screened, no providers).
 */
export type DepositScreener = (senders: readonly string[], walletId: string) => DepositVerdict | undefined;

const ZERO_PROBE: Record<string, string> = { evm: '0x0000000000000000000000000000000000000001' };

export class AmlService {
  readonly lists: OfflineLists;
  readonly #runners = new Map<string, ProviderRunner[]>();
  readonly #runnerOpts: RunnerOptions;
  readonly #extra: ScreeningProvider[];

  constructor(
    private readonly deps: AmlDeps,
    opts: AmlOptions = {},
  ) {
    this.lists = new OfflineLists(deps.db, deps.logger, opts.listRefreshMs);
    this.#runnerOpts = { timeoutMs: opts.timeoutMs ?? 5_000, cacheTtlMs: opts.cacheTtlMs ?? 60_000, retryMs: opts.retryMs ?? 10_000 };
    this.#extra = opts.providers ?? [];
  }

  async start(): Promise<void> {
    await this.lists.start(this.deps.changes);
  }

  close(): void {
    this.lists.close();
  }

  /** The providers in force on a chain, in the order they are consulted. */
  providersOf(chain: ChainHandle): string[] {
    return [...this.lists.sources(), ...this.#runnersOf(chain).map((r) => r.name)];
  }

  /** Settings of a wallet (its configurations.aml). */
  settingsOf(wallet: Pick<WalletRow, 'configurations'>): AmlSettings {
    const { onDepositHit, onProviderFailure } = normaliseConfigurations(wallet.configurations).aml;
    return { onDepositHit, onProviderFailure };
  }

  /** Every address through every provider of the chain; never throws (a failing provider is in `failed`). */
  async screen(chain: ChainHandle, addresses: readonly string[]): Promise<ScreeningResult[]> {
    const sources = this.lists.sources();
    const runners = this.#runnersOf(chain);
    const unique = [...new Map(addresses.map((a) => [addressKey(a), a])).values()];
    // Only addresses of the chain go to the providers: one that is none makes a provider call
    // fail, and its runner remembers a failure for every screening on the chain, of every
    // wallet and business (runner.ts retryMs). Such an address is not screened, alone.
    const valid = unique.filter((a) => chain.adapter.normalizeAddress(a) !== null);
    const at = new Map(valid.map((a, i) => [a, i]));
    const answers = await Promise.all(
      runners.map((r) =>
        r.screen(valid).then(
          (listed) => ({ listed }),
          (err: Error) => ({ error: err.message }),
        ),
      ),
    );
    const checkedAt = new Date();
    const byKey = new Map<string, ScreeningResult>();
    unique.forEach((address) => {
      const lists = sources.filter((s) => this.lists.has(s, address));
      const failed: ScreeningResult['failed'] = [];
      const i = at.get(address);
      runners.forEach((r, j) => {
        const a = answers[j]!;
        if (i === undefined) failed.push({ provider: r.name, error: `not a ${chain.config.blockchain.slug} address` });
        else if ('error' in a) failed.push({ provider: r.name, error: a.error });
        else if (a.listed[i]) lists.push(r.name);
      });
      const providers = [...sources, ...runners.map((r) => r.name)];
      const status = lists.length > 0 ? 'FLAGGED' : failed.length > 0 || providers.length === 0 ? 'NOT_SCREENED' : 'CLEAR';
      byKey.set(addressKey(address), { address, status, providers, lists, failed, checkedAt });
    });
    return addresses.map((a) => ({ ...byKey.get(addressKey(a))!, address: a }));
  }

  /** GET /v1/aml/lookup and /v1/wallets/{id}/aml/lookup. */
  async lookup(
    auth: AuthContext,
    q: { address: string; blockchain?: string | undefined; network?: string | undefined; walletId?: string | undefined },
  ): Promise<AmlScreening & { address: string; blockchain: string; network: string }> {
    const chain = await this.#chainOf(auth, q);
    const address = chain.adapter.normalizeAddress(q.address.trim());
    if (!address)
      throw new ValidationError(`address is not a valid ${chain.config.blockchain.name} address`, [
        { field: 'address', message: `not a valid ${chain.config.blockchain.slug} address` },
      ]);
    const [result] = await this.screen(chain, [address]);
    return { address, blockchain: chain.config.blockchain.slug, network: chain.row.network, ...presentScreening(result!) };
  }

  /**
   * Screens the recipients of a payout before anything is reserved or signed. Throws
   * AML_BLOCKED (422) for a listed one, after recording the attempt in the audit log, and
   * AML_UNAVAILABLE (503) when a provider did not answer and the wallet fails closed.
   * Returns each recipient's screening (in order), to be stored on its Transaction.
   */
  async checkPayout(p: {
    wallet: Pick<WalletRow, 'id' | 'business_id' | 'configurations'>;
    chain: ChainHandle;
    recipients: PayoutRecipient[];
    /** What was being paid: 'withdraw', 'withdraw-sign', 'contract-write', 'auto-settlement', 'beneficiary', ... */
    operation: string;
    actor: string;
    requestId?: string | undefined;
  }): Promise<AmlScreening[]> {
    if (p.recipients.length === 0) return [];
    const results = await this.screen(
      p.chain,
      p.recipients.map((r) => r.address),
    );
    const hits = results.flatMap((r, i) => (r.status === 'FLAGGED' ? [{ r, at: p.recipients[i]! }] : []));
    if (hits.length > 0) {
      await this.deps.audit.record({
        businessId: p.wallet.business_id,
        walletId: p.wallet.id,
        actor: p.actor,
        action: 'aml.blocked',
        targetType: 'wallet',
        targetId: p.wallet.id,
        details: {
          operation: p.operation,
          chain: p.chain.key,
          hits: hits.map(({ r, at }) => ({ address: at.address, field: at.field, lists: r.lists })),
        },
        ...(p.requestId ? { requestId: p.requestId } : {}),
      });
      const first = hits[0]!;
      throw new BusinessRuleError(
        'AML_BLOCKED',
        `${first.at.address} is on ${first.r.lists.map(listLabel).join(', ')} (AML screening): nothing was sent or signed`,
        hits.map(({ r, at }) => ({ field: at.field, message: `on ${r.lists.join(', ')}` })),
      );
    }
    const unscreened = results.filter((r) => r.failed.length > 0);
    if (unscreened.length > 0 && this.settingsOf(p.wallet).onProviderFailure === 'BLOCK') {
      const failed = [...new Map(unscreened.flatMap((r) => r.failed).map((f) => [f.provider, f])).values()];
      throw new UpstreamError(
        'AML_UNAVAILABLE',
        `AML screening could not be completed (${failed.map((f) => `${f.provider}: ${f.error}`).join('; ')}); ` +
          'payouts wait until every provider answers (the wallet fails closed)',
      );
    }
    return results.map(presentScreening);
  }

  /**
   * Screens the senders of a range's deposits (before its database transaction) and returns
   * the verdict per sender and credited wallet. The wallets' settings are read only when a
   * sender is listed or went unscreened.
   */
  async depositScreener(chain: ChainHandle, deposits: { from: string; walletIds: readonly string[] }[]): Promise<DepositScreener> {
    if (deposits.length === 0 || this.providersOf(chain).length === 0) return () => undefined;
    const results = await this.screen(
      chain,
      deposits.map((d) => d.from),
    );
    const byKey = new Map(results.map((r) => [addressKey(r.address), r]));
    const concerned = results.some((r) => r.status !== 'CLEAR')
      ? [...new Set(deposits.filter((d) => byKey.get(addressKey(d.from))!.status !== 'CLEAR').flatMap((d) => d.walletIds))]
      : [];
    const settings = new Map(
      [...(await store.walletConfigurations(this.deps.db, concerned))].map(([id, c]) => [
        id,
        this.settingsOf({ configurations: c as Record<string, unknown> }),
      ]),
    );
    return (senders, walletId) => {
      const found = senders.map((a) => byKey.get(addressKey(a)));
      if (found.some((r) => r === undefined)) return undefined;
      return verdict(combined(found as ScreeningResult[]), settings.get(walletId), senders);
    };
  }

  /** Queues the re-screen of deposits that went unscreened (in the range's transaction). */
  queueRescreen(tx: DbConn, depositIds: string[]): Promise<void> {
    return store.enqueueRescreen(tx, depositIds);
  }

  /**
   * Job aml_rescreen_deposits: screens again the deposits whose providers did not answer.
   * Still unanswered: throws, and the job is retried later. Answered: the screening is
   * stored; a deposit found clear, or listed on a wallet that only flags, is no longer held
   * and its treasury work (sweep, settlements) is queued again (deposit.confirmed).
   */
  async rescreenDeposits(depositIds: string[]): Promise<void> {
    const rows = (await store.deposits(this.deps.db, depositIds)).filter(
      (d) => d.type === 'DEPOSIT' && d.sender_address && (d.aml_screening as { status?: string } | null)?.status === 'NOT_SCREENED',
    );
    const pending: string[] = [];
    for (const d of rows) {
      const chain = this.deps.catalogue.chain(d.chain_id);
      // Every payer screened when it was recorded (`senders`), or its sender alone.
      const stored = (d.aml_screening as { senders?: unknown }).senders;
      const senders = Array.isArray(stored) && stored.length > 0 ? stored.map(String) : [d.sender_address!];
      const r = combined(await this.screen(chain, senders));
      if (r.failed.length > 0 && r.status !== 'FLAGGED') {
        pending.push(d.id);
        continue;
      }
      const wallet = await this.deps.wallets.requireRow(d.wallet_id);
      const v = verdict(r, this.settingsOf(wallet), senders);
      await this.deps.db.transaction().execute(async (tx) => {
        // Released by an operator while it waited: what is found now is recorded, but the
        // release stands (it was the operator's call, and the deposit may have been swept and
        // settled since: held again, it would stop every later sweep of the address's asset).
        const [now] = await store.deposits(tx, [d.id], { lock: true }); // a release waits, or is seen
        const release = releaseOf(now?.aml_screening ?? null);
        const held = release ? false : v.held;
        const screening = { ...v.screening, held, ...(release ?? {}) };
        if (!(await this.deps.transactions.setDepositScreening(tx, d.id, 'not-screened', screening, held))) return;
        // Its status as it is now, under the lock: a deposit read PENDING before the providers
        // answered may have been confirmed meanwhile, held, its sweep and settlements leaving it;
        // judged by the stale read, nothing would ever queue them again.
        if (!held && !release && now?.status === 'SUCCESS') await this.deps.events.emit('deposit.confirmed', tx, { depositIds: [d.id] });
      });
    }
    if (pending.length > 0) throw new Error(`AML providers still do not answer for ${pending.length} deposit(s); retrying later`);
  }

  /**
   * POST .../transactions/{id}/aml/release: an operator releases a held deposit (a business
   * key or the dashboard). Its screening keeps what was found, with who released it and
   * when; recorded in the audit log; a confirmed deposit's sweep and settlements are queued
   * again (deposit.confirmed, whose subscribers only queue idempotent jobs).
   */
  async release(auth: AuthContext, walletId: string, transactionId: string, requestId?: string): Promise<TransactionView> {
    if (auth.walletId !== null)
      throw new ForbiddenError('A wallet API key cannot release a held deposit; use the business API key or the dashboard');
    const wallet = await this.deps.wallets.require(auth, walletId);
    await this.deps.db.transaction().execute(async (tx) => {
      // Locked: a confirmation committing between this read and the release must be seen (its
      // status decides whether the release queues the deposit's sweep and settlements).
      const [d] = await store.deposits(tx, [transactionId], { lock: true });
      if (!d || d.wallet_id !== wallet.id) throw new NotFoundError('Transaction');
      if (d.type !== 'DEPOSIT') throw new BusinessRuleError('NOT_A_DEPOSIT', 'Only deposits are held by AML screening');
      if (!d.aml_held) throw new ConflictError('NOT_HELD', 'This deposit is not held by AML screening');
      const actor = auth.keyId.startsWith('dashboard') ? auth.keyId : `api-key:${auth.keyId}`;
      const screening = { ...(d.aml_screening ?? {}), held: false, releasedAt: new Date().toISOString(), releasedBy: actor };
      if (!(await this.deps.transactions.setDepositScreening(tx, d.id, 'held', screening, false)))
        throw new ConflictError('NOT_HELD', 'This deposit is not held by AML screening');
      await this.deps.audit.record(
        {
          businessId: wallet.business_id,
          walletId: wallet.id,
          actor,
          action: 'aml.released',
          targetType: 'transaction',
          targetId: d.id,
          details: { sender: d.sender_address, screening: d.aml_screening },
          ...(requestId ? { requestId } : {}),
        },
        tx,
      );
      if (d.status === 'SUCCESS') await this.deps.events.emit('deposit.confirmed', tx, { depositIds: [d.id] });
    });
    return this.deps.transactions.get(auth, walletId, transactionId);
  }

  /**
   * For /readyz: each provider's last answer or failure (a provider nobody asked for a while
   * is asked now, within `waitMs`), and the offline lists.
   */
  async health(waitMs = 2_500): Promise<{ providers: ProviderHealth[]; lists: ReturnType<OfflineLists['info']> }> {
    const runners = this.deps.catalogue.chains().flatMap((c) => this.#runnersOf(c));
    const probes = runners.filter((r) => r.idleFor(30_000)).map((r) => r.probe(probeAddress(r.chain)).catch(() => undefined));
    if (probes.length > 0) await Promise.race([Promise.all(probes), new Promise((resolve) => setTimeout(resolve, waitMs).unref())]);
    return { providers: runners.map((r) => r.health()), lists: this.lists.info() };
  }

  /** Forgets cached answers (tests; an operator's list change on chain shows after the cache's TTL otherwise). */
  clearCache(): void {
    for (const runners of this.#runners.values()) for (const r of runners) r.clear();
  }

  #runnersOf(chain: ChainHandle): ProviderRunner[] {
    let runners = this.#runners.get(chain.id);
    if (!runners) {
      const providers = [...onChainProviders(chain), ...this.#extra.filter((p) => p.covers(chain))];
      runners = providers.map((p) => new ProviderRunner(p, chain, this.#runnerOpts));
      this.#runners.set(chain.id, runners);
    }
    return runners;
  }

  async #chainOf(
    auth: AuthContext,
    q: { blockchain?: string | undefined; network?: string | undefined; walletId?: string | undefined },
  ): Promise<ChainHandle> {
    const walletId = q.walletId ?? auth.walletId;
    const own = walletId ? this.deps.wallets.chainOf(await this.deps.wallets.require(auth, walletId)) : null;
    const slug = q.blockchain ?? own?.config.blockchain.slug;
    if (!slug) throw new ValidationError('blockchain is required', [{ field: 'blockchain', message: 'required' }]);
    if (own && own.config.blockchain.slug === slug && (!q.network || q.network === own.row.network)) return own;
    if (q.walletId && own)
      throw new ValidationError(`blockchain must be the wallet's (${own.config.blockchain.slug})`, [
        { field: 'blockchain', message: `not the wallet's blockchain (${own.config.blockchain.slug})` },
      ]);
    const candidates = this.deps.catalogue
      .chains()
      .filter((c) => c.config.blockchain.slug === slug && (!q.network || c.row.network === q.network));
    if (candidates.length === 0)
      throw new ValidationError(`blockchain "${slug}"${q.network ? ` (${q.network})` : ''} is not configured on this installation`, [
        {
          field: q.network && this.deps.catalogue.chains().some((c) => c.config.blockchain.slug === slug) ? 'network' : 'blockchain',
          message: 'not configured (GET /v1/blockchains lists them)',
        },
      ]);
    return candidates.find((c) => c.row.network === 'mainnet') ?? candidates[0]!;
  }
}

/**
 * The verdict on a deposit's senders: with more than one, its screening names them all
 * (`senders`, what the re-screen asks again) and, when listed, which (`address`).
 */
function verdict(r: ScreeningResult, settings: AmlSettings | undefined, senders: readonly string[]): DepositVerdict {
  const s = settings ?? { onDepositHit: 'HOLD', onProviderFailure: 'BLOCK' };
  const held = r.status === 'FLAGGED' ? s.onDepositHit === 'HOLD' : r.failed.length > 0 && s.onProviderFailure === 'BLOCK';
  const named = senders.length > 1 ? { senders: [...senders], ...(r.status === 'FLAGGED' ? { address: r.address } : {}) } : {};
  return { screening: { ...presentScreening(r), ...named, held }, held, rescreen: r.status !== 'FLAGGED' && r.failed.length > 0 };
}

/**
 * Several addresses' screenings as one (a deposit's payers): FLAGGED when any is listed (its
 * address the first listed one), the lists and failures of them all.
 */
function combined(results: ScreeningResult[]): ScreeningResult {
  if (results.length === 1) return results[0]!;
  const first = results.find((r) => r.status === 'FLAGGED') ?? results[0]!;
  const lists = [...new Set(results.flatMap((r) => r.lists))];
  const failed = [...new Map(results.flatMap((r) => r.failed).map((f) => [f.provider, f])).values()];
  const status = lists.length > 0 ? 'FLAGGED' : results.some((r) => r.status === 'NOT_SCREENED') ? 'NOT_SCREENED' : 'CLEAR';
  return { ...first, status, lists, failed };
}

/** Who released a deposit and when (its screening's releasedAt and releasedBy), if an operator did. */
function releaseOf(screening: Record<string, unknown> | null): { releasedAt: string; releasedBy: string } | null {
  const at = screening?.releasedAt;
  const by = screening?.releasedBy;
  return typeof at === 'string' && typeof by === 'string' ? { releasedAt: at, releasedBy: by } : null;
}

/** An address nobody holds, to ask a provider whether it answers at all. */
function probeAddress(chain: ChainHandle): string {
  const family = chain.config.blockchain.family ?? 'evm';
  if (family === 'tron') return 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb';
  if (family === 'solana') return '11111111111111111111111111111111';
  return ZERO_PROBE.evm!;
}
