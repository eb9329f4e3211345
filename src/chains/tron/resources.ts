/**
 * Resources for a child address's TRC-20 transaction (the sweep's "fund a child's fee" on
 * Tron): what the child lacks of energy, bandwidth and activation, and the cheapest way the
 * operator allows to give it.
 *
 * - energy: lent from the master's Stake 2.0 stake (`delegateresource`, never locked, so it
 *   can be taken back at once with `undelegateresource`), or burned by the child from TRX
 *   the master sends it (the 'transfer' answer, as before);
 * - bandwidth: the child's free 600 bytes a day usually cover one transfer; when they do not,
 *   the master sends the TRX to burn for them;
 * - activation: an address that only ever received TRC-20 tokens is no account yet: it can
 *   neither send nor be lent resources. The master's TRX transfer to it creates it (the
 *   master pays the creation fee).
 *
 * The lend and give-back steps are transactions of the master to the child with value 0 and
 * network data `resourceOp`, `resource`, `resourceSun` (tx.ts, resourceOpOf), sent by the
 * outbound pipeline like any other.
 */
import { ChainRejectedError } from '../errors.js';
import type { ChildFeeFunding, NetworkData } from '../types.js';
import { tronHex } from './codec.js';
import type { TronNode } from './node.js';
import { bandwidthBound, resourceOpFields, type ResourceOp } from './tx.js';

/** How a child's TRC-20 energy is paid (chains file `sweepFunding`, Tron chains only). */
export type TronSweepFunding = 'auto' | 'delegate' | 'burn';

const SUN_PER_TRX = 1_000_000n;
/** Any 21-byte account, to size a resource operation's transaction (the size does not depend on it). */
const ZERO = new Uint8Array(21).fill(0x41, 0, 1);
/** java-tron's smallest delegation (DelegateResourceActuator: at least 1 TRX). */
const MIN_DELEGATION_SUN = SUN_PER_TRX;

type Json = Record<string, unknown>;
const num = (v: unknown): bigint => (typeof v === 'number' || (typeof v === 'string' && /^[0-9]+$/.test(v)) ? BigInt(v) : 0n);

/** The child's transaction's needs and what the chain says of both accounts. */
export interface ChildNeeds {
  child: string;
  master: string;
  /** TRX the child holds (sun). */
  nativeBalance: bigint;
  /** The child's transaction's network data (TronSender's quote: feeLimit, bandwidth, prices). */
  network: NetworkData;
  /**
   * The child has other spends in flight (another sweep planned, a payout): one may reach the
   * chain first and take the free bytes, so none are counted for this transaction.
   */
  spendsInFlight?: boolean;
}

/**
 * The sweep's plan for a child's TRC-20 transaction. `burn` (the operator's choice, or
 * `auto` when the master cannot lend enough energy now): the child burns TRX the master
 * sends (`fallback`, childFeeFunding's answer). Otherwise the energy the fee limit covers is
 * lent, and the master sends only what activation and bandwidth need.
 */
export async function planChildResources(
  node: TronNode,
  mode: TronSweepFunding,
  p: ChildNeeds,
  fallback: () => ChildFeeFunding,
): Promise<ChildFeeFunding> {
  const feeLimit = p.network.feeLimit === undefined ? null : BigInt(p.network.feeLimit);
  // A TRX transfer uses no energy: nothing to lend.
  if (mode === 'burn' || feeLimit === null) return fallback();
  const energyPrice = BigInt(p.network.energyPrice!);
  const bytes = BigInt(p.network.bandwidth!);
  const bandwidthPrice = BigInt(p.network.bandwidthPrice!);

  const [child, childResources, master, onLoan] = await Promise.all([
    node.post<Json>('wallet/getaccount', { address: tronHex(p.child), visible: false }),
    node.post<Json>('wallet/getaccountresource', { address: tronHex(p.child), visible: false }),
    node.post<Json>('wallet/getaccountresource', { address: tronHex(p.master), visible: false }),
    lent(node, p.master, p.child, 'ENERGY'),
  ]);
  const active = typeof child.address === 'string' || child.create_time !== undefined;

  // Energy: what the fee limit lets the call use (the estimate with its margin), less what the
  // child has of its own. Energy the master lends it now is another sweep's, in flight (a
  // child's sweeps of two tokens): its transfer uses it and its give-back takes it back, so a
  // plan that counted it found no energy when its transfer ran (refused, rebuilt for ever).
  const wanted = feeLimit / energyPrice;
  const borrowed = energyOfStake(onLoan, num(master.TotalEnergyLimit), num(master.TotalEnergyWeight));
  const has = active ? num(childResources.EnergyLimit) - num(childResources.EnergyUsed) - borrowed : 0n;
  const missing = wanted - (has > 0n ? has : 0n);
  const sun = missing > 0n ? stakeFor(missing, num(master.TotalEnergyLimit), num(master.TotalEnergyWeight)) : 0n;
  if (sun > 0n) {
    // auto: lending costs the master two small transactions' bandwidth (burned when its own
    // free and staked bytes do not cover them); burning costs the child's energy. The cheaper.
    if (mode === 'auto') {
      const opBytes = bandwidthBound({ kind: 'delegate', owner: ZERO, receiver: ZERO, resource: 'ENERGY', balance: sun });
      // java-tron takes a transaction's bytes from the staked pool, else the free one, else burns them all.
      const pools = bandwidthPools(master);
      let lendCost = 0n;
      for (let i = 0; i < 2; i++) {
        if (pools.staked >= opBytes) pools.staked -= opBytes;
        else if (pools.free >= opBytes) pools.free -= opBytes;
        else lendCost += opBytes * bandwidthPrice;
      }
      const energy = p.network.energy !== undefined ? BigInt(p.network.energy) : wanted;
      if (lendCost >= energy * energyPrice) return fallback();
    }
    const max = await canLend(node, p.master, 'ENERGY');
    if (max < sun) {
      if (mode === 'delegate') {
        // The operator allows no burning: the sweep waits (its job is retried) until the stake allows it.
        throw new Error(`sweepFunding is 'delegate': the master can lend ${max} sun of staked energy now, the sweep needs ${sun}`);
      }
      return fallback();
    }
  }

  // Bandwidth: free and staked bytes first (an account created now starts with its free bytes),
  // unless another spend of the child is in flight (a loan of the master's is out, or the
  // service has another sweep or a payout of the child under way, perhaps not on chain yet):
  // it may use the free bytes first, and this transfer would then find none (java-tron refuses
  // it, BANDWITH_ERROR, for as long as the bytes do not recover); TRX is sent to burn instead.
  // The bytes come from the staked pool or from the free one, never from both (java-tron's
  // BandwidthProcessor.consume): 255 free bytes and 300 staked do not carry a 345-byte transfer.
  const covered =
    onLoan > 0n || p.spendsInFlight
      ? false
      : active
        ? bandwidthPools(childResources).staked >= bytes || bandwidthPools(childResources).free >= bytes
        : (await freeNetLimit(node)) >= bytes;
  const burnBytes = covered ? 0n : bytes * bandwidthPrice;
  let transfer = burnBytes > p.nativeBalance ? burnBytes - p.nativeBalance : 0n;
  // An inactive child must be created before anything is lent to it or sent from it: 1 sun does it.
  if (!active && transfer === 0n) transfer = 1n;
  if (sun === 0n) return transfer > 0n ? { kind: 'transfer', amount: transfer } : { kind: 'none' };
  return {
    kind: 'lend',
    transfer,
    lend: resourceNetwork({ op: 'delegate', resource: 'ENERGY', balance: sun }),
    giveBack: resourceNetwork({ op: 'undelegate', resource: 'ENERGY', balance: sun }),
    network: p.network,
  };
}

/**
 * Staked sun whose share of the network's daily energy covers `energy`: java-tron gives
 * frozen TRX x TotalEnergyLimit / TotalEnergyWeight (whole TRX, in floating point), so one
 * TRX more than the exact share absorbs its rounding; at least java-tron's 1 TRX minimum.
 */
export function stakeFor(energy: bigint, totalEnergyLimit: bigint, totalEnergyWeight: bigint): bigint {
  if (totalEnergyLimit <= 0n || totalEnergyWeight <= 0n) throw new Error('the Tron node reported no energy totals');
  const trx = (energy * totalEnergyWeight + totalEnergyLimit - 1n) / totalEnergyLimit + 1n;
  const sun = trx * SUN_PER_TRX;
  return sun < MIN_DELEGATION_SUN ? MIN_DELEGATION_SUN : sun;
}

/** The energy `sun` of staked TRX gives (the inverse of stakeFor, rounded up: what a loan of it may have given). */
export function energyOfStake(sun: bigint, totalEnergyLimit: bigint, totalEnergyWeight: bigint): bigint {
  if (sun <= 0n || totalEnergyWeight <= 0n) return 0n;
  const trx = (sun + SUN_PER_TRX - 1n) / SUN_PER_TRX;
  return (trx * totalEnergyLimit + totalEnergyWeight - 1n) / totalEnergyWeight;
}

/** Staked sun `owner` can lend of `resource` now (/wallet/getcandelegatedmaxsize). */
export async function canLend(node: TronNode, owner: string, resource: 'ENERGY' | 'BANDWIDTH'): Promise<bigint> {
  const res = await node.post<Json>('wallet/getcandelegatedmaxsize', {
    owner_address: tronHex(owner),
    type: resource === 'ENERGY' ? 1 : 0,
    visible: false,
  });
  return num(res.max_size);
}

/** Sun of `resource` `owner` lent `receiver` and can take back now (/wallet/getdelegatedresourcev2, unlocked). */
export async function lent(node: TronNode, owner: string, receiver: string, resource: 'ENERGY' | 'BANDWIDTH'): Promise<bigint> {
  const res = await node.post<{ delegatedResource?: Json[] }>('wallet/getdelegatedresourcev2', {
    fromAddress: tronHex(owner),
    toAddress: tronHex(receiver),
    visible: false,
  });
  const now = Date.now();
  let sum = 0n;
  for (const d of res.delegatedResource ?? []) {
    const expire = Number(num(resource === 'ENERGY' ? d.expire_time_for_energy : d.expire_time_for_bandwidth));
    if (expire > now) continue; // still locked (the service never locks; someone else's)
    sum += num(resource === 'ENERGY' ? d.frozen_balance_for_energy : d.frozen_balance_for_bandwidth);
  }
  return sum;
}

/** Bytes left today of an account's staked bandwidth and of its free bandwidth (/wallet/getaccountresource). */
function bandwidthPools(res: Json): { staked: bigint; free: bigint } {
  return { staked: num(res.NetLimit) - num(res.NetUsed), free: num(res.freeNetLimit) - num(res.freeNetUsed) };
}

async function freeNetLimit(node: TronNode): Promise<bigint> {
  const res = await node.post<{ chainParameter?: { key: string; value?: number | string }[] }>('wallet/getchainparameters');
  return num(res.chainParameter?.find((c) => c.key === 'getFreeNetLimit')?.value ?? 600);
}

/** The network data that describes a resource operation (tx.ts, resourceOpOf reads it back). */
export function resourceNetwork(op: ResourceOp): NetworkData {
  return resourceOpFields(op);
}

/**
 * Before a lend or a give-back is built: whether the chain allows it now. A lend the stake
 * no longer covers (another sweep took it meanwhile) or a give-back of a loan that is not
 * there would be refused by every node: a ChainRejectedError 'reverted', so the pipeline
 * voids the row before signing and its owner decides (outbound/service.ts).
 */
export async function checkResourceOp(node: TronNode, owner: string, receiver: string, op: ResourceOp): Promise<void> {
  if (op.op !== 'delegate' && op.op !== 'undelegate') throw new Error(`${op.op} is a staking operation (staking.ts)`);
  if (op.op === 'delegate') {
    const max = await canLend(node, owner, op.resource);
    if (max < op.balance)
      throw new ChainRejectedError('reverted', `the stake can lend ${max} sun of ${op.resource} now, not ${op.balance}`);
    const to = await node.post<Json>('wallet/getaccount', { address: tronHex(receiver), visible: false });
    if (typeof to.address !== 'string' && to.create_time === undefined)
      throw new ChainRejectedError('reverted', 'resources cannot be lent to an address that is no account yet');
  } else {
    const has = await lent(node, owner, receiver, op.resource);
    if (has < op.balance)
      throw new ChainRejectedError('reverted', `only ${has} sun of ${op.resource} is lent to take back, not ${op.balance}`);
  }
}
