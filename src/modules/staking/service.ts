/**
 * Staking of a master wallet's native coin (issue 27, 3): on a chain whose family offers the
 * staking capability (Tron's Stake 2.0, chains/tron/staking.ts), the master address stakes
 * its native coin for one of the resources the family names (chains/staking.ts), unstakes
 * (unlocked after the chain's period, 14 days on Tron), restakes (every pending unstake back into its stake) and withdraws what unlocked.
 * Other chains answer 422 NOT_SUPPORTED from capability(adapter, 'staking'), before anything
 * is written.
 *
 * Each operation is a Transaction (STAKING, UNSTAKING, RESTAKING, UNSTAKING_WITHDRAW) and one
 * outbound row of the master, created in one database transaction after the rules are
 * checked against the chain (what is staked, pending, unlocked) and the master's funds are
 * held like a withdrawal's (withdrawals' reservation: a stake holds the TRX it locks, every
 * operation its fee). Once mined and final (the chain's confirmations deep: a reorg before
 * that sends the same bytes again), job staking_settle reads what the chain did (the amount
 * withdrawn, what went back into the stake) and ends the Transaction with
 * `<operation>.success`; a row that ends otherwise ends it with `<operation>.failed`.
 *
 * What is staked here is what sweeps may lend children for their token transfers (the
 * family's fee planning, e.g. chains/tron/resources.ts): `lendable` in the positions.
 */
import type { DbConn } from '../../db/pool.js';
import type { Purpose } from '../../events.js';
import { capability } from '../../chains/registry.js';
import { bodyOf } from '../../chains/intents.js';
import type { Staking, StakingOperation, StakingState, TxIntent } from '../../chains/types.js';
import { jobs } from '../../jobs/store.js';
import { BusinessRuleError, ValidationError } from '../../lib/errors.js';
import { shortReference, uuidv7 } from '../../lib/ids.js';
import { formatAmount, parseAmount } from '../../lib/money.js';
import type { AuthContext } from '../apikeys/service.js';
import type { ChainHandle } from '../catalogue/service.js';
import type { ModuleDeps } from '../deps.js';
import type { Confirmation, OutboundRow } from '../outbound/service.js';
import type { TransactionView } from '../transactions/service.js';
import type { WalletRow } from '../wallets/service.js';
import type { WithdrawalService } from '../withdrawals/service.js';
import type { StakeBody, StakingActionBody, StakingView } from './schemas.js';
import * as store from './store.js';

export const STAKING_PURPOSE = 'staking' satisfies Purpose;

export type StakingAction = StakingOperation['action'];

/** The Transaction type and the event family of each operation. */
const KINDS = {
  stake: { type: 'STAKING', event: 'staking', what: 'stake' },
  unstake: { type: 'UNSTAKING', event: 'unstaking', what: 'unstake' },
  restake: { type: 'RESTAKING', event: 'restaking', what: 'restake' },
  withdraw: { type: 'UNSTAKING_WITHDRAW', event: 'unstaking.withdraw', what: 'withdrawal of unlocked TRX' },
} as const satisfies Record<StakingAction, { type: string; event: string; what: string }>;

const STAKING_TYPES = Object.values(KINDS).map((k) => k.type);

const actionOf = (type: string): StakingAction | undefined => (Object.keys(KINDS) as StakingAction[]).find((a) => KINDS[a].type === type);

interface Master {
  wallet: WalletRow;
  chain: ChainHandle;
  staking: Staking;
}

export class StakingService {
  constructor(
    private readonly deps: ModuleDeps,
    private readonly withdrawals: WithdrawalService,
  ) {}

  /** GET .../staking: the master's stake per resource, its unstakes and what can be withdrawn. */
  async positions(auth: AuthContext, walletId: string): Promise<StakingView> {
    const { wallet, chain, staking } = await this.#master(auth, walletId, false);
    return present(wallet, chain, await staking.state(wallet.address));
  }

  /** POST .../staking/{stake|unstake|restake|withdraw}: a PENDING Transaction of the operation. */
  async operate(auth: AuthContext, walletId: string, action: StakingAction, body: StakeBody | StakingActionBody): Promise<TransactionView> {
    const { wallet, chain, staking } = await this.#master(auth, walletId, true);
    // A reference the wallet holds is a 409 before the chain is read; a concurrent twin is
    // refused by transactions.create, rolling back the hold taken with it.
    await this.deps.transactions.requireReferenceFree(this.deps.db, wallet.id, body.reference);
    const decimals = chain.config.blockchain.nativeDecimals;
    const symbol = chain.config.blockchain.symbol;
    let op: StakingOperation;
    if (action === 'stake' || action === 'unstake') {
      const { amount: text, resource } = body as StakeBody;
      const amount = parseAmount(text, decimals, 'amount');
      if (amount <= 0n) throw new ValidationError('amount must be greater than 0', [{ field: 'amount', message: 'must be > 0' }]);
      if (action === 'stake' && amount < staking.minimumStake) {
        const least = formatAmount(staking.minimumStake, decimals);
        throw new ValidationError(`A stake is at least ${least} ${symbol}`, [{ field: 'amount', message: `at least ${least}` }]);
      }
      op = { action, resource, amount };
    } else op = { action };

    // The chain's word first, outside any lock: what is staked, pending and unlocked now.
    const state = await staking.state(wallet.address);
    const amount = checkRule(op, state, decimals, symbol, staking.maxUnlocking);
    // Moves nothing: what it does is in the family's network data (Staking.network).
    const intent: TxIntent = { kind: 'native', from: wallet.address, to: wallet.address, amount: 0n };
    const quote = await chain.adapter.sender.quote(intent, staking.network(op), { fresh: true });
    const native = chain.assets.find((a) => a.is_native);
    const id = uuidv7();
    // Held like a withdrawal of the master: a stake's TRX and every operation's fee; what
    // that needs of the chain read before the transaction opens.
    const asset = native ? this.deps.catalogue.asset(native.id)! : null;
    const read = asset ? await this.withdrawals.readForMove({ chain, sender: wallet.address, asset }) : null;
    if (!read) await this.deps.outbound.ready(chain, [wallet.address]);

    await this.deps.db.transaction().execute(async (tx) => {
      // The rules again, with the master's operations accepted and not yet on chain: two
      // unstakes of all that is staked, sent at once, are one accepted and one 422, not two
      // Transactions of which the chain's pre-sign check fails one.
      await store.lockMaster(tx, chain.id, wallet.address);
      const inFlight = await store.inFlight(tx, wallet.id, chain.id, STAKING_TYPES);
      checkRule(op, pendingState(state, inFlight), decimals, symbol, staking.maxUnlocking);
      if (asset && read) {
        const move = {
          chain,
          sender: wallet.address,
          asset,
          amount: op.action === 'stake' ? amount : 0n,
          to: wallet.address,
          fee: quote.fee,
          // Active, read again under the standing's lock and held to the COMMIT (withdrawals/standing.ts).
          standing: { walletId: wallet.id },
        };
        await this.withdrawals.reserveForMove(tx, move, read);
      } else await this.withdrawals.requireStanding(tx, { walletId: wallet.id });
      await this.deps.transactions.create(
        tx,
        {
          id,
          wallet_id: wallet.id,
          address_id: null,
          chain_id: chain.id,
          asset_id: native?.id ?? null,
          reference: body.reference ?? shortReference(),
          type: KINDS[action].type,
          status: 'PENDING',
          stage: 'created',
          confirmed: false,
          amount: amount.toString(),
          amount_paid: amount.toString(),
          currency: symbol,
          sender_address: wallet.address,
          recipient_address: wallet.address,
          network: chain.row.network,
          created_channel: 'API',
          reserved_fee: quote.fee.toString(),
          metadata: { ...(body.metadata ?? {}), staking: stakingMetadata(op, state) },
        },
        null,
      ); // staking stays with the wallet: no policy type decides it
      await this.deps.outbound.enqueue(tx, {
        chainId: chain.id,
        walletId: wallet.id,
        wallet,
        fromIndex: 0,
        intent: bodyOf(intent),
        network: quote.fixed,
        purpose: STAKING_PURPOSE,
        ownerId: id,
      });
    });
    return this.deps.transactions.load(id);
  }

  /** outbound.signed of 'staking': the Transaction holds the signed hash. */
  async signed(tx: DbConn, row: OutboundRow): Promise<void> {
    if (row.ownerId && row.hash) await this.deps.transactions.recordSigned(tx, row.ownerId, { hash: row.hash, nonce: row.nonce });
  }

  /**
   * outbound.settled of 'staking'. With a receipt (mined or reverted) nothing is decided until
   * the receipt is final (confirmed): a reorganisation can still take its block away, and the
   * pipeline then sends the same bytes again. Without one (dropped, voided) it can never be
   * mined: the operation fails now.
   */
  async settled(tx: DbConn, row: OutboundRow): Promise<void> {
    if (!row.ownerId || row.receipt) return;
    await this.#fail(tx, row, null);
  }

  /**
   * outbound.confirmed of 'staking': at its final depth, a mined operation's outcome is read by
   * job staking_settle (a node call, so outside the pipeline's transaction); a reverted one fails.
   */
  async confirmed(tx: DbConn, row: OutboundRow, change: Confirmation): Promise<void> {
    if (change.kind === 'reorged' || !change.final || !row.ownerId) return;
    if (row.stage === 'mined' && row.receipt?.status === 'success') {
      const t = await this.deps.transactions.findRow(tx, row.ownerId);
      if (t && actionOf(t.type) && t.status === 'PENDING') {
        await jobs.staking_settle.add(tx, { id: t.id, depth: change.depth }, { key: jobs.staking_settle.key(t.id) });
      }
      return;
    }
    await this.#fail(tx, row, change.depth);
  }

  async #fail(tx: DbConn, row: OutboundRow, depth: number | null): Promise<void> {
    const t = await this.deps.transactions.findRow(tx, row.ownerId!);
    const action = t && actionOf(t.type);
    if (!t || !action || t.status !== 'PENDING') return;
    const moved = await this.deps.transactions.settleLeg(tx, t.id, {
      status: 'FAILED',
      stage: row.stage === 'mined' ? 'failed' : (row.stage as 'failed' | 'dropped' | 'replaced'),
      reason: this.deps.outbound.failure(row, KINDS[action].what),
      mined: this.deps.outbound.mined(row),
      ...(depth !== null ? { confirmations: depth } : {}),
    });
    if (moved) await this.deps.webhooks.emitForTransaction(tx, t.id, `${KINDS[action].event}.failed`);
  }

  /** Job staking_settle: the final operation's outcome, then `<operation>.success`; `depth`: its block's depth when final. */
  async finish(id: string, depth?: number): Promise<void> {
    const t = await this.deps.transactions.findRow(this.deps.db, id);
    const action = t && actionOf(t.type);
    if (!t || !action || t.status !== 'PENDING' || !t.hash) return;
    const staking = capability(this.deps.catalogue.chain(t.chain_id).adapter, 'staking');
    const outcome = await staking.outcome(t.hash);
    const [row] = (await this.deps.outbound.ofOwner(id)).filter((r) => r.stage === 'mined' && r.hash === t.hash);
    if (!row) throw new Error(`staking ${id}: its mined outbound row is not found`);
    const amount =
      action === 'withdraw' ? outcome.withdrawn : action === 'restake' ? Object.values(outcome.restaked).reduce((a, b) => a + b, 0n) : null;
    await this.deps.db.transaction().execute(async (tx) => {
      // What the chain did, which may differ from the request's view (an unstake that unlocked meanwhile).
      if (amount !== null) await this.deps.transactions.setLegAmount(tx, id, amount);
      const moved = await this.deps.transactions.settleLeg(tx, id, {
        status: 'SUCCESS',
        stage: 'mined',
        reason: null,
        mined: this.deps.outbound.mined(row),
        ...(depth !== undefined ? { confirmations: depth } : {}),
        // An unstake first pays out the unstakes that had unlocked (java-tron's unfreezebalancev2), as a withdrawal would.
        ...(action === 'unstake'
          ? {
              metadata: {
                staking: {
                  ...((t.metadata as { staking?: object } | null)?.staking ?? {}),
                  unlocksAt: outcome.unlocksAt.toISOString(),
                  withdrawn: outcome.withdrawn.toString(),
                },
              },
            }
          : {}),
        ...(action === 'restake' || action === 'withdraw'
          ? {
              metadata: {
                staking: {
                  ...((t.metadata as { staking?: object } | null)?.staking ?? {}),
                  withdrawn: outcome.withdrawn.toString(),
                  restaked: Object.fromEntries(Object.entries(outcome.restaked).map(([resource, v]) => [resource, v.toString()])),
                },
              },
            }
          : {}),
      });
      if (moved) await this.deps.webhooks.emitForTransaction(tx, id, `${KINDS[action].event}.success`);
    });
  }

  async #master(auth: AuthContext, walletId: string, writes: boolean): Promise<Master> {
    const wallet = await this.deps.wallets.require(auth, walletId);
    if (writes && !wallet.is_active) throw new BusinessRuleError('WALLET_INACTIVE', 'This wallet is deactivated');
    const chain = this.deps.wallets.chainOf(wallet);
    return { wallet, chain, staking: capability(chain.adapter, 'staking') };
  }
}

/**
 * The operation's rule against the chain's state; the amount its Transaction shows (a stake
 * or unstake: its own; a restake: what is pending; a withdrawal: what unlocked).
 */
function checkRule(op: StakingOperation, state: StakingState, decimals: number, symbol: string, maxUnlocking: number): bigint {
  const fmt = (v: bigint) => `${formatAmount(v, decimals)} ${symbol}`;
  const now = state.headTime.getTime();
  switch (op.action) {
    case 'stake':
      return op.amount;
    case 'unstake': {
      const p = state.positions.find((x) => x.resource === op.resource)!;
      if (op.amount > p.staked) {
        const lent = p.delegated > 0n ? ` (${fmt(p.delegated)} more is lent to other accounts and must be taken back first)` : '';
        throw new BusinessRuleError(
          'INSUFFICIENT_STAKE',
          `${fmt(p.staked)} is staked for ${op.resource}${lent}, less than ${fmt(op.amount)}`,
          [{ field: 'amount', message: 'more than is staked' }],
        );
      }
      // Those already unlocked are paid out by the unstake itself: only the others count.
      const waiting = state.unlocking.filter((u) => u.unlocksAt.getTime() > now);
      if (waiting.length >= maxUnlocking) {
        throw new BusinessRuleError(
          'UNSTAKE_LIMIT_REACHED',
          `${waiting.length} unstakes are waiting for their unlock, the most the chain allows; the next unlocks at ${waiting[0]!.unlocksAt.toISOString()} (or restake them all)`,
        );
      }
      return op.amount;
    }
    case 'restake': {
      if (state.unlocking.length === 0) throw new BusinessRuleError('NOTHING_TO_RESTAKE', 'No unstake is pending');
      return state.unlocking.reduce((s, u) => s + u.amount, 0n);
    }
    case 'withdraw': {
      const unlocked = state.unlocking.filter((u) => u.unlocksAt.getTime() <= now).reduce((s, u) => s + u.amount, 0n);
      if (unlocked === 0n) {
        const next = state.unlocking[0];
        throw new BusinessRuleError(
          'NOTHING_TO_WITHDRAW',
          next ? `Nothing has unlocked yet: ${fmt(next.amount)} unlocks at ${next.unlocksAt.toISOString()}` : 'No unstake is pending',
        );
      }
      return unlocked;
    }
  }
}

/**
 * The chain's state as it will be once the operations on their way are mined: an unstake
 * takes its amount out of its resource's stake and waits to unlock; a restake takes every
 * unstake back; a withdrawal takes what has unlocked. (A stake adds nothing an operation
 * may use before it is mined.)
 */
export function pendingState(state: StakingState, inFlight: readonly store.InFlight[]): StakingState {
  const now = state.headTime.getTime();
  let positions = state.positions;
  let unlocking = state.unlocking;
  for (const t of inFlight) {
    const action = actionOf(t.type);
    if (action === 'unstake') {
      const amount = BigInt(t.amount);
      positions = positions.map((p) => (p.resource === t.resource ? { ...p, staked: p.staked > amount ? p.staked - amount : 0n } : p));
      const resource = t.resource as StakingState['unlocking'][number]['resource'];
      unlocking = [...unlocking, { resource, amount, unlocksAt: new Date(now + state.unlockPeriodMs) }];
    } else if (action === 'restake') unlocking = [];
    else if (action === 'withdraw') unlocking = unlocking.filter((u) => u.unlocksAt.getTime() > now);
  }
  return { ...state, positions, unlocking };
}

/**
 * What the Transaction's metadata says of the operation (`staking`), beside the client's own;
 * an unstake's unlock date as expected now, made exact from the chain once it is mined.
 */
function stakingMetadata(op: StakingOperation, state: StakingState): Record<string, unknown> {
  if (op.action === 'unstake') {
    return {
      action: op.action,
      resource: op.resource,
      unlocksAt: new Date(state.headTime.getTime() + state.unlockPeriodMs).toISOString(),
    };
  }
  return op.action === 'stake' ? { action: op.action, resource: op.resource } : { action: op.action };
}

function present(wallet: WalletRow, chain: ChainHandle, s: StakingState): StakingView {
  const decimals = chain.config.blockchain.nativeDecimals;
  const coin = (v: bigint) => formatAmount(v, decimals);
  const now = s.headTime.getTime();
  const unlocked = (at: Date) => at.getTime() <= now;
  const pending = s.unlocking.filter((u) => !unlocked(u.unlocksAt));
  return {
    address: wallet.address,
    blockchain: chain.config.blockchain.slug,
    balance: coin(s.balance),
    totalStaked: coin(s.positions.reduce((sum, p) => sum + p.staked + p.delegated, 0n)),
    unlockPeriodDays: s.unlockPeriodMs / 86_400_000,
    positions: s.positions.map((p) => ({
      resource: p.resource,
      staked: coin(p.staked),
      delegated: coin(p.delegated),
      lendable: coin(p.lendable),
      resourceLimit: p.limit.toString(),
      resourceUsed: p.used.toString(),
    })),
    unlocking: s.unlocking.map((u) => ({
      resource: u.resource,
      amount: coin(u.amount),
      unlocksAt: u.unlocksAt.toISOString(),
      unlocked: unlocked(u.unlocksAt),
    })),
    withdrawable: coin(s.unlocking.filter((u) => unlocked(u.unlocksAt)).reduce((sum, u) => sum + u.amount, 0n)),
    nextUnlockAt: pending[0]?.unlocksAt.toISOString() ?? null,
  };
}
