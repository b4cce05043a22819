import type { ListPage as Page, WithLastResponse } from './types.js';

/** A page as a list method resolves it: with the answer's `lastResponse` like every other result. */
type ListPage<T> = Page<T> & WithLastResponse;

/**
 * What a `list` method returns: awaited, the first page (`{data, has_more, next_cursor}`); iterated
 * with `for await`, every item of every page, fetching the next page (starting_after = the
 * previous page's next_cursor) only when the loop gets there. Breaking out of the loop stops it.
 */
export class AutoPaginatingList<T> implements PromiseLike<ListPage<T>>, AsyncIterable<T> {
  private first: Promise<ListPage<T>> | null = null;

  constructor(private readonly fetchPage: (startingAfter: string | undefined) => Promise<ListPage<T>>) {}

  private firstPage(): Promise<ListPage<T>> {
    return (this.first ??= this.fetchPage(undefined));
  }

  then<A = ListPage<T>, B = never>(
    onFulfilled?: ((page: ListPage<T>) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.firstPage().then(onFulfilled, onRejected);
  }

  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<ListPage<T> | B> {
    return this.firstPage().catch(onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<ListPage<T>> {
    return this.firstPage().finally(onFinally);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    let page = await this.firstPage();
    for (;;) {
      yield* page.data;
      if (!page.has_more || page.next_cursor === null) return;
      page = await this.fetchPage(page.next_cursor);
    }
  }

  /** Every item, up to `limit` (required: a list can be long). */
  async toArray({ limit }: { limit: number }): Promise<T[]> {
    const items: T[] = [];
    if (limit <= 0) return items;
    for await (const item of this) {
      items.push(item);
      if (items.length >= limit) break;
    }
    return items;
  }
}
