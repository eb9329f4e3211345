/**
 * In-process queue per key. Requests from one sender wait here, holding no database
 * connection, instead of each holding one while it waits for the sender's advisory lock
 * (which still serialises them across processes): with a pool of 20 connections, 100
 * concurrent withdrawals from one address would otherwise starve every other query.
 */
export class KeyedMutex {
  readonly #tails = new Map<string, Promise<void>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.#tails.set(key, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}
