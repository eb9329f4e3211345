/**
 * A wait with an end: for reads made where waiting holds something others need (a sender's
 * lock, a transaction's pool connection). Past `ms` the caller gets `late()`'s error; the
 * read itself is left to end on its own (its result, or failure, then goes nowhere).
 */
export async function withDeadline<T>(read: Promise<T>, ms: number, late: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  read.catch(() => undefined);
  try {
    return await Promise.race([read, expired]);
  } finally {
    clearTimeout(timer);
  }
}
