/**
 * Planning a settlement: the chain reads made before anything is written (fees, the swap's
 * quote and route, the allowance, gas and the child's native balance). Run under the
 * sender's lock, once no other settlement of the sender is in flight (store.senderBusy),
 * so the allowance and the balance read are this settlement's to use.
 */
import type { DbConn } from '../../db/pool.js';
import { AppError } from '../../lib/errors.js';
import type { ModuleDeps } from '../deps.js';
import type { MoveRead, WithdrawalService } from '../withdrawals/service.js';
import type { WalletRow } from '../wallets/service.js';
import { ChainRejectedError } from '../../chains/errors.js';
import { capability, isZeroAddress } from '../../chains/registry.js';
import type { ChainAdapter, FeeQuote, NetworkData, Sender, TxIntent } from '../../chains/types.js';
import type { SwapPlan, SwapService } from '../swaps/service.js';
import type * as store from './store.js';
import type { MinedRecord } from '../outbound/service.js';
import { offers } from '../../chains/registry.js';

/** The swap must be mined within this long of planning, or it reverts (Router02's deadline). */
const SWAP_DEADLINE_SECONDS = 3_600n;

/** What a settlement keeps of its swap plan, so later steps need no new quote. */
export interface StoredPlan {
  path: string[];
  amountOutMin: string;
  quote: string;
  reference: string;
  referenceKind: string;
  deadline: string;
  approve: boolean;
  /**
   * approve(0) first: the allowance left is non-zero but short, and USDT-style tokens refuse
   * to change a non-zero allowance to another non-zero value.
   */
  resetApproval?: boolean;
  candidates: { path: string[]; amountOut: string }[];
  /** The swap's receipt once final, as outbound's minedRecord keeps it. */
  mined?: MinedRecord;
  /** Depth of the swap's block when it became final. */
  depth?: number;
}

export interface Planned {
  /**
   * The family's fee quote read (fresh) at planning: every leg is priced at its fees
   * (Sender.requote), and a child's legs are signed with them (its top-up paid for that).
   */
  quote: FeeQuote | null;
  /** The swap's plan (also kept when refused, for the record); null for a plain move. */
  plan: StoredPlan | null;
  /** Why the swap cannot be made (the pool cannot meet the slippage bound, no route). */
  refusal: string | null;
  /**
   * Limit of the final transfer from a child sender, in the family's units (EVM gas, Tron's
   * fee limit in sun); 0 from the master (estimated then) and where the transfer has none.
   */
  transferGas: bigint;
  /** Native coin the master sends the child first; 0 = none needed. */
  topup: bigint;
  /**
   * What sending the top-up costs the master (its own fee, more where the family charges for
   * creating the child); 0 without a top-up. The top-up and this are judged against the master's
   * own pending spends when the settlement is reserved (reserveAtSender, as a sweep's top-up is).
   */
  topupFee?: bigint;
  /**
   * What the child's own transactions can cost it in the native coin (what its top-up was
   * reckoned against, top-up included); 0 from the master and where another account pays a
   * child's fees (feeSponsorship: Solana's master signs as fee payer).
   */
  childFee: bigint;
  /** What reserving the settlement at its sender reads of the chain (reserveAtSender); null when refused. */
  read: MoveRead | null;
}

export async function planSettlement(
  deps: ModuleDeps,
  swaps: SwapService,
  withdrawals: Pick<WithdrawalService, 'inFlight' | 'readForMove'>,
  s: store.SettlementRow,
  sender: string,
  /** Where the plan's database reads go (the pool: plans are made before the transaction that records them). */
  db: DbConn,
): Promise<Planned> {
  const { catalogue } = deps;
  const adapter = catalogue.chain(s.chain_id).adapter;
  const assetIn = catalogue.asset(s.asset_in_id)!.row;
  const assetOut = catalogue.asset(s.asset_out_id)!.row;
  const rule = s.rule;
  const amountIn = BigInt(s.amount_in);
  const fromChild = s.from_index !== 0;
  const swapping = assetIn.id !== assetOut.id;
  const family = adapter.sender;
  // A rule saved before zero destinations were refused (validate.ts) settles nothing there.
  if (isZeroAddress(catalogue.chain(s.chain_id).config, rule.destination.address)) {
    return {
      quote: null,
      plan: null,
      refusal: 'The destination is the zero address; funds sent there are lost',
      transferGas: 0n,
      topup: 0n,
      childFee: 0n,
      read: null,
    };
  }
  let plan: StoredPlan | null = null;
  let refusal: string | null = null;
  let quote: FeeQuote | null;
  if (swapping) {
    // A swap's legs are priced in the family's units at the fees now, read on the swaps
    // capability's probe (a payment that moves nothing; its limit is fixed: nothing is estimated).
    // Without one (the router switched off since the rule was saved) swaps.plan says so: the refusal.
    const probe = offers(adapter, 'swaps') ? capability(adapter, 'swaps').probe(sender) : null;
    quote = probe && (await family.quote(probe.intent, probe.network, { fresh: true }));
  } else {
    // A plain move is one transfer: the family quotes it as it will be sent (its limit, fees
    // and whatever else it prices), in its own units.
    // A child's move names the master as fee payer where the family lets it pay (Solana): quoted as sent.
    const move = moveOf(assetIn, sender, rule.destination.address, amountIn);
    if (fromChild && offers(adapter, 'feeSponsorship')) move.feePayer = (await deps.wallets.requireRow(s.wallet_id, db)).address;
    quote = await quoteMove(family, move).catch((err: unknown) => {
      if (!(err instanceof ChainRejectedError)) throw err;
      refusal = `The chain refuses this transfer: ${err.message}`;
      return null;
    });
  }
  if (swapping) {
    const result = await swaps.plan(s.chain_id, {
      from: { address: assetIn.address, decimals: assetIn.decimals, symbol: assetIn.symbol, currency: assetIn.currency },
      to: { address: assetOut.address, decimals: assetOut.decimals, symbol: assetOut.symbol, currency: assetOut.currency },
      amountIn,
      order: rule.order,
      slippage: rule.slippage_tolerance,
      feeOf: (network) => family.requote(quote!, network).fee,
    });
    if (result.ok) {
      const allowance = await result.plan.provider.allowance(assetIn.address, sender);
      plan = storedPlan(result.plan, allowance < amountIn, BigInt(Math.floor(deps.clock.now().getTime() / 1000)) + SWAP_DEADLINE_SECONDS);
      plan.resetApproval = allowance > 0n && allowance < amountIn;
    } else refusal = result.reason;
    if (result.plan) plan ??= storedPlan(result.plan, false, 0n);
  }
  let topup = 0n;
  let transferGas = 0n;
  let childFee = 0n;
  if (fromChild && !refusal && quote) {
    let network = quote.network;
    if (swapping) {
      transferGas = capability(adapter, 'swaps').outputTransferLimit(assetOut.is_native);
      // The child's legs and its final transfer, taken together: what its top-up pays for.
      const transfer = family.fixedNetwork({ limit: transferGas });
      network = family.requote(quote, plan ? legsOf(adapter, plan, [transfer]) : transfer).network;
    } else {
      // The child signs the move with the limit quoted (in the family's units; none: 0).
      transferGas = quote.limit?.limit ?? 0n;
    }
    // What the child's own spends in flight hold of its native coin (a payout, their fees) is
    // not there for the legs: the top-up makes up for it, or reserveAtSender would refuse a
    // settlement that a larger top-up lets through.
    const [[native], held] = await Promise.all([
      adapter.getBalances([{ owner: sender, token: null }]),
      withdrawals.inFlight(catalogue.chain(s.chain_id), sender, assetIn.id, { db }),
    ]);
    // Native coin AML screening holds at the child is not there for the legs either (standingNative).
    const taken = held.native + held.standingNative;
    const free = native! > taken ? native! - taken : 0n;
    const funding = family.childFeeFunding({ nativeBalance: free, value: assetIn.is_native ? amountIn : 0n, network });
    topup = funding.kind === 'transfer' ? funding.amount : 0n;
    childFee = offers(adapter, 'feeSponsorship') ? 0n : family.costOf(0n, network);
  }

  // Read with the plan, before the transaction that records it (reserveAtSender judges it there).
  const master = fromChild ? [(await deps.wallets.requireRow(s.wallet_id, db)).address] : [];
  // A top-up is the master's spend: what sending it costs, and the master's balance, are read
  // now, so that it is judged beside the master's own pending payouts (reserveAtSender).
  const topupFee =
    !refusal && topup > 0n
      ? (await family.quote({ kind: 'native', from: master[0]!, to: sender, amount: topup }, {}, { fresh: true })).fee
      : 0n;
  const funder = !refusal && topup > 0n ? { funder: master[0]! } : {};
  const read = refusal
    ? null
    : await withdrawals.readForMove(
        { chain: catalogue.chain(s.chain_id), sender, asset: catalogue.asset(s.asset_in_id)!, ...funder },
        master,
        db,
      );
  return { quote, plan, refusal, transferGas, topup, topupFee, childFee, read };
}

/**
 * Why AML screening refuses the settlement's destination (modules/aml), or null. Asked before
 * anything is planned, reserved or signed, and before the transaction that plans a child's
 * settlement opens: the providers' answers (and the audit row of a refusal, in a transaction of
 * its own) must not wait while that transaction holds a connection and the sender's lock.
 * Listed, the settlement fails (auto-settlement.failed) with the list named; a provider that
 * does not answer on a wallet that fails closed throws AML_UNAVAILABLE, and the job tries again.
 */
export async function screenDestination(deps: ModuleDeps, s: store.SettlementRow, wallet: WalletRow): Promise<string | null> {
  if (!deps.aml) return null;
  try {
    await deps.aml.checkPayout({
      wallet,
      chain: deps.catalogue.chain(s.chain_id),
      recipients: [{ address: s.rule.destination.address, field: 'destination.address' }],
      operation: 'auto-settlement',
      actor: `auto-settlement:${s.id}`,
    });
    return null;
  } catch (err) {
    if (err instanceof AppError && err.code === 'AML_BLOCKED') return `AML_BLOCKED: ${err.message}`;
    throw err;
  }
}

/** The plan of a settlement refused before anything was planned (screenDestination's reason). */
export function refusedPlan(refusal: string): Planned {
  return { quote: null, plan: null, refusal, transferGas: 0n, topup: 0n, childFee: 0n, read: null };
}

/** The transfer a plain move sends: a payment of the native coin, or of the token. */
function moveOf(asset: { is_native: boolean; address: string }, from: string, to: string, amount: bigint): TxIntent {
  return asset.is_native ? { kind: 'native', from, to, amount } : { kind: 'token', from, token: asset.address, to, amount };
}

const quoteMove = (family: Sender, move: TxIntent) => family.quote(move, {}, { fresh: true });

/** The network data of the plan's approvals and swap taken together, and `more` (the swaps capability's legs). */
function legsOf(adapter: ChainAdapter, plan: StoredPlan, more: NetworkData[] = []): NetworkData {
  return capability(adapter, 'swaps').legs({ path: plan.path, approvals: Number(approvals(plan)), more });
}

/** How many approve transactions the plan sends before its swap. */
export function approvals(p: StoredPlan): bigint {
  return p.approve ? (p.resetApproval ? 2n : 1n) : 0n;
}

function storedPlan(
  p: Pick<SwapPlan, 'route' | 'amountOutMin' | 'reference' | 'referenceKind' | 'candidates'>,
  approve: boolean,
  deadline: bigint,
): StoredPlan {
  return {
    path: p.route.path,
    amountOutMin: p.amountOutMin.toString(),
    quote: p.route.amountOut.toString(),
    reference: p.reference.toString(),
    referenceKind: p.referenceKind,
    deadline: deadline.toString(),
    approve,
    candidates: p.candidates,
  };
}

/** What the SWAP transaction's metadata shows of the plan (base units as strings). */
export function publicPlan(p: StoredPlan): Record<string, unknown> {
  return {
    path: p.path,
    quote: p.quote,
    amountOutMin: p.amountOutMin,
    reference: p.reference,
    referenceKind: p.referenceKind,
    routes: p.candidates,
  };
}

/**
 * Holds a settlement's input at its sender (the master, or the child it leaves from) against
 * withdrawals, in the transaction that records it, under the sender's withdrawal lock (see
 * WithdrawalService.reserveForMove); returns the reason to refuse the settlement when pending
 * withdrawals, swaps or settlements leave too little for it. Without this a withdrawal
 * accepted meanwhile and the settlement could both be sent, and the second to be mined would
 * fail on chain, fee paid. A child may hold no native coin until its top-up lands, so of its
 * fee it must hold only what the top-up leaves to it (the top-up was reckoned from what the
 * child's spends in flight left of its balance when planned; one accepted since is caught
 * here, under the lock). `fee`: what the legs may
 * cost the sender in all (a child's top-up included), for the settlement's leg to hold
 * against later withdrawals while it is in flight (withdrawals/store.ts heldBack).
 */
export async function reserveAtSender(
  deps: ModuleDeps,
  withdrawals: WithdrawalService,
  tx: DbConn,
  s: store.SettlementRow,
  sender: string,
  { plan, quote, topup, topupFee, childFee, read }: Planned,
): Promise<{ refusal: string | null; fee: bigint }> {
  const asset = deps.catalogue.asset(s.asset_in_id)!;
  const fromChild = s.from_index !== 0;
  const chain = deps.catalogue.chain(s.chain_id);
  const nativeOut = deps.catalogue.asset(s.asset_out_id)!.row.is_native;
  const fee = fromChild ? childFee : masterFee(chain.adapter, s, nativeOut, plan, quote!);
  try {
    // The child's legs were priced with its top-up (planSettlement): what the master sends it
    // is not the child's to hold already.
    const own = fromChild ? (childFee > topup ? childFee - topup : 0n) : fee;
    // planSettlement read it for every plan it did not refuse (and a refused one is not reserved).
    if (!read) throw new Error(`settlement ${s.id}: reserved without the plan's read of the sender`);
    // The master's top-up of a child: the master must hold it and its fee beside its own pending
    // spends (a payout waiting for approval, say), or one of the two fails on chain. Its outbound
    // row then holds its value at the master for the spends that follow.
    const funder =
      fromChild && topup > 0n
        ? (() => {
            if (!read.funder) throw new Error(`settlement ${s.id}: a top-up reserved without the plan's read of the master`);
            return { funder: { address: read.funder.address, value: topup, fee: topupFee ?? 0n } };
          })()
        : {};
    const move = { chain, sender, asset, amount: BigInt(s.amount_in), to: s.rule.destination.address, fee: own, ...funder };
    await withdrawals.reserveForMove(tx, move, read);
    return { refusal: null, fee };
  } catch (err) {
    if ((err as { code?: string }).code !== 'INSUFFICIENT_BALANCE') throw err;
    const who = fromChild ? 'The sending address' : 'The master address';
    return { refusal: `${who} cannot pay this settlement now: ${(err as Error).message}`, fee: 0n };
  }
}

/**
 * What the master's legs can cost it: a plain move's own quote (planSettlement); a swap's
 * approvals, swap and the transfer of its output, at the quote's fees. The transfer is
 * estimated when it is signed (the swap's output is known only then): held at the limit a
 * child signs it with (outputTransferLimit), as the child's legs are (planSettlement's childFee).
 */
function masterFee(adapter: ChainAdapter, s: store.SettlementRow, nativeOut: boolean, plan: StoredPlan | null, quote: FeeQuote): bigint {
  if (s.asset_in_id === s.asset_out_id) return quote.fee;
  const transfer = adapter.sender.fixedNetwork({ limit: capability(adapter, 'swaps').outputTransferLimit(nativeOut) });
  return adapter.sender.requote(quote, plan ? legsOf(adapter, plan, [transfer]) : transfer).fee;
}
