import type { RequestOptions } from '../core/transport.js';
import type { Meta } from '../core/operations.js';
import { PagePromise } from '../core/pagination.js';
import { EventStream, type StreamOptions } from '../events/stream.js';
import type { EventName, WalletEvent } from '../events/types.js';
import { Resource } from './resource.js';

export interface EventListQuery {
  /** A cursor: only events after it (default: from the oldest). */
  after?: string;
  types?: EventName[];
  walletId?: string;
  /** Per page, 1-100 (default 100). */
  limit?: number;
}

type EventsMeta = Meta<'GET /v1/events'>;

/** The event feed: what the webhooks carry, read in order (`list`) or live (`stream`). */
export class Events extends Resource {
  /** Oldest first; `for await` reads on through every page (`after = meta.nextCursor`). */
  list(query: EventListQuery = {}, opts?: RequestOptions): PagePromise<WalletEvent, EventsMeta, string> {
    return new PagePromise<WalletEvent, EventsMeta, string>(
      async (cursor) => {
        const { types, ...rest } = query;
        const answer = await this.transport.call(
          'GET /v1/events',
          { query: { ...rest, ...(types ? { types: types.join(',') } : {}), ...(cursor ? { after: cursor } : {}) } },
          opts,
        );
        return { data: answer.data as WalletEvent[], meta: answer.meta };
      },
      (page) => (page.meta.hasMore && page.meta.nextCursor ? page.meta.nextCursor : undefined),
    );
  }

  /** Live events (Server-Sent Events), resumed after every reconnect without loss: `for await (const e of client.events.stream())`. */
  stream(opts: StreamOptions = {}): EventStream {
    return new EventStream(this.transport, opts);
  }
}
