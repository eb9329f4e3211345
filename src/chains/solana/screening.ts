/**
 * AML screening's on-chain reads on Solana (chains/screening.ts). An issuer's blacklist is
 * its mint's freeze authority: Circle and Tether freeze the token accounts of the addresses
 * they block. An address counts as listed by a mint's issuer when its associated token
 * account for that mint is frozen (state byte 2); an account that does not exist is not.
 * Every (mint x address) account goes into getMultipleAccounts, 100 a call (a node's cap),
 * reading only the state byte. No sanctions oracle: Solana has no SanctionsList contract.
 */
import type { Address } from '@solana/kit';
import type { ListRead, ScreeningReads } from '../screening.js';
import { associatedTokenAccount, type SolanaBalances } from './balances.js';
import type { SolanaNode } from './rpc.js';

/** A node's cap on getMultipleAccounts. */
const MAX_ACCOUNTS = 100;
/** A token account's `state` (SPL Token and Token-2022): after mint, owner, amount and the delegate option (32+32+8+36). */
const STATE_OFFSET = 108;
const FROZEN = 2;

export class SolanaScreening implements ScreeningReads {
  constructor(
    private readonly node: SolanaNode,
    private readonly balances: SolanaBalances,
  ) {}

  supports(read: ListRead): boolean {
    return read.kind === 'issuer';
  }

  async read(reads: readonly ListRead[], addresses: readonly string[]): Promise<(boolean[] | Error)[]> {
    const mints = reads.flatMap((r) => (r.kind === 'issuer' ? [r.token] : []));
    const programs = await this.balances.mintsOf(mints);
    const accounts: string[] = [];
    for (const read of reads) {
      if (read.kind !== 'issuer') continue;
      const program = programs.get(read.token)!.program;
      for (const a of addresses) accounts.push(await associatedTokenAccount(a, read.token, program));
    }
    const frozen: boolean[] = [];
    const rpc = await this.node.rpc();
    for (let i = 0; i < accounts.length; i += MAX_ACCOUNTS) {
      const chunk = accounts.slice(i, i + MAX_ACCOUNTS);
      const { value } = await rpc
        .getMultipleAccounts(chunk as Address[], {
          commitment: 'confirmed',
          encoding: 'base64',
          dataSlice: { offset: STATE_OFFSET, length: 1 },
        })
        .send();
      for (const account of value) frozen.push(account !== null && Buffer.from(account.data[0], 'base64')[0] === FROZEN);
    }
    let at = 0;
    return reads.map((read) => {
      if (read.kind !== 'issuer') return new Error('Solana has no sanctions oracle');
      const mine = frozen.slice(at, at + addresses.length);
      at += addresses.length;
      return mine;
    });
  }
}
