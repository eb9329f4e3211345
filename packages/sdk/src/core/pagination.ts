/**
 * Lists: `await` a list call for its first page (`{ data, meta }`), or iterate it with
 * `for await` to get every item of every page, fetched one page at a time as you go.
 */
export interface Page<T, M> {
  data: T[];
  meta: M;
}

export class PagePromise<T, M, C> implements PromiseLike<Page<T, M>>, AsyncIterable<T> {
  #first: Promise<Page<T, M>> | null = null;

  constructor(
    private readonly fetchPage: (cursor: C | undefined) => Promise<Page<T, M>>,
    /** Where the page after this one starts; undefined after the last. */
    private readonly next: (page: Page<T, M>) => C | undefined,
  ) {}

  #firstPage(): Promise<Page<T, M>> {
    return (this.#first ??= this.fetchPage(undefined));
  }

  then<A = Page<T, M>, B = never>(
    onfulfilled?: ((page: Page<T, M>) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#firstPage().then(onfulfilled, onrejected);
  }

  /** Every page in turn, starting with the first. */
  async *pages(): AsyncGenerator<Page<T, M>> {
    let page = await this.#firstPage();
    yield page;
    for (let cursor = this.next(page); cursor !== undefined; cursor = this.next(page)) {
      page = await this.fetchPage(cursor);
      yield page;
    }
  }

  /**
   * Every item once. The lists are pages of a newest-first order: a row written between two
   * page reads shifts the rest down by one, so the next page starts again with the last item
   * already read. Items are told apart by their `id`: one already yielded is skipped.
   */
  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    const seen = new Set<unknown>();
    for await (const page of this.pages()) {
      for (const item of page.data) {
        const id = typeof item === 'object' && item !== null ? (item as { id?: unknown }).id : undefined;
        if (id !== undefined) {
          if (seen.has(id)) continue;
          seen.add(id);
        }
        yield item;
      }
    }
  }

  /** Every item, up to `max` (default 10,000: a guard against reading a huge list by accident). */
  async toArray(max = 10_000): Promise<T[]> {
    const out: T[] = [];
    for await (const item of this) {
      if (out.length >= max) break;
      out.push(item);
    }
    return out;
  }
}

/** Meta of the page-numbered lists (DESIGN section 4). */
export interface PageMeta {
  currentPage: number;
  totalPages: number;
}

export const nextPageNumber = (page: Page<unknown, PageMeta>): number | undefined =>
  page.meta.currentPage < page.meta.totalPages ? page.meta.currentPage + 1 : undefined;
