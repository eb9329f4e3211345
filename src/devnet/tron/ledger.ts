// The Tron-native state the stand-in keeps itself (TRX balances, account activation,
// resources, stakes, delegations, network totals), with an undo journal so that a
// rejected transaction leaves nothing behind (savepoints), the last unsolidified blocks
// can be reorganised away, and /walletsolidity/* can answer as of the solidified block.
import type { Hex41 } from './address.js';

export type ResourceType = 'BANDWIDTH' | 'ENERGY';

export interface Account {
  address: Hex41;
  type: 'Normal' | 'Contract';
  balance: bigint;
  createTime: number;
  latestOperationTime: number;
  /** Usage figures in java-tron's units; the *Time fields are slots (3 s), not ms. */
  netUsage: number;
  latestConsumeTime: number;
  freeNetUsage: number;
  latestConsumeFreeTime: number;
  energyUsage: number;
  latestConsumeTimeForEnergy: number;
  /** frozenV2 still held by the account (sun), delegated-out amounts excluded. */
  frozenBandwidth: bigint;
  frozenEnergy: bigint;
  /** delegated_frozenV2_balance_for_*: staked by this account, lent to others. */
  delegatedBandwidth: bigint;
  delegatedEnergy: bigint;
  /** acquired_delegated_frozenV2_balance_for_*: lent to this account by others. */
  acquiredBandwidth: bigint;
  acquiredEnergy: bigint;
  unfrozen: { type: ResourceType; amount: bigint; expireTime: number }[];
}

export interface Delegation {
  from: Hex41;
  to: Hex41;
  lock: boolean;
  bandwidth: bigint;
  energy: bigint;
  expireBandwidth: number;
  expireEnergy: number;
}

/** The stand-in's own stake weights in whole TRX (TotalNetWeight minus the network's share). */
export interface Totals {
  netWeight: number;
  energyWeight: number;
  burned: bigint;
}

type Entry =
  | { kind: 'account'; key: string; before: Account | undefined }
  | { kind: 'delegation'; key: string; before: Delegation | undefined }
  | { kind: 'totals'; before: Totals };

export const delegationKey = (from: Hex41, to: Hex41, lock: boolean) => `${from}:${to}:${lock ? 1 : 0}`;

export function newAccount(address: Hex41, createTime: number, type: Account['type'] = 'Normal'): Account {
  return {
    address,
    type,
    balance: 0n,
    createTime,
    latestOperationTime: 0,
    netUsage: 0,
    latestConsumeTime: 0,
    freeNetUsage: 0,
    latestConsumeFreeTime: 0,
    energyUsage: 0,
    latestConsumeTimeForEnergy: 0,
    frozenBandwidth: 0n,
    frozenEnergy: 0n,
    delegatedBandwidth: 0n,
    delegatedEnergy: 0n,
    acquiredBandwidth: 0n,
    acquiredEnergy: 0n,
    unfrozen: [],
  };
}

/** A read-only view of the state, current or as of an earlier block. */
export interface LedgerView {
  account(address: Hex41): Account | undefined;
  delegation(key: string): Delegation | undefined;
  delegations(): Delegation[];
  totals(): Totals;
}

export class Ledger implements LedgerView {
  private accounts = new Map<string, Account>();
  private dels = new Map<string, Delegation>();
  private tot: Totals = { netWeight: 0, energyWeight: 0, burned: 0n };
  /** Changes since the last sealed block (they belong to the next one). */
  private pending: Entry[] = [];
  /** Changes per sealed block, oldest first, kept while the block may still be read back or reorganised. */
  private journals: { block: number; entries: Entry[] }[] = [];
  /** Accounts whose TRX balance changed since the last takeDirty(): mirrored onto the EVM. */
  private dirty = new Set<Hex41>();

  account(address: Hex41): Account | undefined {
    return this.accounts.get(address);
  }
  delegation(key: string): Delegation | undefined {
    return this.dels.get(key);
  }
  delegations(): Delegation[] {
    return [...this.dels.values()];
  }
  totals(): Totals {
    return this.tot;
  }

  /** Accounts are replaced, never mutated in place, so journal entries stay valid. */
  putAccount(a: Account): void {
    const before = this.accounts.get(a.address);
    this.pending.push({ kind: 'account', key: a.address, before });
    this.accounts.set(a.address, a);
    if (before?.balance !== a.balance) this.dirty.add(a.address);
  }

  putDelegation(key: string, d: Delegation | undefined): void {
    this.pending.push({ kind: 'delegation', key, before: this.dels.get(key) });
    if (d) this.dels.set(key, d);
    else this.dels.delete(key);
  }

  setTotals(t: Totals): void {
    this.pending.push({ kind: 'totals', before: this.tot });
    this.tot = t;
  }

  savepoint(): number {
    return this.pending.length;
  }

  rollbackTo(savepoint: number): void {
    this.undo(this.pending.splice(savepoint));
  }

  seal(block: number): void {
    this.journals.push({ block, entries: this.pending });
    this.pending = [];
  }

  /** Journals at or below the solidified block can no longer be needed. */
  prune(solidified: number): void {
    this.journals = this.journals.filter((j) => j.block > solidified);
  }

  /** Oldest block whose journal is kept: state can be rebuilt as of block (oldest - 1) onward. */
  oldestJournal(): number | undefined {
    return this.journals[0]?.block;
  }

  /** Undoes the pending changes and every block after `block`. */
  revertTo(block: number): void {
    this.undo(this.pending);
    this.pending = [];
    while (this.journals.length > 0 && (this.journals.at(-1) as { block: number }).block > block) {
      this.undo((this.journals.pop() as { entries: Entry[] }).entries);
    }
  }

  /** After a restart every balance must be copied onto the fresh EVM again. */
  markAllDirty(): void {
    for (const a of this.accounts.keys()) this.dirty.add(a);
  }

  takeDirty(): Hex41[] {
    const out = [...this.dirty];
    this.dirty.clear();
    return out;
  }

  /** The state as of the end of `block` (a block whose successors are all journaled). */
  at(block: number): LedgerView {
    const accounts = new Map<string, Account | undefined>();
    const dels = new Map<string, Delegation | undefined>();
    let tot: Totals | undefined;
    // The first change after `block` to a key records the value it had at `block`.
    const later = [...this.journals.filter((j) => j.block > block).map((j) => j.entries), this.pending];
    for (const entries of later) {
      for (const e of entries) {
        if (e.kind === 'account' && !accounts.has(e.key)) accounts.set(e.key, e.before);
        else if (e.kind === 'delegation' && !dels.has(e.key)) dels.set(e.key, e.before);
        else if (e.kind === 'totals' && !tot) tot = e.before;
      }
    }
    return {
      account: (a) => (accounts.has(a) ? accounts.get(a) : this.accounts.get(a)),
      delegation: (k) => (dels.has(k) ? dels.get(k) : this.dels.get(k)),
      delegations: () => {
        const keys = new Set([...this.dels.keys(), ...dels.keys()]);
        return [...keys].map((k) => (dels.has(k) ? dels.get(k) : this.dels.get(k))).filter((d): d is Delegation => d !== undefined);
      },
      totals: () => tot ?? this.tot,
    };
  }

  private undo(entries: Entry[]): void {
    for (let i = entries.length - 1; i >= 0; i--) {
      const e = entries[i] as Entry;
      if (e.kind === 'account') {
        if (this.accounts.get(e.key)?.balance !== e.before?.balance) this.dirty.add(e.key);
        if (e.before) this.accounts.set(e.key, e.before);
        else this.accounts.delete(e.key);
      } else if (e.kind === 'delegation') {
        if (e.before) this.dels.set(e.key, e.before);
        else this.dels.delete(e.key);
      } else this.tot = e.before;
    }
  }

  toJSON(): unknown {
    return {
      accounts: [...this.accounts.values()].map(encodeBig),
      delegations: [...this.dels.entries()].map(([k, d]) => [k, encodeBig(d)]),
      totals: encodeBig(this.tot),
      pending: this.pending.map(encodeEntry),
      journals: this.journals.map((j) => ({ block: j.block, entries: j.entries.map(encodeEntry) })),
    };
  }

  static fromJSON(j: any): Ledger {
    const l = new Ledger();
    for (const a of j.accounts) l.accounts.set(a.address, decodeAccount(a));
    for (const [k, d] of j.delegations) l.dels.set(k, decodeDelegation(d));
    l.tot = decodeTotals(j.totals);
    l.pending = j.pending.map(decodeEntry);
    l.journals = j.journals.map((x: any) => ({ block: x.block, entries: x.entries.map(decodeEntry) }));
    return l;
  }
}

// Persistence: bigints travel as decimal strings tagged by field name.
const BIG_FIELDS = new Set([
  'balance',
  'frozenBandwidth',
  'frozenEnergy',
  'delegatedBandwidth',
  'delegatedEnergy',
  'acquiredBandwidth',
  'acquiredEnergy',
  'amount',
  'bandwidth',
  'energy',
  'burned',
]);
function encodeBig(o: object): unknown {
  return JSON.parse(JSON.stringify(o, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
}
function decodeBig<T>(o: any): T {
  return JSON.parse(JSON.stringify(o), (k, v) => (BIG_FIELDS.has(k) && typeof v === 'string' ? BigInt(v) : v));
}
const decodeAccount = (a: unknown) => decodeBig<Account>(a);
const decodeDelegation = (d: unknown) => decodeBig<Delegation>(d);
const decodeTotals = (t: unknown) => decodeBig<Totals>(t);
const encodeEntry = (e: Entry) => encodeBig(e);
const decodeEntry = (e: unknown) => decodeBig<Entry>(e);
