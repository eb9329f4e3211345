/**
 * The audit log's hash chain (pure): each entry's hash is SHA-256 over the previous entry's
 * hash and the entry's own content in a canonical form, so changing, removing or reordering
 * any entry breaks every link after it. The form is fixed here and computed by the
 * application, never by the database, so a verifier trusts nothing stored beside the data.
 */
import { createHash } from 'node:crypto';

/** The "previous hash" of the first entry. */
export const GENESIS = '0'.repeat(64);

/** What an entry's hash covers: every column but `seq`, `prev_hash` and `hash` themselves. */
export interface ChainedContent {
  id: string;
  business_id: string | null;
  wallet_id: string | null;
  actor: string;
  action: string;
  target_type: string | null;
  target_id: string | null;
  details: unknown;
  request_id: string | null;
  created_at: Date;
}

/**
 * JSON with object keys sorted at every level (arrays keep their order): one text for one
 * value, whatever order PostgreSQL's jsonb hands its keys back in.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/**
 * Details as they will read back from a jsonb column (dates as ISO text, undefined fields
 * gone), so the hash computed at write time is the hash recomputed at verify time.
 */
export function normaliseDetails(details: unknown): unknown {
  return details === undefined || details === null ? null : JSON.parse(JSON.stringify(details));
}

export function entryHash(prevHash: string, e: ChainedContent): string {
  const content = canonicalJson([
    prevHash,
    e.id,
    e.business_id,
    e.wallet_id,
    e.actor,
    e.action,
    e.target_type,
    e.target_id,
    e.details ?? null,
    e.request_id,
    e.created_at.toISOString(),
  ]);
  return createHash('sha256').update(content, 'utf8').digest('hex');
}

/** A stored entry as the verifier reads it. */
export interface StoredEntry extends ChainedContent {
  seq: string;
  prev_hash: string | null;
  hash: string | null;
}

export type BrokenLink =
  | { kind: 'content'; seq: string; id: string; message: string }
  | { kind: 'link'; seq: string; id: string; message: string }
  | { kind: 'unchained'; seq: string; id: string; message: string };

/**
 * Walks entries in `seq` order, carrying the previous hash: the first entry whose stored
 * link or hash disagrees with the recomputation, or null. Entries written before the chain
 * existed and not chained yet (hash NULL) may only come before the first chained one.
 */
export class ChainWalker {
  #prev = GENESIS;
  #chained = 0;
  #unchained = 0;
  #anchorSeen = false;

  /** `anchor`: a head recorded earlier (printed by a previous verification), to be found in the chain. */
  constructor(private readonly anchor?: string) {}

  /** The hash the next entry must link to. */
  get head(): string {
    return this.#prev;
  }
  get chained(): number {
    return this.#chained;
  }
  get unchained(): number {
    return this.#unchained;
  }
  /** True when the anchor given was the hash of an entry walked so far. */
  get anchorSeen(): boolean {
    return this.#anchorSeen;
  }

  step(e: StoredEntry): BrokenLink | null {
    if (e.hash === null) {
      if (this.#chained > 0) {
        return { kind: 'unchained', seq: e.seq, id: e.id, message: 'an entry without a hash after the chain began' };
      }
      this.#unchained++;
      return null;
    }
    if (e.prev_hash !== this.#prev) {
      return {
        kind: 'link',
        seq: e.seq,
        id: e.id,
        message: `its previous-entry hash is ${short(e.prev_hash)} but the entry before it hashes to ${short(this.#prev)}: an entry before it was removed, inserted or changed`,
      };
    }
    const computed = entryHash(this.#prev, e);
    if (computed !== e.hash) {
      return {
        kind: 'content',
        seq: e.seq,
        id: e.id,
        message: `its content hashes to ${short(computed)}, not the stored ${short(e.hash)}: the entry was changed after it was written`,
      };
    }
    this.#prev = e.hash;
    this.#chained++;
    if (e.hash === this.anchor) this.#anchorSeen = true;
    return null;
  }
}

const short = (h: string | null) => (h === null ? 'nothing' : `${h.slice(0, 16)}…`);
