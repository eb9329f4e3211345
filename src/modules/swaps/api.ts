/**
 * Swaps through the API (issue 27, 1): `POST .../swaps/quote` and `.../swaps/execute`, from
 * the master address or a child address (`.../addresses/{addressId}/swaps/...`), on a chain
 * whose family offers the swaps capability with a router configured (EVM; the devnet AMM in
 * the embedded default): elsewhere 422 NOT_SUPPORTED (capability()). Both assets must be on the
 * wallet's chain (no bridge: 422 CROSS_CHAIN_SWAP_NOT_SUPPORTED).
 *
 * A quote is the route SwapService.plan chooses (the order) with its minimum output
 * (quote.ts: par or mid reference less `slippageTolerance`, or the quote itself for
 * NO_SLIPPAGE); a pool that cannot meet it is refused (422 SLIPPAGE_EXCEEDED). It is kept
 * with an id and an expiry. Execution quotes again, always, before anything is written: a
 * live quote is executed with its own minimum, an expired one with the higher of its minimum
 * and the new one (never at a stale rate), and either is refused when the pool no longer
 * gives that minimum. The minimum and a deadline are signed into the router call, so a pool
 * that moves after signing makes the swap revert (swap.failed, the input stays where it was)
 * rather than fill below it.
 *
 * Execution writes, in one database transaction under the sender's lock: the whitelist applied
 * to a recipient other than the sender, the transaction policies (a SWAP candidate: the input
 * asset and amount, to the recipient, initiated by the API key; anything but ALLOW refuses it,
 * as a swap cannot wait for approval; decided under the sender's withdrawal lock, which comes
 * before the velocity windows' locks as in a withdrawal), the input held like a withdrawal
 * (the SWAP row counts in the withdrawal reservations), the SWAP Transaction, the swap row,
 * the quote marked used, and the first transactions (a child's fee top-up, or [approve(0)]
 * [approve] and the swap, in nonce order). flow.ts follows them.
 */
import { capability, isZeroAddress } from '../../chains/registry.js';
import type { FeeQuote } from '../../chains/types.js';
import { BusinessRuleError, ConflictError, NotFoundError, ValidationError } from '../../lib/errors.js';
import { shortReference, uuidv7 } from '../../lib/ids.js';
import { formatAmount, parseAmount } from '../../lib/money.js';
import type { AuthContext } from '../apikeys/service.js';
import { tokenAt, type AssetHandle, type ChainHandle } from '../catalogue/service.js';
import type { ModuleDeps } from '../deps.js';
import { initiatorOf, movedOf, type Candidate } from '../policies/service.js';
import { usdValue } from '../rates/service.js';
import type { TransactionView } from '../transactions/service.js';
import type { WalletRow } from '../wallets/service.js';
import type { WithdrawalService } from '../withdrawals/service.js';
import { SwapFlow } from './flow.js';
import type { SwapExecuteBody, SwapQuoteBody, SwapQuoteView } from './schemas.js';
import type { SwapService } from './service.js';
import * as store from './store.js';
import type { Order } from './types.js';

const DEFAULT_SLIPPAGE = '0.5';
/** The swap must be mined within this long of its execution, or the router reverts it. */
const DEADLINE_SECONDS = 600n;
const SECONDS_PER_TRANSACTION = 15;

export interface SwapApiOptions {
  /** How long a quote can be executed as quoted (default 60 s). */
  quoteTtlMs?: number;
}

/** Who swaps: the master (index 0) or a child address. */
interface Actor {
  wallet: WalletRow;
  chain: ChainHandle;
  address: string;
  index: number;
  addressId: string | null;
}

interface Request {
  from: AssetHandle;
  to: AssetHandle;
  amountIn: bigint;
  order: Order;
  slippage: string;
  recipient: string;
}

/** A request priced now: the route, its minimum, and what the swap's transactions cost. */
interface Priced extends Request {
  route: store.RoutePlan;
  minOut: bigint;
  fees: FeeQuote;
  /** What the swap, the most approvals it may need and a child's top-up cost at `fees`. */
  networkFee: bigint;
  nativeBalance: bigint;
}

export class SwapApi {
  readonly flow: SwapFlow;
  readonly #ttlMs: number;

  constructor(
    private readonly deps: ModuleDeps,
    private readonly swaps: SwapService,
    private readonly withdrawals: WithdrawalService,
    opts: SwapApiOptions = {},
  ) {
    this.#ttlMs = opts.quoteTtlMs ?? 60_000;
    this.flow = new SwapFlow(deps, swaps);
  }

  async quote(auth: AuthContext, walletId: string, addressId: string | null, body: SwapQuoteBody): Promise<SwapQuoteView> {
    const actor = await this.#actor(auth, walletId, addressId, false);
    const p = await this.#price(actor, await this.#request(actor, body));
    const id = uuidv7();
    const expiresAt = new Date(this.deps.clock.now().getTime() + this.#ttlMs);
    await store.insertQuote(this.deps.db, {
      id,
      wallet_id: actor.wallet.id,
      address_id: actor.addressId,
      chain_id: actor.chain.id,
      from_asset_id: p.from.row.id,
      to_asset_id: p.to.row.id,
      amount_in: p.amountIn.toString(),
      amount_out: p.route.amountOut,
      min_out: p.minOut.toString(),
      order: p.order,
      slippage_tolerance: p.slippage,
      recipient: p.recipient,
      plan: p.route,
      expires_at: expiresAt,
    });
    return this.#present(actor, p, id, expiresAt);
  }

  async execute(auth: AuthContext, walletId: string, addressId: string | null, body: SwapExecuteBody): Promise<TransactionView> {
    const actor = await this.#actor(auth, walletId, addressId, true);
    let quote: store.QuoteRow | undefined;
    let request: Request;
    if (body.quoteId !== undefined) {
      // The quote fixes what is swapped, for whom and how: a field given beside it was ignored,
      // so a recipient or an amount the client meant to change went by the quote's unnoticed.
      const beside = (['fromAssetId', 'toAssetId', 'amount', 'order', 'recipientAddress', 'slippageTolerance'] as const).filter(
        (f) => body[f] !== undefined,
      );
      if (beside.length > 0) {
        throw new ValidationError(
          `quoteId executes the quote as it was asked: leave out ${beside.join(', ')} (or ask for a new quote)`,
          beside.map((field) => ({ field, message: 'fixed by the quote' })),
        );
      }
      quote = await store.findQuote(this.deps.db, body.quoteId, actor.wallet.id, actor.addressId);
      if (!quote) throw new NotFoundError('Quote');
      if (quote.used_by) throw new ConflictError('QUOTE_USED', 'This quote has been executed already; ask for a new one');
      request = {
        from: this.deps.catalogue.asset(quote.from_asset_id)!,
        to: this.deps.catalogue.asset(quote.to_asset_id)!,
        amountIn: BigInt(quote.amount_in),
        order: quote.order as Order,
        slippage: quote.slippage_tolerance,
        recipient: quote.recipient ?? actor.address,
      };
    } else {
      const { fromAssetId, toAssetId, amount } = body;
      if (fromAssetId === undefined || toAssetId === undefined || amount === undefined) {
        throw new ValidationError('Give a quoteId, or fromAssetId, toAssetId and amount', [
          { field: 'quoteId', message: 'or fromAssetId, toAssetId and amount' },
        ]);
      }
      request = await this.#request(actor, { ...body, fromAssetId, toAssetId, amount });
    }
    // A reference the wallet holds is a 409 before the pools are read (start checks it again under the lock).
    await this.deps.transactions.requireReferenceFree(this.deps.db, actor.wallet.id, body.reference);
    // Always quoted again: a live quote keeps its own minimum, an expired one never goes below it nor a fresh one.
    const priced = await this.#price(actor, request, { refuse: false });
    const expired = quote !== undefined && quote.expires_at.getTime() <= this.deps.clock.now().getTime();
    const floor = quote === undefined ? priced.minOut : expired ? max(priced.minOut, BigInt(quote.min_out)) : BigInt(quote.min_out);
    if (BigInt(priced.route.amountOut) < floor) {
      throw slippage(
        request,
        BigInt(priced.route.amountOut),
        floor,
        expired ? 'the quote expired and, quoted again, the pool no longer gives its minimum' : null,
      );
    }
    // The output paid to an outside recipient is a payout: screened before anything is written
    // (its screening kept as the Transaction's amlScreening).
    const amlScreening =
      request.recipient !== actor.address
        ? await this.withdrawals.screenRecipient(auth, actor.wallet, actor.chain, request.recipient, 'swap')
        : null;
    // Transaction policies (SWAP): what is given, paid out to the recipient; decided in start's transaction.
    await this.deps.rates?.prefetch([request.from.row.id]);
    const candidate: Candidate = {
      type: 'SWAP',
      walletId: actor.wallet.id,
      addressId: actor.addressId,
      ...movedOf(this.deps.rates, request.from.row, request.amountIn),
      destination: request.recipient,
      destinationKind: null,
      initiator: initiatorOf(auth),
    };
    const id = await this.flow.start(
      { ...priced, minOut: floor },
      {
        actor,
        candidate,
        withdrawals: this.withdrawals,
        quote: quote ? { id: quote.id, requoted: expired } : null,
        reference: body.reference ?? shortReference(),
        metadata: body.metadata ?? null,
        amlScreening,
        deadline: BigInt(Math.floor(this.deps.clock.now().getTime() / 1000)) + DEADLINE_SECONDS,
      },
    );
    return this.deps.transactions.load(id);
  }

  async #actor(auth: AuthContext, walletId: string, addressId: string | null, writes: boolean): Promise<Actor> {
    let actor: Actor;
    if (addressId === null) {
      const wallet = await this.deps.wallets.require(auth, walletId);
      actor = { wallet, chain: this.deps.wallets.chainOf(wallet), address: wallet.address, index: 0, addressId: null };
    } else {
      const { wallet, address } = await this.deps.addresses.require(auth, walletId, addressId);
      if (address.derivation_index === null) {
        throw new BusinessRuleError('NO_PRIVATE_KEY', 'Swaps are made from the master or a child address of the wallet');
      }
      actor = { wallet, chain: this.deps.wallets.chainOf(wallet), address: address.address, index: address.derivation_index, addressId };
    }
    if (writes && !actor.wallet.is_active) throw new BusinessRuleError('WALLET_INACTIVE', 'This wallet is deactivated');
    capability(actor.chain.adapter, 'swaps'); // 422 NOT_SUPPORTED (no router on the chain) before anything else is read
    return actor;
  }

  /** The request's assets, amount and recipient, checked against the wallet and its chain. */
  async #request(actor: Actor, body: SwapQuoteBody): Promise<Request> {
    const bad = (field: string, message: string) => new ValidationError(`${field} ${message}`, [{ field, message }]);
    const from = (await this.deps.walletAssets.findEnabled(actor.wallet, body.fromAssetId))?.asset;
    // The output need not be enabled on the wallet, but must be in the catalogue as configured
    // now: an asset the operator removed keeps its row (its history), not its support.
    const listed = (id: string) => {
      const a = this.deps.catalogue.asset(id);
      return a?.row.is_active ? a : undefined;
    };
    const to = (await this.deps.walletAssets.findEnabled(actor.wallet, body.toAssetId))?.asset ?? listed(body.toAssetId);
    const elsewhere = listed(body.fromAssetId);
    if (!to)
      throw new BusinessRuleError('ASSET_NOT_AVAILABLE', 'toAssetId is not in the catalogue', [
        { field: 'toAssetId', message: 'unknown asset' },
      ]);
    const notEnabled = () =>
      new BusinessRuleError('ASSET_NOT_ENABLED', 'fromAssetId: this asset is not enabled on the wallet', [
        { field: 'fromAssetId', message: 'not enabled' },
      ]);
    // Unknown anywhere: not enabled (said before the chains are compared, which an unknown asset has none of).
    if (!from && !elsewhere) throw notEnabled();
    if ((from ?? elsewhere)?.chain.id !== to.chain.id || to.chain.id !== actor.chain.id) {
      throw new BusinessRuleError(
        'CROSS_CHAIN_SWAP_NOT_SUPPORTED',
        `A swap stays on one chain (${actor.chain.config.blockchain.name}): this service has no bridge`,
        [{ field: 'toAssetId', message: 'on another chain than the asset given' }],
      );
    }
    if (!from) throw notEnabled();
    if (from.row.id === to.row.id) throw bad('toAssetId', 'is the asset given');
    if (from.row.is_native || to.row.is_native) {
      throw new BusinessRuleError('SWAP_NOT_AVAILABLE', 'Swaps are between tokens: the router swaps no native coin here');
    }
    const amountIn = parseAmount(body.amount, from.row.decimals, 'amount');
    if (amountIn <= 0n) throw bad('amount', 'must be greater than 0');
    let recipient = actor.address;
    if (body.recipientAddress !== undefined) {
      const given = actor.chain.adapter.normalizeAddress(body.recipientAddress);
      if (!given) throw bad('recipientAddress', 'is not an address of the chain');
      if (isZeroAddress(actor.chain.config, given)) throw bad('recipientAddress', 'is the zero address: funds sent there are lost');
      const token = tokenAt(actor.chain, given);
      if (token) throw bad('recipientAddress', `is the contract of ${token.symbol}: funds sent there are lost`);
      recipient = given;
    }
    return {
      from,
      to,
      amountIn,
      order: (body.order ?? 'RECOMMENDED') as Order,
      slippage: body.slippageTolerance ?? DEFAULT_SLIPPAGE,
      recipient,
    };
  }

  /** The route and its minimum now, the sender's balances and the swap's network fee. */
  async #price(actor: Actor, r: Request, opts: { refuse?: boolean } = {}): Promise<Priced> {
    const adapter = actor.chain.adapter;
    const family = adapter.sender;
    const [held, nativeBalance] = await adapter.getBalances([
      { owner: actor.address, token: r.from.row.address },
      { owner: actor.address, token: null },
    ]);
    if (held! < r.amountIn) {
      throw new BusinessRuleError(
        'INSUFFICIENT_BALANCE',
        `Insufficient ${r.from.row.symbol}: ${formatAmount(held!, r.from.row.decimals)} held, ${formatAmount(r.amountIn, r.from.row.decimals)} needed`,
        [{ field: 'amount', message: 'insufficient balance' }],
      );
    }
    // The legs are priced at the fees now, quoted on a payment that moves nothing (their network data is fixed).
    const provider = this.swaps.provider(actor.chain.id)!;
    const probe = provider.probe(actor.address);
    const fees = await family.quote(probe.intent, probe.network, { fresh: true });
    const asset = (a: AssetHandle) => ({
      address: a.row.address,
      decimals: a.row.decimals,
      symbol: a.row.symbol,
      currency: a.row.currency,
    });
    const result = await this.swaps.plan(actor.chain.id, {
      from: asset(r.from),
      to: asset(r.to),
      amountIn: r.amountIn,
      order: r.order,
      slippage: r.slippage,
      feeOf: (network) => family.requote(fees, network).fee,
    });
    const plan = result.ok ? result.plan : result.plan;
    if (!plan) throw new BusinessRuleError('NO_SWAP_ROUTE', `No route: ${result.ok ? '' : result.reason}`);
    if (!result.ok && opts.refuse !== false) throw slippage(r, plan.route.amountOut, plan.amountOutMin, null);
    // At most two approvals (approve(0) first where an allowance is short); a child's top-up from its master.
    const legs = provider.legs({ path: plan.route.path, approvals: 2, more: actor.index === 0 ? [] : [probe.network] });
    return {
      ...r,
      route: {
        path: plan.route.path,
        amountOut: plan.route.amountOut.toString(),
        midAmountOut: plan.route.midAmountOut.toString(),
        reference: plan.reference.toString(),
        referenceKind: plan.referenceKind,
        candidates: plan.candidates,
      },
      minOut: plan.amountOutMin,
      fees,
      networkFee: family.requote(fees, legs).fee,
      nativeBalance: nativeBalance!,
    };
  }

  async #present(actor: Actor, p: Priced, quoteId: string, expiresAt: Date): Promise<SwapQuoteView> {
    const native = actor.chain.assets.find((a) => a.is_native);
    const nativeHandle = native ? this.deps.catalogue.asset(native.id) : undefined;
    const [toUsd, nativeUsd] = await Promise.all([
      this.deps.rates?.usd(p.to).catch(() => null) ?? null,
      nativeHandle ? (this.deps.rates?.usd(nativeHandle).catch(() => null) ?? null) : null,
    ]);
    const nd = actor.chain.config.blockchain.nativeDecimals;
    const out = BigInt(p.route.amountOut);
    const mid = BigInt(p.route.midAmountOut);
    const lost = mid > out ? mid - out : 0n;
    return {
      quoteId,
      expiresAt: expiresAt.toISOString(),
      fromAsset: p.from.row.symbol,
      toAsset: p.to.row.symbol,
      amountIn: formatAmount(p.amountIn, p.from.row.decimals),
      amount: formatAmount(out, p.to.row.decimals),
      minAmount: formatAmount(p.minOut, p.to.row.decimals),
      // Output per unit given, to 18 decimals.
      rate: formatAmount((out * 10n ** BigInt(p.from.row.decimals) * 10n ** 18n) / (p.amountIn * 10n ** BigInt(p.to.row.decimals)), 18),
      slippage: p.order === 'NO_SLIPPAGE' ? '0' : p.slippage,
      impact: mid > 0n ? formatAmount((lost * 1_000_000n) / mid, 4) : '0',
      impactInUSD: toUsd ? usdValue(lost, p.to.row.decimals, toUsd) : null,
      networkFee: formatAmount(p.networkFee, nd),
      networkFeeInUSD: nativeUsd ? usdValue(p.networkFee, nd, nativeUsd) : null,
      nativeBalance: formatAmount(p.nativeBalance, nd),
      nativeBalanceInUSD: nativeUsd ? usdValue(p.nativeBalance, nd, nativeUsd) : null,
      transactionFee: '0',
      estimatedArrivalTime: SECONDS_PER_TRANSACTION * (actor.index === 0 ? 2 : 3),
      path: p.route.path,
      recipientAddress: p.recipient,
    };
  }
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);

function slippage(r: Request, out: bigint, min: bigint, why: string | null): BusinessRuleError {
  const fmt = (v: bigint) => `${formatAmount(v, r.to.row.decimals)} ${r.to.row.symbol}`;
  return new BusinessRuleError(
    'SLIPPAGE_EXCEEDED',
    `${why ? `${why}: ` : ''}the pool gives ${fmt(out)}, below the minimum of ${fmt(min)} (slippage tolerance ${r.slippage}%); nothing was sent`,
  );
}
