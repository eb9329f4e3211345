/**
 * Buffers for secrets. Node serves small `Buffer.from(string)`, `Buffer.concat` and
 * `Buffer.allocUnsafe` results from one shared 8 KiB pool: a secret copied there shares
 * memory with unrelated data and cannot be wiped without wiping that data too. Secrets
 * (decrypted seeds, master keys, derived private keys) live in buffers of their own, which
 * their user zeroes when done. JavaScript strings and bigints cannot be wiped; the code
 * keeps secrets out of them where a library lets it.
 */

/** A zero-filled buffer with its own memory (Buffer.alloc never uses the pool). */
export function secretBuffer(size: number): Buffer {
  return Buffer.alloc(size);
}

/** A string's UTF-8 bytes in a buffer of their own. */
export function secretFromString(text: string): Buffer {
  const bytes = secretBuffer(Buffer.byteLength(text, 'utf8'));
  bytes.write(text, 'utf8');
  return bytes;
}

/** Zeroes every buffer given (undefined ones are skipped). */
export function wipe(...buffers: (Uint8Array | undefined | null)[]): void {
  for (const b of buffers) b?.fill(0);
}

/** Runs `use` with the secret, then zeroes it, whatever `use` did. */
export async function using<T>(secret: Buffer, use: (secret: Buffer) => T | Promise<T>): Promise<T> {
  try {
    return await use(secret);
  } finally {
    secret.fill(0);
  }
}
