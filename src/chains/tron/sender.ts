/**
 * The Tron family's side of the outbound lifecycle (chains/types.ts, Sender), ordering
 * 'expiry': no nonce; a transaction references a recent block and is valid until its
 * expiration (the node's head time + 60 s when it builds it), and one that expired unmined
 * is built and signed again.
 *
 * Fees are burned, not bid: energy (TRC-20 calls) at getEnergyFee sun each, bounded by the
 * transaction's fee_limit; bandwidth at getTransactionFee sun per byte; 1.1 TRX more when a
 * TRX transfer activates its recipient. The quote is the most a transaction can cost
 * (staked resources and the 600 free bytes a day only make it cheaper).
 *
 * Network data (decimal strings): `feeLimit` (sun, TRC-20 calls only), `fee` (the most it
 * costs, sun), `energy`, `bandwidth` (bytes), `activation` (sun), `energyPrice`,
 * `bandwidthPrice`; once prepared also `rawDataHex`, `txID`, `expiration`, `timestamp` (ms),
 * `refBlockBytes`, `refBlockHash`.
 */
import { bytesToHex, hexToBytes } from '@noble/hashes/utils';
import { randomBytes } from 'node:crypto';
import { ValidationError } from '../../lib/errors.js';
import { ChainRejectedError } from '../errors.js';
import { tronHasExpired } from './expiry.js';
import type {
  ChildFeeFunding,
  FeeQuote,
  NetworkData,
  QuoteOptions,
  Receipt,
  ExpirySender,
  SignedTransaction,
  SigningKey,
  NativeIntent,
  TxIntent,
} from '../types.js';
import { activationFee, buildRaw, estimateEnergy, readChainFees, type TronChainFees } from './build.js';
import { tronHex } from './codec.js';
import type { TronNode } from './node.js';
import { tronReceipt } from './receipt.js';
import { checkResourceOp, planChildResources, type TronSweepFunding } from './resources.js';
import { checkStakingOp } from './staking.js';
import {
  bandwidthBound,
  bandwidthOf,
  callOf,
  checkRaw,
  encodeSigned,
  varintLength,
  txIdOf,
  resourceOpOf,
  resourceOpFields,
  TronTxFormatError,
  tronIntentOf,
  type TronCall,
  type TronIntent,
} from './tx.js';

/** fee_limit = energy x price x this / 100 (rounded up): energy moves with state, as gas does. */
export const ENERGY_MARGIN_PERCENT = 120n;

/** java-tron's getMaxFeeLimit on mainnet (15,000 TRX): a node refuses a fee_limit above it. */
export const MAX_FEE_LIMIT_SUN = 15_000_000_000n;

/** Chain parameters change only by proposal: read at most this often. */
const CHAIN_PARAMS_TTL_MS = 10 * 60_000;

export type { TronChainFees };

type Json = Record<string, unknown>;

export class TronSender implements ExpirySender {
  readonly ordering = 'expiry' as const;
  #params: { at: number; fees: Promise<TronChainFees> } | null = null;

  constructor(
    private readonly node: TronNode,
    private readonly opts: { feeLimitSun?: bigint; sweepFunding?: TronSweepFunding } = {},
  ) {}

  /** The chain's fee parameters, cached (a failure is not remembered); `fresh` reads them now. */
  chainFees(opts: { fresh?: boolean } = {}): Promise<TronChainFees> {
    const hit = this.#params;
    if (!opts.fresh && hit && Date.now() - hit.at < CHAIN_PARAMS_TTL_MS) return hit.fees;
    const entry = { at: Date.now(), fees: readChainFees(this.node) };
    this.#params = entry;
    entry.fees.catch(() => {
      if (this.#params === entry) this.#params = null;
    });
    return entry.fees;
  }

  quote(intent: TxIntent, given: NetworkData = {}, opts: QuoteOptions = {}): Promise<FeeQuote> {
    return this.#quote(intent, given, opts.estimate, this.chainFees(opts), opts.above);
  }

  quoteAll(
    items: { intent: TxIntent; given?: NetworkData; estimate?: bigint; exact?: boolean }[],
    opts: { fresh?: boolean } = {},
  ): Promise<FeeQuote[]> {
    const fees = this.chainFees(opts);
    return Promise.all(items.map((i) => this.#quote(i.intent, i.given ?? {}, i.estimate, fees, undefined, i.exact)));
  }

  /**
   * A TRC-20 call: the fee limit given, a retry's (the highest of the latest earlier attempt
   * and the quote), or energy x price with the margin, at most the configured cap; a TRX
   * transfer has none. fee = fee limit + bandwidth x price + activation.
   */
  async #quote(
    typed: TxIntent,
    given: NetworkData,
    estimate: bigint | undefined,
    quoted: Promise<TronChainFees>,
    above?: NetworkData[],
    exact = false,
  ): Promise<FeeQuote> {
    const intent = tronIntentOf(typed);
    checkIntent(intent, given);
    const fees = await quoted;
    const fixedLimit = big(given.feeLimit);
    // A resource operation (a stake, a lend) burns bandwidth only: priced as the node will build it.
    if (resourceOpOf(given) !== null) {
      const network = { ...resourceOpFields(resourceOpOf(given)!), ...priced(callOf(intent, 0n, given), fees, { activation: 0n }) };
      return { network, fixed: resourceOpFields(resourceOpOf(given)!), fee: BigInt(network.fee!) };
    }
    if (intent.data === null) {
      const activation = await activationFee(this.node, intent.to, fees);
      const network = priced(callOf(intent, 0n), fees, { activation });
      const fixed: NetworkData = {};
      return { network, fixed, fee: BigInt(network.fee!), limit: { estimate: 0n, limit: 0n } };
    }
    let energy: bigint | null = null;
    let feeLimit = fixedLimit;
    if (feeLimit === null) {
      // The limit covers a recipient holding none of the token; the estimate a client's limit is held to is its recipient's.
      const need = estimate !== undefined ? { energy: estimate, worst: estimate } : await this.#energyOf(typed);
      energy = need.energy;
      feeLimit = this.#feeLimitOf(need.worst, fees, exact);
      const previous = above
        ?.map((n) => big(n.feeLimit))
        .filter((v) => v !== null)
        .pop();
      if (previous !== undefined && previous > feeLimit) feeLimit = previous;
    }
    const network = priced(callOf(intent, feeLimit), fees, { activation: 0n, ...(energy !== null ? { energy } : {}) });
    return {
      network,
      fixed: { feeLimit: feeLimit.toString() },
      fee: BigInt(network.fee!),
      ...(energy !== null ? { limit: { estimate: energy * fees.energyFee, limit: feeLimit } } : {}),
    };
  }

  /** Energy x price with the margin (none when `exact`); a call whose bare energy costs more than the cap is refused. */
  #feeLimitOf(energy: bigint, fees: TronChainFees, exact = false): bigint {
    const cap = this.opts.feeLimitSun ?? MAX_FEE_LIMIT_SUN;
    const bare = energy * fees.energyFee;
    if (bare > cap) {
      throw new ChainRejectedError('refused', `the call needs about ${bare} sun of energy, above this chain's fee limit of ${cap} sun`);
    }
    const limit = exact ? bare : (bare * ENERGY_MARGIN_PERCENT + 99n) / 100n;
    return limit > cap ? cap : limit;
  }

  /**
   * A fee limit estimated when signing (a contract write, a payout approved later) within
   * `ceiling`, what its acceptance reserved: the energy price or the call's energy may have
   * risen since, and signing for more would burn TRX held for other payouts. The limit is
   * lowered to what the ceiling leaves after bandwidth, never below the call's own energy at
   * today's price (less would run out of energy on chain, the limit burned): a call that no
   * longer fits is refused ('reverted'), and its payout fails with that reason.
   */
  #withinCeiling(intent: TronIntent, limit: bigint, energy: bigint, fees: TronChainFees, ceiling: bigint | undefined): bigint {
    if (ceiling === undefined) return limit;
    const over = BigInt(priced(callOf(intent, limit), fees, { activation: 0n }).fee!) - ceiling;
    if (over <= 0n) return limit;
    const room = limit - over;
    if (room < energy * fees.energyFee) {
      throw new ChainRejectedError(
        'reverted',
        `the call now needs about ${energy * fees.energyFee} sun of energy at ${fees.energyFee} sun each, more than the ${ceiling} sun reserved for it when it was accepted`,
      );
    }
    return room;
  }

  /** The energy a call needs now; a revert is ChainRejectedError('reverted') (build.ts, estimateEnergy). */
  estimateEnergy(intent: TxIntent | TronIntent): Promise<bigint> {
    return estimateEnergy(this.node, 'kind' in intent ? tronIntentOf(intent) : intent);
  }

  /**
   * An intent's energy (`energy`), and what its fee limit must cover (`worst`). A TRC-20
   * transfer is also estimated to an account holding none of the token (a fresh address), and
   * `worst` is the larger: crediting an empty balance writes a new storage slot (about twice
   * the energy), and a recipient that spends all it holds before the transfer is mined would
   * otherwise leave it out of energy, its fee limit burned. The estimate to the real
   * recipient still decides whether it reverts (a blacklisted recipient); one to the fresh
   * address that fails is ignored.
   */
  async #energyOf(intent: TxIntent): Promise<{ energy: bigint; worst: bigint }> {
    const empty =
      intent.kind === 'token' ? this.estimateEnergy({ ...intent, to: `0x${randomBytes(20).toString('hex')}` }).catch(() => 0n) : 0n;
    const [energy, other] = await Promise.all([this.estimateEnergy(intent), empty]);
    return { energy, worst: other > energy ? other : energy };
  }

  requote(quote: FeeQuote, given: NetworkData): FeeQuote {
    const limit = big(given.feeLimit);
    const old = big(quote.network.feeLimit);
    // A TRX transfer has no fee limit: nothing to change.
    if (limit === null || old === null) return quote;
    const bytes = BigInt(quote.network.bandwidth!) + varintLength(limit) - varintLength(old);
    const bandwidthPrice = BigInt(quote.network.bandwidthPrice!);
    const fee = limit + bytes * bandwidthPrice + BigInt(quote.network.activation ?? '0');
    const network = { ...quote.network, feeLimit: limit.toString(), bandwidth: bytes.toString(), fee: fee.toString() };
    return { network, fixed: { ...quote.fixed, feeLimit: limit.toString() }, fee };
  }

  /**
   * What a caller fixed: `limit` is the fee limit in sun (the API's gasLimit on a Tron chain;
   * ignored on TRX transfers, which have none), at most feeLimitSun. Fee caps mean nothing on
   * Tron: refused. A quote's `limit` (CallLimit) is in sun too: energy x price, and the fee limit.
   */
  fixedNetwork(given: { limit?: bigint; feeCap?: bigint }): NetworkData {
    if (given.feeCap !== undefined) {
      throw new ValidationError('gasPrice and fee caps have no meaning on Tron (energy and bandwidth are burned at the chain price)', [
        { field: 'gasPrice', message: 'not supported on Tron' },
      ]);
    }
    // The operator's cap (feeLimitSun) binds a client's limit too.
    const cap = this.opts.feeLimitSun ?? MAX_FEE_LIMIT_SUN;
    if (given.limit !== undefined && (given.limit <= 0n || given.limit > cap)) {
      throw new ValidationError(`gasLimit (the fee limit in sun on Tron) must be between 1 and ${cap}`, [
        { field: 'gasLimit', message: `between 1 and ${cap} sun` },
      ]);
    }
    return given.limit !== undefined ? { feeLimit: given.limit.toString() } : {};
  }

  /**
   * Builds the transaction through the node, always afresh (a new reference block and
   * expiration), keeping the caller's fee limit, and checks the node's bytes are exactly what
   * was asked before returning them. A contract call is estimated first, fee limit given or
   * not: one that would revert now is ChainRejectedError('reverted'), never built.
   */
  async prepare(typed: TxIntent, given: NetworkData, opts: { feeCeiling?: bigint } = {}): Promise<NetworkData> {
    const intent = tronIntentOf(typed);
    checkIntent(intent, given);
    const fees = await this.chainFees();
    let energy: bigint | null = null;
    let feeLimit = 0n;
    const resource = resourceOpOf(given);
    if (resource !== null) {
      // A lend or give-back (the sweep's), or a staking operation of the owner's own stake.
      if (resource.op === 'delegate' || resource.op === 'undelegate') await checkResourceOp(this.node, intent.from, intent.to, resource);
      else await checkStakingOp(this.node, intent.from, resource);
    } else if (intent.data !== null) {
      const fixed = big(given.feeLimit);
      if (fixed === null) {
        const need = await this.#energyOf(typed);
        energy = need.energy;
        feeLimit = this.#withinCeiling(intent, this.#feeLimitOf(need.worst, fees), need.energy, fees, opts.feeCeiling);
      } else {
        // A fee limit fixed earlier (the client's, or the quote's at acceptance) is kept, but the
        // call is still estimated now, as EVM estimates right before signing: one that would
        // revert since (the balance gone, a sender or recipient frozen by the token) is refused
        // ('reverted': its row is voided unsigned, its payout fails with the reason) instead of
        // being broadcast to burn its energy and bandwidth.
        await this.estimateEnergy(typed);
        feeLimit = fixed;
      }
    }
    const call = callOf(intent, feeLimit, given);
    const built = await buildRaw(this.node, intent, feeLimit, given);
    const raw = hexToBytes(built);
    let header;
    try {
      header = checkRaw(raw, call);
    } catch (err) {
      if (err instanceof TronTxFormatError)
        throw new Error(`the Tron node built another transaction than asked (${err.message}): not signed`);
      throw err;
    }
    const activation = call.kind === 'transfer' ? await activationFee(this.node, intent.to, fees) : 0n;
    return {
      ...(resource !== null ? resourceOpFields(resource) : {}),
      ...priced(call, fees, { activation, ...(energy !== null ? { energy } : {}) }, raw.length),
      rawDataHex: built,
      txID: txIdOf(raw),
      expiration: header.expiration.toString(),
      timestamp: header.timestamp.toString(),
      refBlockBytes: header.refBlockBytes,
      refBlockHash: header.refBlockHash,
    };
  }

  sign(typed: TxIntent, nonce: bigint | null, network: NetworkData, key: SigningKey): SignedTransaction {
    const intent = tronIntentOf(typed);
    if (nonce !== null) throw new Error('a Tron transaction takes no nonce');
    if (!network.rawDataHex) throw new Error('network data is not prepared (rawDataHex)');
    const raw = hexToBytes(network.rawDataHex);
    // Whatever stored data says, only the intent's own transaction is signed.
    const header = checkRaw(raw, callOf(intent, intent.data === null ? 0n : BigInt(network.feeLimit ?? '0'), network));
    const txID = txIdOf(raw);
    if ((network.txID !== undefined && network.txID !== txID) || network.expiration !== header.expiration.toString()) {
      throw new Error('the network data does not describe its rawDataHex (txID or expiration)');
    }
    const { r, s, recovery } = key.signDigest(hexToBytes(txID));
    const signature = new Uint8Array(65);
    signature.set(hexToBytes(r.toString(16).padStart(64, '0')), 0);
    signature.set(hexToBytes(s.toString(16).padStart(64, '0')), 32);
    signature[64] = 27 + recovery; // as tronweb writes it; java-tron takes 27/28 or 0/1
    return { raw: bytesToHex(encodeSigned(raw, signature)), hash: txID };
  }

  costOf(value: bigint, network: NetworkData): bigint {
    return value + (big(network.fee) ?? 0n);
  }

  /** An activated account may hold any amount of TRX, none included. */
  accountFloor(): Promise<bigint> {
    return Promise.resolve(0n);
  }

  /**
   * The child burns TRX for its energy and bandwidth: the master first sends what it lacks of
   * value + fee (the transfer also activates a child that never held TRX). Delegating staked
   * energy to the child instead is a later step.
   */
  childFeeFunding(p: { nativeBalance: bigint; value: bigint; network: NetworkData }): ChildFeeFunding {
    const needed = this.costOf(p.value, p.network);
    return needed > p.nativeBalance ? { kind: 'transfer', amount: needed - p.nativeBalance } : { kind: 'none' };
  }

  /**
   * childFeeFunding with the chain read (resources.ts): energy lent from the master's stake
   * when the operator's `sweepFunding` allows it and the stake can, activation and missing
   * bandwidth as TRX; otherwise TRX to burn for everything (childFeeFunding).
   */
  planChildFunding(p: {
    child: string;
    master: string;
    nativeBalance: bigint;
    value: bigint;
    network: NetworkData;
    spendsInFlight?: boolean;
  }): Promise<ChildFeeFunding> {
    return planChildResources(this.node, this.opts.sweepFunding ?? 'auto', p, () => this.childFeeFunding(p));
  }

  /** Energy and bandwidth are burned at the chain's price: the fee limit the quote fixed bounds the cost. */
  fundedNetwork(quote: FeeQuote): NetworkData {
    return quote.fixed;
  }

  async findLanded(hashes: string[]): Promise<{ index: number; receipt: Receipt } | null> {
    for (const [index, hash] of hashes.entries()) {
      const receipt = await tronReceipt(this.node, hash);
      if (receipt) return { index, receipt };
    }
    return null;
  }

  /** See chains/tron/expiry.ts: proved from the solidified blocks between its reference block and its expiration. */
  hasExpired(network: NetworkData, hash: string): Promise<boolean> {
    return tronHasExpired(this.node, network, hash);
  }
}

/** Network data of a call: the fee limit, bandwidth from the transaction's size, and the most it costs. */
function priced(call: TronCall, fees: TronChainFees, extra: { activation: bigint; energy?: bigint }, rawLength?: number): NetworkData {
  const bandwidth = rawLength !== undefined ? bandwidthOf(rawLength) : bandwidthBound(call);
  const feeLimit = call.kind === 'trigger' ? call.feeLimit : 0n;
  const fee = feeLimit + bandwidth * fees.transactionFee + extra.activation;
  return {
    ...(call.kind === 'trigger' ? { feeLimit: feeLimit.toString() } : {}),
    ...(extra.energy !== undefined ? { energy: extra.energy.toString() } : {}),
    bandwidth: bandwidth.toString(),
    activation: extra.activation.toString(),
    energyPrice: fees.energyFee.toString(),
    bandwidthPrice: fees.transactionFee.toString(),
    fee: fee.toString(),
  };
}

function checkIntent(intent: TronIntent, network?: NetworkData): void {
  if (!tronHex(intent.from) || !tronHex(intent.to)) throw new ValidationError('not a Tron address');
  // A lend or give-back (resources.ts): value 0, no data; callOf checks the rest.
  if (network?.resourceOp !== undefined && intent.data === null && intent.value === 0n) return;
  if (intent.data !== null && intent.value !== 0n) {
    throw new ValidationError('a Tron contract call sends no TRX here (call_value is not supported)');
  }
  if (intent.data === null && intent.value <= 0n) throw new ValidationError('a TRX transfer must move more than 0 sun');
  if (intent.data === null && tronHex(intent.from) === tronHex(intent.to))
    throw new ValidationError('Tron refuses a TRX transfer to oneself');
  if (intent.data !== null && !/^0x([0-9a-fA-F]{2})*$/.test(intent.data)) throw new ValidationError('call data must be 0x hex');
}

const big = (v: string | undefined): bigint | null => (v === undefined ? null : BigInt(v));
