/**
 * Tron's staking capability (chains/staking.ts): Stake 2.0 through java-tron's HTTP API.
 * `freezebalancev2` stakes TRX for ENERGY or BANDWIDTH, `unfreezebalancev2` starts an
 * unstake (unlocked after getUnfreezeDelayDays, 14 on mainnet, judged against the head
 * block's time), `cancelallunfreezev2` puts every pending unstake back (and pays out the
 * unlocked ones), `withdrawexpireunfreeze` pays out what unlocked. The operations are built
 * and signed by the sender as resource operations (tx.ts, ResourceOp); the energy staked
 * here is what the sweep lends children (resources.ts).
 */
import { ChainRejectedError } from '../errors.js';
import type { NetworkData } from '../types.js';
import type { StakeResource, Staking, StakingOperation, StakingOutcome, StakingState, Unlocking } from '../staking.js';
import { tronHex } from './codec.js';
import type { TronNode } from './node.js';
import { canLend, resourceNetwork } from './resources.js';
import type { ResourceOp } from './tx.js';

type Json = Record<string, unknown>;
const num = (v: unknown): bigint => (typeof v === 'number' || (typeof v === 'string' && /^[0-9]+$/.test(v)) ? BigInt(v) : 0n);
const SUN_PER_TRX = 1_000_000n;
const DAY_MS = 86_400_000;

/** The resource operation of a staking operation (what the sender builds). */
export function stakingOp(op: StakingOperation): ResourceOp {
  switch (op.action) {
    case 'stake':
      return { op: 'freeze', resource: op.resource, balance: op.amount };
    case 'unstake':
      return { op: 'unfreeze', resource: op.resource, balance: op.amount };
    case 'restake':
      return { op: 'cancelUnfreeze' };
    case 'withdraw':
      return { op: 'withdrawUnfrozen' };
  }
}

export class TronStaking implements Staking {
  readonly resources = ['ENERGY', 'BANDWIDTH'] as const;
  readonly minimumStake = SUN_PER_TRX;
  /** java-tron's UnfreezeBalanceV2 actuator: "unfreezing times is over limit" past 32 unstakes waiting. */
  readonly maxUnlocking = 32;

  constructor(private readonly node: TronNode) {}

  network(op: StakingOperation): NetworkData {
    return resourceNetwork(stakingOp(op));
  }

  async state(owner: string): Promise<StakingState> {
    const address = tronHex(owner);
    const [account, resources, head, delay, lendEnergy, lendBandwidth] = await Promise.all([
      this.node.post<Json>('wallet/getaccount', { address, visible: false }),
      this.node.post<Json>('wallet/getaccountresource', { address, visible: false }),
      headTime(this.node),
      unfreezeDelayDays(this.node),
      canLend(this.node, owner, 'ENERGY'),
      canLend(this.node, owner, 'BANDWIDTH'),
    ]);
    const frozen = (account.frozenV2 as Json[] | undefined) ?? [];
    const frozenOf = (r: StakeResource) => frozen.filter((f) => (f.type ?? 'BANDWIDTH') === r).reduce((s, f) => s + num(f.amount), 0n);
    const accountResource = (account.account_resource as Json | undefined) ?? {};
    const unlocking: Unlocking[] = ((account.unfrozenV2 as Json[] | undefined) ?? [])
      .map((u) => ({
        resource: (u.type === 'ENERGY' ? 'ENERGY' : 'BANDWIDTH') as StakeResource,
        amount: num(u.unfreeze_amount),
        unlocksAt: new Date(Number(num(u.unfreeze_expire_time))),
      }))
      .sort((a, b) => a.unlocksAt.getTime() - b.unlocksAt.getTime());
    return {
      balance: num(account.balance),
      positions: [
        {
          resource: 'ENERGY',
          staked: frozenOf('ENERGY'),
          delegated: num(accountResource.delegated_frozenV2_balance_for_energy),
          lendable: lendEnergy,
          limit: num(resources.EnergyLimit),
          used: num(resources.EnergyUsed),
        },
        {
          resource: 'BANDWIDTH',
          staked: frozenOf('BANDWIDTH'),
          delegated: num(account.delegated_frozenV2_balance_for_bandwidth),
          lendable: lendBandwidth,
          limit: num(resources.NetLimit),
          used: num(resources.NetUsed),
        },
      ],
      unlocking,
      headTime: head,
      unlockPeriodMs: delay * DAY_MS,
    };
  }

  async outcome(hash: string): Promise<StakingOutcome> {
    const info = await this.node.post<Json>('wallet/gettransactioninfobyid', { value: hash.replace(/^0x/, ''), visible: false });
    if (info.id === undefined) throw new Error(`the Tron node knows no transaction ${hash}`);
    const restaked: Record<StakeResource, bigint> = { ENERGY: 0n, BANDWIDTH: 0n };
    // A protobuf map, printed as a list of key/value entries.
    for (const e of (info.cancel_unfreezeV2_amount as Json[] | undefined) ?? []) {
      if (e.key === 'ENERGY' || e.key === 'BANDWIDTH') restaked[e.key] += num(e.value);
    }
    // java-tron's actuators read "now" as the latest block header's time when they run: the
    // parent of the block that holds the transaction, so an unstake unlocks then plus the delay.
    const [parent, delay] = await Promise.all([
      this.node.post<Json>('wallet/getblock', { id_or_num: String(Number(num(info.blockNumber)) - 1), detail: false }),
      unfreezeDelayDays(this.node),
    ]);
    const ran = Number(num(((parent.block_header as Json | undefined)?.raw_data as Json | undefined)?.timestamp ?? 0));
    return { withdrawn: num(info.withdraw_expire_amount), restaked, unlocksAt: new Date(ran + delay * DAY_MS) };
  }
}

/** The head block's time (what unlock times are judged against), read from its header. */
async function headTime(node: TronNode): Promise<Date> {
  const block = await node.post<Json>('wallet/getblock', { detail: false });
  const raw = (block.block_header as Json | undefined)?.raw_data as Json | undefined;
  return new Date(Number(num(raw?.timestamp ?? 0)));
}

async function unfreezeDelayDays(node: TronNode): Promise<number> {
  const res = await node.post<{ chainParameter?: { key: string; value?: number | string }[] }>('wallet/getchainparameters');
  return Number(num(res.chainParameter?.find((c) => c.key === 'getUnfreezeDelayDays')?.value ?? 14));
}

/**
 * Before a staking operation is built: whether the chain allows it now, as java-tron's
 * actuators would judge it. A refusal is a ChainRejectedError 'reverted', so the pipeline
 * voids the row before signing (nothing is paid) and its owner records why.
 */
export async function checkStakingOp(node: TronNode, owner: string, op: ResourceOp): Promise<void> {
  const account = await node.post<Json>('wallet/getaccount', { address: tronHex(owner), visible: false });
  if (typeof account.address !== 'string' && account.create_time === undefined) {
    throw new ChainRejectedError('reverted', 'the address is no Tron account yet');
  }
  const refuse = (message: string) => {
    throw new ChainRejectedError('reverted', message);
  };
  if (op.op === 'freeze') {
    if (op.balance < SUN_PER_TRX) refuse('a stake is at least 1 TRX');
    if (op.balance > num(account.balance)) refuse(`the account holds ${num(account.balance)} sun, less than the ${op.balance} to stake`);
  } else if (op.op === 'unfreeze') {
    const frozen = ((account.frozenV2 as Json[] | undefined) ?? [])
      .filter((f) => (f.type ?? 'BANDWIDTH') === op.resource)
      .reduce((s, f) => s + num(f.amount), 0n);
    if (op.balance > frozen) refuse(`${frozen} sun is staked for ${op.resource}, less than the ${op.balance} to unstake`);
    const now = (await headTime(node)).getTime();
    const waiting = ((account.unfrozenV2 as Json[] | undefined) ?? []).filter((u) => Number(num(u.unfreeze_expire_time)) > now).length;
    if (waiting >= 32) refuse(`${waiting} unstakes are waiting for their unlock, the most the chain allows`);
  } else if (op.op === 'cancelUnfreeze') {
    if (((account.unfrozenV2 as Json[] | undefined) ?? []).length === 0) refuse('no unstake is pending');
  } else if (op.op === 'withdrawUnfrozen') {
    const now = (await headTime(node)).getTime();
    const unlocked = ((account.unfrozenV2 as Json[] | undefined) ?? [])
      .filter((u) => Number(num(u.unfreeze_expire_time)) <= now)
      .reduce((s, u) => s + num(u.unfreeze_amount), 0n);
    if (unlocked === 0n) refuse('nothing has unlocked yet');
  }
}
