import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';
import type { NetworkData } from '../../chains/types.js';
import { addressKey } from '../../chains/address-key.js';
export type { NewWithdrawal } from '../transactions/service.js';

/**
 * Serialises every balance check and reservation of one sending address (all assets: gas
 * is reserved in the native coin for any of them) until the caller's transaction ends.
 */
export async function lockSender(db: DbConn, chainId: string, address: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`withdraw:${chainId}:${addressKey(address)}`}, 0))`.execute(db);
}

export interface Held {
  assetId: string | null;
  amount: bigint;
  fees: bigint;
  /** The latest signed version's hash (null before signing). */
  hash: string | null;
  pending: boolean;
  /** When it left PENDING (null while pending). */
  settledAt: Date | null;
  /**
   * An allowance granted by a contract write (approve): mining it leaves the balance as it
   * was, so unlike a spend it is not seen in a balance read after it was mined. Also a
   * deposit AML screening holds at the sender: in the balance, not the sender's to spend.
   */
  standing: boolean;
  /** The spender, for an allowance (standing); null otherwise. */
  spender: string | null;
}

/**
 * Transaction types whose row means "this sender pays `amount` of `asset_id`": withdrawals
 * (settlement runs included) and auto-settlement legs (a swap spends its input; the
 * transfer after it spends the quoted output, which errs on the side of holding too much
 * while the swap is in flight). All of them must be held back, or a withdrawal could
 * spend funds an auto-settlement is about to send. A salvage holds what it moves (a listed
 * asset, or the native coin; an unlisted token's asset_id is NULL and holds only its fee), a
 * stake the TRX it locks (the other staking operations only their fee). Contract writes hold their gas here
 * (reserved_fee; amount and asset are null) and what they move in contract_moves.
 */
const SPENDING = sql`('WITHDRAW', 'SWAP', 'AUTO_SETTLEMENT', 'CUSTOM_SMART_CONTRACT', 'SALVAGE', 'STAKING')`;
/** Staking operations that move no coin out of the balance: their rows' amount is what they unstake or restake, so only their fee is held. */
const FEE_ONLY = sql`('UNSTAKING', 'RESTAKING', 'UNSTAKING_WITHDRAW')`;

/**
 * Outbound purposes by which the master sends a child native coin for its fees, ahead of a
 * sweep, a settlement, a recovery or a swap: no Transaction of the master's records them.
 * Their value is held from the master's balance; their own fee as its flow quoted it (a
 * settlement's in auto_settlements.topup_fee and a swap's in swaps.topup_fee, with the row; a
 * sweep's and a recovery's in their master_fee, while they are in flight).
 */
const TOPUPS = sql`('sweep-topup', 'autosettle-topup', 'salvage-topup', 'swap-topup')`;

/**
 * The 0-value self-transfer that takes the nonce of a row voided before signing (outbound's
 * ordering: a withdrawal cancelled then, an estimate that reverted). It pays a fee the voided
 * row's hold no longer covers (its withdrawal is CANCELLED at once), so that row's fee ceiling
 * is held while the filler is in flight: a native transfer costs less than what the voided
 * row was quoted. Unheld, a payout of the whole balance accepted meanwhile came after the
 * filler in nonce order and could not be mined.
 */
const FILLER = sql`'nonce-filler'`;

/*
 * Each kind of hold is read by two arms, "pending" and "settled since", never one arm with an
 * OR: each arm matches one partial index (migrations 036, 041), and this runs on every payout
 * under the sender's lock.
 */

/**
 * What the sender's spending transactions hold back from a balance read after `since`:
 * every PENDING (or PENDING_APPROVAL) one, and every one settled since then that was signed
 * (funds.ts explains why; one that ended without a hash never reached the chain, so a
 * payout refused while it waited for approval releases its funds at once); plus what
 * contract writes move out of the sender's address (the sender of a transferFrom may be
 * another address), by the same rule; plus the sweeps of the address (a child's), by the
 * same rule: a sweep writes no Transaction of its own, yet from the moment it is planned it
 * owns what it moves and its transfer's fee (sweeps.reserved_fee), and a withdrawal from the
 * child accepted meanwhile would leave one of the two to fail on chain, fee paid; plus, from
 * a master, the top-ups it sends children (TOPUPS), by the same rule (a settlement's and a
 * swap's with its own fee, their topup_fee, for as long as its row holds its value), and what its
 * sweeps' own steps may burn beyond those top-ups' values (sweeps.master_fee: the top-up's
 * fee, the fees of a lend and give-back of the master's resources, less the top-up's and
 * lend's parts once that step was mined before the balance read, which shows them paid:
 * minedStep), by the same rule, and its recoveries' (salvages.master_fee, the same fees; a
 * recovery may run on another chain of the wallet's family than the wallet's own, so it is
 * found by its chain and its wallet's address), by the same rule; plus, from a master, the
 * fees of its children's payouts waiting for approval that it pays as fee payer (a sponsored
 * child's: the part of quoted_fee the child does not hold), for as long as they wait
 * (approved, a payout is sent within moments and the master's fees are not held for it,
 * funds.ts checkPayer; refused, it was never signed); plus the deposits to
 * the sender (a child, or an address whose key the wallet imported) that AML screening
 * holds (docs/aml.md): they stay where they landed until an operator releases them, and a
 * balance read shows them, so they are held as an allowance is (`standing`: for as long as
 * the hold stands, whatever a receipt says). Without this a wallet key could withdraw from
 * the child what only a business key may release. Deposits to the master are not kept
 * apart (docs/aml.md, "What is not covered") and have no address row here.
 */
/**
 * A pending sweep's or recovery's part of its master_fee that the step `outbound` (its
 * top-up, its lend) burns, once that step was mined before `since`: the balance read after
 * it shows it paid (0 otherwise, and for rows without the part). Only 'mined', read from the
 * row the sweep or recovery records as the step's (a replacement's once it settled): a row
 * left 'replaced' or rebuilt has not paid it.
 */
const minedStep = (outbound: string, part: string, since: Date) => sql`coalesce((
      SELECT ${sql.raw(part)} FROM outbound_txs o
       WHERE o.id = ${sql.raw(outbound)} AND o.stage = 'mined' AND o.updated_at < ${since}), 0)`;

export async function heldBack(db: DbConn, chainId: string, sender: string, since: Date): Promise<Held[]> {
  const { rows } = await sql<{
    asset_id: string | null;
    amount: string | null;
    reserved_fee: string | null;
    hash: string | null;
    status: string;
    updated_at: Date;
    standing: boolean;
    spender: string | null;
  }>`
    SELECT asset_id, amount, reserved_fee, hash, status, updated_at, false AS standing, NULL AS spender FROM transactions
     WHERE chain_id = ${chainId} AND sender_address = ${sender} AND type IN ${SPENDING} AND status IN ('PENDING', 'PENDING_APPROVAL')
    UNION ALL
    SELECT asset_id, amount, reserved_fee, hash, status, updated_at, false, NULL FROM transactions
     WHERE chain_id = ${chainId} AND sender_address = ${sender} AND type IN ${SPENDING} AND status NOT IN ('PENDING', 'PENDING_APPROVAL')
       AND updated_at >= ${since} AND hash IS NOT NULL
    UNION ALL
    SELECT NULL, NULL, reserved_fee, hash, status, updated_at, false, NULL FROM transactions
     WHERE chain_id = ${chainId} AND sender_address = ${sender} AND type IN ${FEE_ONLY} AND status = 'PENDING'
    UNION ALL
    SELECT NULL, NULL, reserved_fee, hash, status, updated_at, false, NULL FROM transactions
     WHERE chain_id = ${chainId} AND sender_address = ${sender} AND type IN ${FEE_ONLY} AND status <> 'PENDING'
       AND updated_at >= ${since} AND hash IS NOT NULL
    UNION ALL
    SELECT s.asset_id, s.amount, s.reserved_fee, o.hash, 'PENDING', s.updated_at, false, NULL
      FROM sweeps s LEFT JOIN outbound_txs o ON o.id = s.transfer_outbound_id
     WHERE s.address_id IN (SELECT id FROM addresses WHERE chain_id = ${chainId} AND lower(address) = lower(${sender}) AND address = ${sender})
       AND s.status = 'pending'
    UNION ALL
    SELECT s.asset_id, s.amount, s.reserved_fee, o.hash, 'SETTLED', s.updated_at, false, NULL
      FROM sweeps s JOIN outbound_txs o ON o.id = s.transfer_outbound_id
     WHERE s.address_id IN (SELECT id FROM addresses WHERE chain_id = ${chainId} AND lower(address) = lower(${sender}) AND address = ${sender})
       AND s.status <> 'pending' AND s.updated_at >= ${since} AND o.hash IS NOT NULL
    UNION ALL
    SELECT (SELECT id FROM assets WHERE chain_id = ${chainId} AND is_native LIMIT 1), o.value, coalesce(a.topup_fee, w.topup_fee), o.hash, 'PENDING',
           o.updated_at, false, NULL
      FROM outbound_txs o LEFT JOIN auto_settlements a ON o.purpose = 'autosettle-topup' AND a.id = o.owner_id
                          LEFT JOIN swaps w ON o.purpose = 'swap-topup' AND w.id = o.owner_id
     WHERE o.chain_id = ${chainId} AND o.from_address = ${sender} AND o.purpose IN ${TOPUPS} AND o.stage IN ('created', 'signed', 'broadcast')
    UNION ALL
    SELECT (SELECT id FROM assets WHERE chain_id = ${chainId} AND is_native LIMIT 1), o.value, coalesce(a.topup_fee, w.topup_fee), o.hash, 'SETTLED',
           o.updated_at, false, NULL
      FROM outbound_txs o LEFT JOIN auto_settlements a ON o.purpose = 'autosettle-topup' AND a.id = o.owner_id
                          LEFT JOIN swaps w ON o.purpose = 'swap-topup' AND w.id = o.owner_id
     WHERE o.chain_id = ${chainId} AND o.from_address = ${sender} AND o.purpose IN ${TOPUPS} AND o.stage IN ('mined', 'failed')
       AND o.updated_at >= ${since}
    UNION ALL
    SELECT NULL, NULL, v.fee_ceiling, f.hash, 'PENDING', f.updated_at, false, NULL
      FROM outbound_txs f JOIN outbound_txs v ON v.id = f.owner_id
     WHERE f.chain_id = ${chainId} AND f.from_address = ${sender} AND f.purpose = ${FILLER} AND f.stage IN ('created', 'signed', 'broadcast')
    UNION ALL
    SELECT NULL, NULL, v.fee_ceiling, f.hash, 'SETTLED', f.updated_at, false, NULL
      FROM outbound_txs f JOIN outbound_txs v ON v.id = f.owner_id
     WHERE f.chain_id = ${chainId} AND f.from_address = ${sender} AND f.purpose = ${FILLER} AND f.stage IN ('mined', 'failed')
       AND f.updated_at >= ${since}
    UNION ALL
    SELECT NULL, NULL, s.master_fee - ${minedStep('s.topup_outbound_id', 's.master_fee_topup', since)} - ${minedStep('s.lend_outbound_id', 's.master_fee_lend', since)},
           NULL, 'PENDING', s.updated_at, false, NULL
      FROM sweeps s
     WHERE s.wallet_id IN (SELECT id FROM wallets WHERE chain_id = ${chainId} AND address = ${sender})
       AND s.status = 'pending' AND s.master_fee > 0
    UNION ALL
    SELECT NULL, NULL, s.master_fee, NULL, 'SETTLED', s.updated_at, false, NULL
      FROM sweeps s
     WHERE s.wallet_id IN (SELECT id FROM wallets WHERE chain_id = ${chainId} AND address = ${sender})
       AND s.status <> 'pending' AND s.master_fee > 0 AND s.updated_at >= ${since}
    UNION ALL
    SELECT NULL, NULL, v.master_fee - ${minedStep('v.topup_outbound_id', 'v.master_fee_topup', since)} - ${minedStep('v.lend_outbound_id', 'v.master_fee_lend', since)},
           NULL, 'PENDING', v.updated_at, false, NULL
      FROM salvages v JOIN wallets w ON w.id = v.wallet_id
     WHERE v.chain_id = ${chainId} AND w.address = ${sender} AND v.status = 'pending' AND v.master_fee > 0
    UNION ALL
    SELECT NULL, NULL, v.master_fee, NULL, 'SETTLED', v.updated_at, false, NULL
      FROM salvages v JOIN wallets w ON w.id = v.wallet_id
     WHERE v.chain_id = ${chainId} AND w.address = ${sender} AND v.status <> 'pending' AND v.master_fee > 0
       AND v.updated_at >= ${since}
    UNION ALL
    SELECT NULL, NULL, t.quoted_fee - coalesce(t.reserved_fee, 0), NULL, 'PENDING_APPROVAL', t.updated_at, false, NULL
      FROM transactions t
     WHERE t.wallet_id IN (SELECT id FROM wallets WHERE chain_id = ${chainId} AND address = ${sender})
       AND t.status = 'PENDING_APPROVAL' AND t.quoted_fee > coalesce(t.reserved_fee, 0)
    UNION ALL
    SELECT m.asset_id, m.amount, NULL, t.hash, t.status, t.updated_at, m.kind = 'allowance', CASE WHEN m.kind = 'allowance' THEN m.beneficiary END
      FROM contract_moves m JOIN transactions t ON t.id = m.transaction_id
     WHERE m.chain_id = ${chainId} AND m.owner_address = ${sender} AND (m.settled_at IS NULL OR m.settled_at >= ${since})
    UNION ALL
    SELECT t.asset_id, t.amount, NULL, NULL, 'PENDING', t.updated_at, true, NULL
      FROM transactions t
     WHERE t.address_id IN (SELECT id FROM addresses WHERE chain_id = ${chainId} AND lower(address) = lower(${sender}) AND address = ${sender})
       AND t.aml_held AND t.type = 'DEPOSIT' AND t.status <> 'FAILED' AND NOT t.asset_swept`.execute(db);
  return rows.map((r) => ({
    assetId: r.asset_id,
    amount: BigInt(r.amount ?? 0),
    fees: BigInt(r.reserved_fee ?? 0),
    hash: r.hash,
    // Waiting for approval holds its amount and fee exactly as a pending withdrawal does.
    pending: r.status === 'PENDING' || r.status === 'PENDING_APPROVAL',
    settledAt: r.status === 'PENDING' || r.status === 'PENDING_APPROVAL' ? null : r.updated_at,
    standing: r.standing,
    spender: r.spender,
  }));
}

/**
 * The spenders the owner granted allowances of a token through contract writes, and the
 * time the list was read (statement_timestamp: at or before the snapshot the list was read
 * in, so it serves as a balance snapshot's time; funds.ts).
 */
export async function spenders(
  db: DbConn,
  chainId: string,
  owner: string,
): Promise<{ at: Date; pairs: { token: string; spender: string }[] }> {
  const { rows } = await sql<{ at: Date; token: string | null; spender: string | null }>`
    SELECT statement_timestamp() AS at, s.token_address AS token, s.spender
      FROM (SELECT 1) one
      LEFT JOIN contract_spenders s ON s.chain_id = ${chainId} AND s.owner_address = ${owner}`.execute(db);
  return {
    at: rows[0]!.at,
    pairs: rows.flatMap((r) => (r.token && r.spender ? [{ token: r.token, spender: r.spender }] : [])),
  };
}

/**
 * The wallet's active whitelisted beneficiaries, by addressKey: hex addresses lowercased,
 * base58 ones as spelt (a case look-alike of a Tron or Solana entry is another address).
 */
export async function whitelist(db: DbConn, walletId: string, opts: { held?: boolean } = {}): Promise<Set<string>> {
  // held: the beneficiaries' write lock (beneficiaries/store.ts lockWallet) taken shared until
  // the caller's transaction ends, so an entry removed meanwhile waits for its COMMIT.
  if (opts.held) await sql`SELECT pg_advisory_xact_lock_shared(hashtextextended(${`beneficiaries:${walletId}`}, 0))`.execute(db);
  const { rows } = await sql<{ address: string }>`
    SELECT address FROM beneficiaries
     WHERE wallet_id = ${walletId} AND is_whitelisted AND is_active AND deleted_at IS NULL`.execute(db);
  return new Set(rows.map((r) => addressKey(r.address)));
}

/**
 * The wallet's settlement beneficiary in force (live, active, marked for settlement with a
 * frequency; the default first, as beneficiaries/store.ts settlementBeneficiary picks it), or
 * null; read under the beneficiaries' lock (whitelist with `held`) by the caller.
 */
export async function settlementBeneficiaryInForce(db: DbConn, walletId: string): Promise<string | null> {
  const { rows } = await sql<{ id: string }>`
    SELECT id FROM beneficiaries
     WHERE wallet_id = ${walletId} AND is_settlement AND is_active AND deleted_at IS NULL AND settlement_frequency IS NOT NULL
     ORDER BY is_default DESC, created_at, id LIMIT 1`.execute(db);
  return rows[0]?.id ?? null;
}

export interface WithdrawalRef {
  id: string;
  type: string;
  status: string;
  sender_address: string | null;
  recipient_address: string | null;
  asset_id: string | null;
  amount: string | null;
}

export async function findByReference(db: DbConn, walletId: string, reference: string): Promise<WithdrawalRef | undefined> {
  const { rows } = await sql<WithdrawalRef>`
    SELECT id, type, status, sender_address, recipient_address, asset_id, amount FROM transactions
     WHERE wallet_id = ${walletId} AND reference = ${reference}`.execute(db);
  return rows[0];
}

/** findByReference for many references at once. */
export async function findByReferences(db: DbConn, walletId: string, references: string[]): Promise<Map<string, WithdrawalRef>> {
  if (references.length === 0) return new Map();
  const { rows } = await sql<WithdrawalRef & { reference: string }>`
    SELECT id, reference, type, status, sender_address, recipient_address, asset_id, amount FROM transactions
     WHERE wallet_id = ${walletId} AND reference = ANY(${references}::text[])`.execute(db);
  return new Map(rows.map((r) => [r.reference, r]));
}

export interface LockedWithdrawal {
  id: string;
  wallet_id: string;
  type: string;
  status: string;
  chain_id: string;
  address_id: string | null;
  asset_id: string | null;
  sender_address: string | null;
  recipient_address: string | null;
  amount: string | null;
  nonce: string | null;
  reserved_fee: string | null;
  /** A payout held for approval: the fee quoted at acceptance (NewWithdrawal.quotedFee; null on older rows). */
  quoted_fee: string | null;
  /** A payout held for approval: the fee fields to send it with (NewWithdrawal.sendNetwork). */
  send_network: NetworkData | null;
  /** The last attempt's block and depth (a retry judges the attempt it finds under this lock). */
  block_number: string | null;
  confirmations: number | null;
}

export async function lockTransaction(db: DbConn, id: string): Promise<LockedWithdrawal | undefined> {
  const { rows } = await sql<LockedWithdrawal>`
    SELECT id, wallet_id, type, status, chain_id, address_id, asset_id, sender_address, recipient_address, amount, nonce,
           reserved_fee, quoted_fee, send_network, block_number::text AS block_number, confirmations
      FROM transactions WHERE id = ${id} FOR NO KEY UPDATE`.execute(db);
  return rows[0];
}

// ---- idempotency keys ----------------------------------------------------------------

export async function findKey(db: DbConn, walletId: string, key: string): Promise<{ fingerprint: string; response: unknown } | undefined> {
  const { rows } = await sql<{ fingerprint: string; response: unknown }>`
    SELECT fingerprint, response FROM idempotency_keys WHERE wallet_id = ${walletId} AND key = ${key}`.execute(db);
  return rows[0];
}

/**
 * Claims the key inside the caller's transaction. A concurrent holder of the same key makes
 * this wait until it ends; false when the key is (then) taken.
 */
export async function claimKey(db: DbConn, walletId: string, key: string, fingerprint: string): Promise<boolean> {
  const { rows } = await sql<{ key: string }>`
    INSERT INTO idempotency_keys (wallet_id, key, fingerprint, response) VALUES (${walletId}, ${key}, ${fingerprint}, '{}'::jsonb)
    ON CONFLICT (wallet_id, key) DO NOTHING RETURNING key`.execute(db);
  return rows.length > 0;
}

/**
 * Deletes up to `limit` keys created more than `olderThanMs` ago (oldest first, through the
 * created_at index); returns how many. Small chunks keep each delete's locks short.
 */
export async function pruneKeys(db: DbConn, olderThanMs: number, limit: number): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    WITH old AS (
      SELECT wallet_id, key FROM idempotency_keys
       WHERE created_at < now() - make_interval(secs => ${olderThanMs / 1000})
       ORDER BY created_at LIMIT ${limit}
    ), gone AS (
      DELETE FROM idempotency_keys k USING old WHERE k.wallet_id = old.wallet_id AND k.key = old.key RETURNING 1
    )
    SELECT count(*) AS n FROM gone`.execute(db);
  return Number(rows[0]!.n);
}

/** Gives a claimed key back (its request failed inside a batch that commits): it stores nothing. */
export async function releaseKey(db: DbConn, walletId: string, key: string): Promise<void> {
  await sql`DELETE FROM idempotency_keys WHERE wallet_id = ${walletId} AND key = ${key}`.execute(db);
}

export async function storeResponse(db: DbConn, walletId: string, key: string, response: unknown): Promise<void> {
  await sql`UPDATE idempotency_keys SET response = ${JSON.stringify(response)}::jsonb WHERE wallet_id = ${walletId} AND key = ${key}`.execute(
    db,
  );
}
