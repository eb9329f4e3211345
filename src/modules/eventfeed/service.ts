/**
 * The event feed: every event a wallet's webhooks carry, read in order after a cursor
 * (`GET /v1/events`) or followed live (`GET /v1/events/stream`, Server-Sent Events). The
 * events table (written by modules/webhooks in the transaction of the change it reports)
 * is the source of truth; notifications only wake streams (stream.ts, migration 031).
 *
 * Tenancy: a wallet key reads its wallet's events, a business key those of every wallet of
 * its business (optionally one, `walletId`). A stream ends when its key is revoked.
 */
import type { Db } from '../../db/pool.js';
import type { Changes } from '../../db/changes.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { BusinessRuleError, NotFoundError, RateLimitedError, ValidationError } from '../../lib/errors.js';
import type { AuthContext } from '../apikeys/service.js';
import type { WalletAssetService } from '../assets/service.js';
import type { TransactionService } from '../transactions/service.js';
import type { WalletService } from '../wallets/service.js';
import type { WebhookService } from '../webhooks/service.js';
import { isFeedEvent, type WebhookEventName } from '../webhooks/types.js';
import { START, before, parseCursor, type Position } from './cursor.js';
import { presentEvent, type EventView } from './present.js';
import { sampleTransaction } from './sample.js';
import * as store from './store.js';
import { DEFAULT_STREAM_SETTINGS, EventStream, type CloseReason, type Sink, type StreamSettings } from './stream.js';

export type { EventView } from './present.js';
export { DEFAULT_STREAM_SETTINGS, type StreamSettings } from './stream.js';

export interface EventFeedDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  changes: Changes;
  wallets: WalletService;
  walletAssets: WalletAssetService;
  transactions: TransactionService;
  webhooks: WebhookService;
}

export interface FeedQuery {
  after?: string | undefined;
  types?: string | undefined;
  walletId?: string | undefined;
}

export interface EventsPage {
  items: EventView[];
  meta: { nextCursor: string | null; hasMore: boolean; itemCount: number };
}

/** A stream that passed its checks and holds its key's slot; `start` hands it the connection. */
export interface PreparedStream {
  start(sink: Sink): EventStream;
  /** Gives the slot back when the connection is never started. */
  cancel(): void;
}

export class EventFeedService {
  readonly settings: StreamSettings;
  readonly #byWallet = new Map<string, Set<EventStream>>();
  readonly #byBusiness = new Map<string, Set<EventStream>>();
  readonly #perKey = new Map<string, number>();
  readonly #perBusiness = new Map<string, number>();
  readonly #open = new Set<EventStream>();
  #closing = false;

  constructor(
    private readonly deps: EventFeedDeps,
    settings: Partial<StreamSettings> = {},
  ) {
    this.settings = { ...DEFAULT_STREAM_SETTINGS, ...settings };
    // Sent by the events table's trigger at COMMIT (migration 031), from any process.
    deps.changes.on('events', (walletId) => this.#wakeAll(this.#byWallet.get(walletId)));
    deps.changes.on('business-events', (businessId) => this.#wakeAll(this.#byBusiness.get(businessId)));
  }

  async list(auth: AuthContext, q: FeedQuery & { limit: number }): Promise<EventsPage> {
    const scope = await this.#scope(auth, q.walletId);
    const after = q.after === undefined ? START : parseCursor(q.after, 'after');
    const rows = await store.eventsAfter(this.deps.db, { scope, after, types: parseTypes(q.types), limit: q.limit });
    const items = rows.map(presentEvent);
    return {
      items,
      meta: { nextCursor: items.at(-1)?.cursor ?? q.after ?? null, hasMore: rows.length === q.limit, itemCount: items.length },
    };
  }

  /**
   * Checks a stream request (scope, cursor, types) and takes one of its key's slots: every
   * refusal is thrown here, before the response starts. `Last-Event-ID` wins over `after`;
   * with neither the stream starts with the events still to come.
   */
  async prepareStream(auth: AuthContext, q: FeedQuery, lastEventId: string | undefined): Promise<PreparedStream> {
    const scope = await this.#scope(auth, q.walletId);
    const types = parseTypes(q.types);
    let position: Position;
    if (lastEventId !== undefined && lastEventId !== '') position = parseCursor(lastEventId, 'Last-Event-ID');
    else if (q.after !== undefined) position = parseCursor(q.after, 'after');
    else position = before(await store.currentHorizon(this.deps.db));
    const open = this.#perKey.get(auth.keyId) ?? 0;
    if (open >= this.settings.maxStreamsPerKey) {
      throw new RateLimitedError(
        'STREAM_LIMIT_REACHED',
        `This API key has ${open} event streams open on this server (at most ${this.settings.maxStreamsPerKey}); close one first`,
        5,
      );
    }
    const business = this.#perBusiness.get(auth.businessId) ?? 0;
    if (business >= this.settings.maxStreamsPerBusiness) {
      throw new RateLimitedError(
        'STREAM_LIMIT_REACHED',
        `This business has ${business} event streams open on this server (at most ${this.settings.maxStreamsPerBusiness}, whatever the keys); close one first`,
        5,
      );
    }
    this.#perKey.set(auth.keyId, open + 1);
    this.#perBusiness.set(auth.businessId, business + 1);
    let settled = false;
    const release = () => {
      for (const [map, id] of [
        [this.#perKey, auth.keyId],
        [this.#perBusiness, auth.businessId],
      ] as const) {
        const n = (map.get(id) ?? 1) - 1;
        if (n > 0) map.set(id, n);
        else map.delete(id);
      }
    };
    return {
      start: (sink) => {
        if (settled) throw new Error('this stream was already started or cancelled');
        settled = true;
        const stream = new EventStream({ keyId: auth.keyId, scope, position, types }, sink, {
          db: this.deps.db,
          logger: this.deps.logger,
          settings: this.settings,
          live: () => this.deps.changes.live,
          present: presentEvent,
          stopped: (s) => this.#detach(s),
          released: () => release(),
        });
        this.#attach(stream);
        stream.start();
        if (this.#closing) stream.close('shutdown');
        return stream;
      },
      cancel: () => {
        if (settled) return;
        settled = true;
        release();
      },
    };
  }

  /** Streams reading events in this process (for metrics and tests). */
  get openStreams(): number {
    return this.#open.size;
  }

  /** Ends every stream, telling each client why (the API's shutdown: nothing waits on them). */
  closeAll(reason: CloseReason = 'shutdown'): void {
    this.#closing = reason === 'shutdown' || this.#closing;
    for (const stream of [...this.#open]) stream.close(reason);
  }

  /**
   * A test event of any kind (`webhooks trigger`): a realistic Transaction body marked
   * `"test": true`, written like any event, so it reaches the feed, the streams and (when
   * the wallet has a URL) a signed delivery with its log entry.
   */
  async trigger(auth: AuthContext, walletId: string, event: WebhookEventName): Promise<EventView> {
    const wallet = await this.deps.wallets.require(auth, walletId);
    const chain = this.deps.wallets.chainOf(wallet);
    // A triggered deposit.success is signed with the wallet's real key and reaches its real
    // URL: a receiver that does not know `test` credits money that never came. On a mainnet
    // wallet that is a way for a key that may not move funds alone (policies) to make a
    // merchant pay out; only the harmless webhook.test is sent there.
    if (chain.config.network === 'mainnet' && event !== 'webhook.test') {
      throw new BusinessRuleError(
        'NOT_SUPPORTED',
        'Test events of transaction types are sent for testnet wallets only; on a mainnet wallet trigger webhook.test (or POST .../webhooks/test)',
        [{ field: 'event', message: 'only webhook.test on a mainnet wallet' }],
      );
    }
    const enabled = await this.deps.walletAssets.enabled(wallet);
    const asset = enabled.find((a) => !a.asset.row.is_native) ?? enabled[0] ?? null;
    const row = sampleTransaction({
      event,
      wallet,
      asset,
      network: chain.config.network,
      nativeDecimals: chain.config.blockchain.nativeDecimals,
      confirmations: chain.config.confirmations,
      now: this.deps.clock.now(),
    });
    const data = await this.deps.transactions.present(row);
    const id = await this.deps.db
      .transaction()
      .execute((tx) =>
        this.deps.webhooks.emit(tx, { walletId, transactionId: null, name: event, reference: row.reference, data, test: true }),
      );
    const written = await store.eventById(this.deps.db, { walletId }, id);
    if (!written) throw new Error(`test event ${id} was not found after it was written`);
    return presentEvent(written);
  }

  async #scope(auth: AuthContext, walletId: string | undefined): Promise<store.Scope> {
    if (walletId !== undefined) {
      await this.deps.wallets.require(auth, walletId);
      return { walletId };
    }
    if (auth.walletId) return { walletId: auth.walletId };
    if (!auth.businessId) throw new NotFoundError('Wallet');
    return { businessId: auth.businessId };
  }

  #attach(stream: EventStream): void {
    this.#open.add(stream);
    const { scope } = stream.spec;
    const [map, key] = 'walletId' in scope ? [this.#byWallet, scope.walletId] : [this.#byBusiness, scope.businessId];
    const set = map.get(key) ?? new Set();
    set.add(stream);
    map.set(key, set);
  }

  #detach(stream: EventStream): void {
    this.#open.delete(stream);
    const { scope } = stream.spec;
    const [map, key] = 'walletId' in scope ? [this.#byWallet, scope.walletId] : [this.#byBusiness, scope.businessId];
    const set = map.get(key);
    set?.delete(stream);
    if (set?.size === 0) map.delete(key);
  }

  #wakeAll(streams: Set<EventStream> | undefined): void {
    if (streams) for (const stream of streams) stream.wake();
  }
}

/** `types=a,b` as a list of known event names, or a 400 naming the unknown one. */
function parseTypes(text: string | undefined): string[] | null {
  if (text === undefined) return null;
  const names = [...new Set(text.split(','))];
  const unknown = names.find((n) => !isFeedEvent(n));
  if (unknown !== undefined) {
    throw new ValidationError(`types: unknown event ${JSON.stringify(unknown)}`, [
      { field: 'types', message: `unknown event ${JSON.stringify(unknown)}` },
    ]);
  }
  return names;
}
