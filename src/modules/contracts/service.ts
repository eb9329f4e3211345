/**
 * Smart-contract calls on behalf of the master address (index 0) or a child address:
 * read (eth_call), network fee, write (through the outbound pipeline) and sign-only.
 *
 * Every call of a request is validated (ABI, method, arguments) before any RPC is made,
 * and every write is simulated before anything is written: a revert is a 422 with its
 * reason and leaves no row behind. A write's Transaction and its outbound row (nonce,
 * send job) are created in one database transaction, so there is never one without the
 * other. Simulation runs each call against the current state: a call that only succeeds
 * after an earlier call of the same request (approve, then transferFrom) is refused; send
 * such calls in separate requests.
 *
 * Writes obey the wallet's contract-write setting and, when they move the wallet's funds,
 * the withdrawal rules (rules.ts): the whitelist, and the balance reservation under the
 * paying addresses' withdrawal locks, in the transaction that records them. Every write
 * reserves its gas like a withdrawal.
 */
import type { DbConn } from '../../db/pool.js';

import type { EncodedContractCall, FeeQuote, TxIntent } from '../../chains/types.js';
import { capability } from '../../chains/registry.js';
import { BusinessRuleError, ValidationError } from '../../lib/errors.js';
import { uuidv7 } from '../../lib/ids.js';
import { formatAmount, parseAmount } from '../../lib/money.js';
import { combineScreenings, type AmlScreening } from '../aml/service.js';
import type { AuthContext } from '../apikeys/service.js';
import { countedOf } from '../policies/service.js';

import type { TransactionView } from '../transactions/service.js';
import type { Confirmation, OutboundRow } from '../outbound/service.js';
import type { PreparedMoves, WithdrawalService } from '../withdrawals/service.js';

import { CONTRACT_PURPOSE, insertPendingWrite, insertSignedWrite, settleWrite, type SignedCall } from './records.js';
import { checkPolicy, movesOf, requirePolicyStanding, tokenCall, type CallMoves } from './rules.js';
import type { ContractCalls } from './schemas.js';
import * as store from './store.js';
import type { Actor, ContractServiceDeps } from './types.js';
import { candidatesOf, requirePolicies } from './policy.js';

export type { ContractServiceDeps } from './types.js';
export { requireContractsAllowed } from './rules.js';

interface Plan {
  encoded: EncodedContractCall[];
  /** Native value per call, base units. */
  values: bigint[];
  /**
   * The family's quote of each call over its simulated figure (writes: with the family's
   * margin, as the outbound pipeline signs by default, so what a node checks is covered).
   */
  quotes: FeeQuote[];
  balance: bigint;
}

/** A write's plan with what it moves, checked against the balances before any lock. */
interface Checked extends Plan {
  moves: CallMoves;
  prepared: PreparedMoves;
}

export class ContractService {
  constructor(
    readonly deps: ContractServiceDeps,
    private readonly withdrawals: WithdrawalService,
  ) {}

  /** outbound.settled of 'contract' (src/subscriptions.ts): see records.ts, settleWrite. */
  writeSettled(tx: DbConn, row: OutboundRow): Promise<void> {
    return settleWrite(tx, row, this.deps);
  }

  /**
   * outbound.confirmed of 'contract'. A write is followed to the chain's depth so that one a
   * reorganisation takes away is sent again (the same bytes; its nonce would otherwise be a
   * hole no later transaction of the sender is mined past). Taken away, its Transaction goes
   * back to PENDING (its moves held again): the same bytes can run with the other outcome on
   * the new branch (a revert where it succeeded, or the reverse), and settleWrite only settles
   * a PENDING write, so a write left SUCCESS would keep an outcome the chain no longer has.
   */
  async writeConfirmed(tx: DbConn, row: OutboundRow, change: Confirmation): Promise<void> {
    if (change.kind === 'depth') return;
    this.deps.logger.warn(
      { transactionId: row.ownerId, hash: row.hash, change: change.kind },
      change.kind === 'reorged' ? 'contract write reorged away; the same bytes are sent again' : 'contract write re-mined in another block',
    );
    if (change.kind !== 'reorged' || !row.ownerId || !row.hash) return;
    const reason = `reorganised away, being sent again: ${change.reason}`;
    if (await this.deps.transactions.reopenAfterReorg(tx, row.ownerId, row.hash, reason)) await store.unsettleMoves(tx, row.ownerId);
  }

  /** outbound.signed of 'contract': the write holds its signed hash and nonce. */
  async writeSigned(tx: DbConn, row: OutboundRow): Promise<void> {
    if (row.ownerId && row.hash)
      await this.deps.transactions.recordSigned(tx, row.ownerId, { hash: row.hash, nonce: row.nonce }, 'CUSTOM_SMART_CONTRACT');
  }

  /** One value as text per call; one call gives the value alone (DESIGN section 4). */
  async read(auth: AuthContext, walletId: string, addressId: string | undefined, calls: ContractCalls): Promise<string | string[]> {
    const actor = await this.actor(auth, walletId, addressId, false);
    const inputs = withValues(actor, calls);
    const contracts = capability(actor.chain.adapter, 'contracts');
    for (const [i, call] of inputs.entries()) contracts.encodeContractCall(call, `calls.${i}`);
    const values = await inOrder(inputs.map((call, i) => contracts.readContract(call, actor.address, `calls.${i}`)));
    return calls.length === 1 ? values[0]! : values;
  }

  /** The sender's native balance and the estimated fee (each call priced at its simulated figure, no margin; summed). */
  async networkFee(
    auth: AuthContext,
    walletId: string,
    addressId: string | undefined,
    calls: ContractCalls,
  ): Promise<{ balance: string; fee: string }> {
    const actor = await this.actor(auth, walletId, addressId, false);
    const plan = await this.plan(actor, calls, false);
    const decimals = actor.chain.config.blockchain.nativeDecimals;
    const fee = plan.quotes.reduce((sum, q) => sum + q.fee, 0n);
    return { balance: formatAmount(plan.balance, decimals), fee: formatAmount(fee, decimals) };
  }

  /** PENDING CUSTOM_SMART_CONTRACT Transactions, one per call, sent in call order (consecutive nonces). */
  async write(
    auth: AuthContext,
    walletId: string,
    addressId: string | undefined,
    calls: ContractCalls,
  ): Promise<TransactionView | TransactionView[]> {
    const actor = await this.actor(auth, walletId, addressId, true);
    const plan = await this.checked(actor, calls);
    const screenings = await this.screen(auth, actor, plan, 'contract-write');
    const candidates = await candidatesOf(this.deps, auth, actor, plan);
    // The sender's first nonce, read before the transaction (no connection waits on the node).
    await this.deps.outbound.ready(actor.chain, [actor.address]);
    const ids = await this.deps.db.transaction().execute(async (tx) => {
      // The locks, the whitelist and the reservations first: a refusal writes nothing.
      await ruled(this.withdrawals.reserveMoves(tx, actor.wallet.id, plan.prepared, screenings));
      // The contract-write setting as it stands now (a change answered meanwhile binds).
      await requirePolicyStanding(this.deps, tx, actor, plan.encoded);
      // Transaction policies (CONTRACT_WRITE), under the velocity windows' locks.
      await requirePolicies(this.deps, tx, actor, candidates, true);
      const made: string[] = [];
      for (const [i, call] of calls.entries()) {
        const id = uuidv7();
        const sent = await this.deps.outbound.enqueue(tx, {
          chainId: actor.chain.id,
          walletId: actor.wallet.id,
          fromIndex: actor.index!,
          intent: { kind: 'call', to: plan.encoded[i]!.to, value: plan.values[i]!, data: plan.encoded[i]!.data },
          // Signed within the fee reserved for it (quoted again when signed: outbound/enqueue.ts).
          ...(plan.quotes[i]!.fee > 0n ? { feeCeiling: plan.quotes[i]!.fee } : {}),
          purpose: CONTRACT_PURPOSE,
          ownerId: id,
        });
        await insertPendingWrite(tx, actor, id, call, plan.encoded[i]!, sent.nonce, countedOf(candidates[i]!), this.deps, screenings[i]);
        await this.record(tx, actor, id, plan, i, plan.quotes[i]!.fee);
        made.push(id);
      }
      return made;
    });
    return this.views(ids);
  }

  /**
   * SIGNED Transactions holding raw signed transactions (EVM: EIP-1559; Tron: the serialized
   * Transaction /wallet/broadcasthex takes), nothing broadcast. On a nonce family the nonce
   * is the sender's next one, max(the chain's pending count, our counter's next value), not
   * reserved: if the service sends from the same address before the client broadcasts,
   * the two collide and only one of them can be mined. An expiry family (Tron) takes no
   * nonce: each call is prepared afresh (a new deadline) with the fee limit it was quoted.
   */
  async writeSign(
    auth: AuthContext,
    walletId: string,
    addressId: string | undefined,
    calls: ContractCalls,
  ): Promise<TransactionView | TransactionView[]> {
    const actor = await this.actor(auth, walletId, addressId, true);
    const plan = await this.checked(actor, calls);
    const screenings = await this.screen(auth, actor, plan, 'contract-write-sign');
    await ruled(this.withdrawals.checkMoves(actor.wallet.id, plan.prepared));
    // Policies before anything is signed, and again in the recording transaction.
    const candidates = await candidatesOf(this.deps, auth, actor, plan);
    await requirePolicies(this.deps, this.deps.db, actor, candidates, false);
    const { adapter } = actor.chain;
    const intents = plan.encoded.map((encoded, i) => intentOf(actor, encoded, plan.values[i]!));
    // What the family quoted is what is signed (an expiry family builds it now, with the
    // quoted fee limit and a fresh deadline), at the sender's next nonces where it has them.
    const slots = await this.deps.outbound.detached(
      actor.chain,
      actor.address,
      intents.map((intent, i) => ({ intent, quote: plan.quotes[i]! })),
    );
    const signed: SignedCall[] = [];
    for (const [i, intent] of intents.entries()) {
      const { nonce, network } = slots[i]!;
      const s = await this.deps.signer.withKey(actor.wallet.id, actor.index!, actor.address, (key) =>
        adapter.sender.sign(intent, nonce, network, key),
      );
      // The record shows its nonce and its fee fields.
      signed.push({ ...s, nonce, fees: adapter.fees.ofNetwork(network) });
    }
    const ids = calls.map(() => uuidv7());
    await this.deps.db.transaction().execute(async (tx) => {
      // A refusal here rolls back, and the signatures made are never handed out: the wallet
      // deactivated or a beneficiary unlisted while it signed, by any API process (read under
      // the standing's lock, held to the COMMIT: withdrawals/standing.ts), or the policies.
      await ruled(this.withdrawals.requireMovesStanding(tx, actor.wallet.id, plan.prepared, screenings));
      await requirePolicyStanding(this.deps, tx, actor, plan.encoded);
      await requirePolicies(this.deps, tx, actor, candidates, true);
      for (const [i, call] of calls.entries()) {
        await insertSignedWrite(
          tx,
          actor,
          ids[i]!,
          call,
          plan.encoded[i]!,
          signed[i]!,
          countedOf(candidates[i]!),
          this.deps,
          screenings[i],
        );
        await this.record(tx, actor, ids[i]!, plan, i, null);
      }
    });
    return this.views(ids);
  }

  /**
   * plan, then the rules: the wallet's contract-write setting, the gas check, what the calls
   * move (400 for a recognised selector with undecodable arguments), and a first check of
   * the moves against balances, allowances and holds (withdrawals/moves.ts). The authoritative
   * check is repeated under the locks (write) or without them (write/sign).
   */
  private async checked(actor: Actor, calls: ContractCalls): Promise<Checked> {
    const plan = await this.plan(actor, calls);
    requireGasFunds(actor, plan);
    const moves = await movesOf(
      this.deps,
      actor,
      plan.encoded,
      plan.values,
      plan.quotes.map((q) => q.fee),
    );
    const prepared = await ruled(this.withdrawals.prepareMoves(actor.chain, moves.owners));
    return { ...plan, moves, prepared };
  }

  /**
   * AML screening before anything is reserved or signed (modules/aml): each contract called
   * (a sanctioned contract is a sanctioned address) and everyone a call pays or lets pull the
   * wallet's funds (a transfer's recipient, an allowance's spender).
   */
  private async screen(auth: AuthContext, actor: Actor, plan: Checked, operation: string): Promise<(AmlScreening | undefined)[]> {
    const perCall = plan.encoded.map((e, i) => [
      { address: e.to, field: `calls.${i}.address` },
      ...plan.moves.moves[i]!.map((m) => ({ address: m.beneficiary, field: `calls.${i}.parameters` })),
    ]);
    const screenings =
      (await this.deps.aml?.checkPayout({
        wallet: actor.wallet,
        chain: actor.chain,
        recipients: perCall.flat(),
        operation,
        actor: `api-key:${auth.keyId}`,
      })) ?? [];
    // Each call's Transaction keeps the screening of the addresses it pays (NOT_SCREENED when
    // one went unscreened on a wallet that lets payouts through), as a withdrawal's does.
    let at = 0;
    return perCall.map((r) => combineScreenings(screenings.slice(at, (at += r.length))));
  }

  /** What call `i` moves (contract_moves), the spenders it grants allowances to, and the gas it reserves. */
  private async record(tx: DbConn, actor: Actor, id: string, plan: Checked, i: number, reservedFee: bigint | null): Promise<void> {
    await store.recordMoves(tx, actor.chain.id, id, plan.moves.moves[i]!, reservedFee === null);
    if (reservedFee !== null) await this.deps.transactions.reserveFee(tx, id, reservedFee);
  }

  /** Validates every call (400s first), then simulates each as the sender and reads fees and balance. */
  private async plan(actor: Actor, given: ContractCalls, writes = true): Promise<Plan> {
    const { adapter } = actor.chain;
    const contracts = capability(adapter, 'contracts');
    const calls = withValues(actor, given);
    const encoded = calls.map((call, i) => {
      const e = contracts.encodeContractCall(call, `calls.${i}`);
      if (e.stateMutability === 'view' || e.stateMutability === 'pure') {
        throw new ValidationError(`calls.${i}.method ${e.signature} is ${e.stateMutability}: read it with contracts/read`, [
          { field: `calls.${i}.method`, message: `${e.stateMutability} functions change nothing; use contracts/read` },
        ]);
      }
      return e;
    });
    if (writes) {
      checkPolicy(this.deps, actor, encoded);
      encoded.forEach((e, i) => tokenCall(actor, e, i));
    }
    const [sims, balances] = await Promise.all([
      inOrder(calls.map((call, i) => contracts.simulateContractCall(call, actor.address, `calls.${i}`))),
      adapter.getBalances([{ owner: actor.address, token: null }]),
    ]);
    // One fresh read of the fees for every call. A write's limit is the simulated figure with
    // the family's margin; the network-fee endpoint prices the figure itself.
    const quotes = await adapter.sender.quoteAll(
      sims.map((sim, i) => ({
        intent: intentOf(actor, encoded[i]!, calls[i]!.value),
        estimate: sim.gas,
        exact: !writes,
      })),
      { fresh: true },
    );
    return { encoded, values: calls.map((c) => c.value), quotes, balance: balances[0]! };
  }

  /** The acting address; foreign wallets and addresses are 404s. Writing needs the key and an active wallet. */
  private async actor(auth: AuthContext, walletId: string, addressId: string | undefined, writes: boolean): Promise<Actor> {
    let actor: Actor;
    if (addressId === undefined) {
      const wallet = await this.deps.wallets.require(auth, walletId);
      actor = { wallet, chain: this.deps.wallets.chainOf(wallet), address: wallet.address, index: 0, addressId: null };
    } else {
      const { wallet, address } = await this.deps.addresses.require(auth, walletId, addressId);
      const chain = this.deps.wallets.chainOf(wallet);
      actor = { wallet, chain, address: address.address, index: address.derivation_index, addressId: address.id };
    }
    if (writes && !actor.wallet.is_active) throw new BusinessRuleError('WALLET_INACTIVE', 'This wallet is deactivated');
    if (writes && actor.index === null) {
      throw new BusinessRuleError('NO_PRIVATE_KEY', 'The service holds no key for an external address: it can only read and estimate');
    }
    return actor;
  }

  private async views(ids: string[]): Promise<TransactionView | TransactionView[]> {
    const views = await Promise.all(ids.map((id) => this.deps.transactions.load(id)));
    return views.length === 1 ? views[0]! : views;
  }
}

/** A call as the family sees the transaction that sends it. */
function intentOf(actor: Actor, encoded: EncodedContractCall, value: bigint): TxIntent {
  return { kind: 'call', from: actor.address, to: encoded.to, value, data: encoded.data };
}

/** The calls with their native value in base units (`value` is a decimal string in the coin's units). */
function withValues(actor: Actor, calls: ContractCalls): (Omit<ContractCalls[number], 'value'> & { value: bigint })[] {
  const decimals = actor.chain.config.blockchain.nativeDecimals;
  return calls.map((call, i) => ({
    ...call,
    value: call.value === undefined ? 0n : parseAmount(call.value, decimals, `calls.${i}.value`),
  }));
}

/** A node refuses a transaction whose sender cannot pay its most fee (plus value); refused here first, with numbers. */
function requireGasFunds(actor: Actor, plan: Plan): void {
  const needed = plan.quotes.reduce((sum, q) => sum + q.fee, 0n);
  if (plan.balance >= needed) return;
  const d = actor.chain.config.blockchain.nativeDecimals;
  const symbol = actor.chain.config.blockchain.symbol;
  throw new BusinessRuleError(
    'INSUFFICIENT_FUNDS_FOR_GAS',
    `${actor.address} holds ${formatAmount(plan.balance, d)} ${symbol} but may need up to ${formatAmount(needed, d)} ${symbol} for gas`,
  );
}

/**
 * The withdrawal rules name a withdrawal's fields (`amount`, `address`); a contract call's
 * amount and recipient are inside its parameters (or its value), so the call is named.
 */
async function ruled<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (!(err instanceof BusinessRuleError) || !err.details) throw err;
    const details = err.details.map((d) => ({ ...d, field: d.field.replace(/^(calls\.\d+)\.(amount|address)$/, '$1') }));
    throw new BusinessRuleError(err.code, err.message, details);
  }
}

/** Awaits all; on failure throws the error of the first failing call in call order (not the first to fail in time). */
async function inOrder<T>(promises: Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(promises);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}
