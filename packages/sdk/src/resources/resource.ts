import type { Transport, RequestOptions } from '../core/transport.js';
import type { CallArgs, Data, Item, Meta, OperationName } from '../core/operations.js';
import { PagePromise, nextPageNumber, type PageMeta } from '../core/pagination.js';

/**
 * A group of operations (`client.wallets`, `client.withdrawals`, …). A method is one line:
 * the operation's name as /openapi.json writes it, and its arguments; the types follow
 * from the name (core/operations.ts). A new group is a file of such lines and one field
 * in client.ts.
 */
export abstract class Resource {
  constructor(protected readonly transport: Transport) {}

  /** The answer's `data`. */
  protected async data<K extends OperationName>(op: K, args: CallArgs<K>, opts?: RequestOptions): Promise<Data<K>> {
    return ((await this.transport.call(op, args, opts)) as { data: Data<K> }).data;
  }

  /** A page-numbered list (`page`, `limit`; `meta.totalPages`): await it or iterate it. */
  protected paged<K extends OperationName>(op: K, args: CallArgs<K>, opts?: RequestOptions): PagePromise<Item<K>, Meta<K>, number> {
    return new PagePromise<Item<K>, Meta<K>, number>(
      async (page) => {
        const query = { ...(args.query as object | undefined), ...(page === undefined ? {} : { page }) };
        const answer = (await this.transport.call(op, { ...args, query } as CallArgs<K>, opts)) as { data: Item<K>[]; meta: Meta<K> };
        return { data: answer.data, meta: answer.meta };
      },
      (p) => nextPageNumber(p as { data: unknown[]; meta: PageMeta }),
    );
  }
}
