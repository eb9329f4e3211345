/**
 * Migration 034 turns the outbound rows Solana wrote with its own "calldata" (0xf1 ||
 * recipient || u64 amount for one SPL transfer; 0xf2 || count || entries for several) into
 * the token intents they meant, and leaves every other row's call as it was. Run here on rows
 * written in the old shape, with the migration's own SQL (read from the file), in one session
 * (its helper functions live in pg_temp).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { uuidv7 } from '../../src/lib/ids.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
let solanaChain: string;
let evmChain: string;
let walletId: string;

const address = () => base58.encode(ed25519.getPublicKey(ed25519.utils.randomPrivateKey()));
const entry = (to: string, amount: bigint) => Buffer.from(base58.decode(to)).toString('hex') + amount.toString(16).padStart(16, '0');
const one = (to: string, amount: bigint) => `0xf1${entry(to, amount)}`;
const many = (list: { to: string; amount: bigint }[]) =>
  `0xF2${list.length.toString(16).padStart(2, '0')}${list.map((e) => entry(e.to, e.amount)).join('')}`;

/** The migration's helper functions and its Solana conversion, as written in the file. */
function conversion(): string[] {
  const file = readFileSync(new URL('../../src/db/migrations/034_neutral_seam.sql', import.meta.url), 'utf8');
  const functions = file.match(/CREATE FUNCTION pg_temp\.[\s\S]*?\$\$;/g) ?? [];
  const update = file.match(/WITH solana AS \([\s\S]*?;/)?.[0];
  expect(functions).toHaveLength(3);
  expect(update).toBeDefined();
  return [...functions, update!];
}

beforeAll(async () => {
  h = await startHarness({ specs: [DEVNET_CHAINS[0]!], worker: false });
  walletId = h.wallets['devnet-eth']!.id;
  evmChain = h.services.catalogue.findChain('devnet-eth', 'testnet')!.id;
  const blockchain = uuidv7();
  solanaChain = uuidv7();
  await sql`INSERT INTO blockchains (id, slug, name, symbol, derivation_path, is_evm_compatible)
            VALUES (${blockchain}, 'sol-migration', 'Solana (migration)', 'SOL', ${"m/44'/501'"}, false)`.execute(h.database.db);
  await sql`INSERT INTO chains (id, blockchain_id, network, chain_id, confirmations)
            VALUES (${solanaChain}, ${blockchain}, 'testnet', 991031, 1)`.execute(h.database.db);
});
afterAll(async () => {
  await h?.stop();
});

async function oldRow(chainId: string, to: string, data: string): Promise<string> {
  const id = uuidv7();
  await sql`INSERT INTO outbound_txs (id, chain_id, wallet_id, from_address, from_index, kind, to_address, value, data, stage, purpose)
            VALUES (${id}, ${chainId}, ${walletId}, ${address()}, 1, 'call', ${to}, 0, ${data}, 'replaced', 'withdraw')`.execute(
    h.database.db,
  );
  return id;
}

async function row(id: string) {
  const { rows } = await sql<{ kind: string; token: string | null; to_address: string; value: string; data: string | null; more: unknown }>`
    SELECT kind, token, to_address, value, data, more FROM outbound_txs WHERE id = ${id}`.execute(h.database.db);
  return rows[0]!;
}

describe('migration 034 on Solana rows in the old encoding', () => {
  it('makes token intents of single and batched SPL transfers (u64 amounts exact), and leaves other calls alone', async () => {
    const mint = address();
    const a = { to: address(), amount: (1n << 64n) - 1n };
    const b = { to: address(), amount: 7n };
    const c = { to: address(), amount: 0n };
    const single = await oldRow(solanaChain, mint, one(a.to, a.amount));
    const batch = await oldRow(solanaChain, mint, many([a, b, c]));
    const evm = await oldRow(evmChain, '0x00000000000000000000000000000000000000aa', one(a.to, 5n));
    // A leading zero byte of a recipient is a leading '1' in base58.
    const zero = new Uint8Array(32);
    zero[0] = 0;
    zero[31] = 9;
    const lead = { to: base58.encode(zero), amount: 1n };
    const leading = await oldRow(solanaChain, mint, one(lead.to, lead.amount));

    await h.database.db.connection().execute(async (conn) => {
      for (const statement of conversion()) await sql.raw(statement).execute(conn);
    });

    expect(await row(single)).toEqual({ kind: 'token', token: mint, to_address: a.to, value: a.amount.toString(), data: null, more: null });
    expect(await row(batch)).toEqual({
      kind: 'token',
      token: mint,
      to_address: a.to,
      value: a.amount.toString(),
      data: null,
      more: [
        { to: b.to, amount: '7' },
        { to: c.to, amount: '0' },
      ],
    });
    expect(await row(leading)).toMatchObject({ kind: 'token', to_address: lead.to, value: '1' });
    expect(await row(evm)).toMatchObject({ kind: 'call', token: null, data: one(a.to, 5n) });
    // Read back through the pipeline, the batch is the token intent the family compiles.
    expect((await h.services.outbound.get(batch))!.intent).toEqual({
      kind: 'token',
      token: mint,
      to: a.to,
      amount: a.amount,
      more: [
        { to: b.to, amount: 7n },
        { to: c.to, amount: 0n },
      ],
    });
  });
});
