// Responses in java-tron's JSON conventions (JsonFormat + Util): proto3 default values are
// left out, bytes are hex, and with visible=true addresses are base58check and a few text
// fields (Return.message, TransactionInfo.resMessage) are plain text instead of hex.
import { printAddress, toBase58, type Hex41 } from './address.js';
import type { Block, TxInfo } from './chain.js';
import type { Account, Delegation, LedgerView } from './ledger.js';
import type { TronChainParams } from './params.js';
import { energyLimit, netLimit, slotOf, totalEnergyWeight, totalNetWeight, withUsageAt } from './resources.js';
import { printTransaction } from './transactions.js';
import { BLOCK_VERSION, SLOT_MS } from './params.js';

/** JSON text with bigints written as plain numbers, the way java-tron writes int64. */
export function stringify(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `@@${v.toString()}@@` : v)).replace(/"@@(-?\d+)@@"/g, '$1');
}

/** Drops proto3 defaults (0, '', false, empty lists/objects) from a flat record. */
export function compact<T extends Record<string, unknown>>(o: T): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (v === 0 || v === 0n || v === '' || v === false || v === undefined || v === null) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    if (typeof v === 'object' && !Array.isArray(v) && typeof v !== 'bigint' && Object.keys(v as object).length === 0) continue;
    out[k] = v;
  }
  return out as Partial<T>;
}

export const hexText = (s: string) => Buffer.from(s, 'utf8').toString('hex');
export const textOrHex = (s: string, visible: boolean) => (visible ? s : hexText(s));

export function printBlock(b: Block, visible: boolean, withTransactions = true): Record<string, unknown> {
  const out: Record<string, unknown> = {
    blockID: b.id,
    block_header: {
      raw_data: compact({
        number: b.number,
        txTrieRoot: b.txTrieRoot,
        witness_address: printAddress(b.witness, visible),
        parentHash: b.parentId,
        version: BLOCK_VERSION,
        timestamp: b.timestamp,
      }),
      witness_signature: b.witnessSignature,
    },
  };
  if (withTransactions && b.txs.length > 0) {
    out.transactions = b.txs.map((s) => printTransaction(s.tx, visible, { contractRet: s.contractRet }));
  }
  return out;
}

export function printTxInfo(info: TxInfo, visible: boolean): Record<string, unknown> {
  const receipt = compact(info.receipt);
  return compact({
    id: info.id,
    fee: info.fee,
    blockNumber: info.blockNumber,
    blockTimeStamp: info.blockTimeStamp,
    contractResult: info.contractResult,
    contract_address: info.contract_address ? printAddress(info.contract_address, visible) : undefined,
    receipt,
    // With visible=true java-tron turns the 20-byte TVM address into a full T... address.
    log: info.log.map((l) => compact({ address: visible ? toBase58(`41${l.address}`) : l.address, topics: l.topics, data: l.data })),
    result: info.result,
    resMessage: info.resMessage ? textOrHex(info.resMessage, visible) : undefined,
    withdraw_expire_amount: info.withdraw_expire_amount,
    // A protobuf map, which java-tron's JSON prints as a list of key/value entries.
    cancel_unfreezeV2_amount: info.cancel_unfreezeV2_amount
      ? Object.entries(info.cancel_unfreezeV2_amount).map(([key, value]) => compact({ key, value }))
      : undefined,
  });
}

/** protocol.Account as /wallet/getaccount prints it; `now` brings usage up to date first. */
export function printAccount(a: Account, visible: boolean, headTimestamp: number): Record<string, unknown> {
  const u = withUsageAt(a, slotOf(headTimestamp));
  const ms = (slot: number) => slot * SLOT_MS; // genesis time is 0, as on mainnet
  const addr = printAddress(a.address, visible);
  const key = { address: addr, weight: 1 };
  return compact({
    address: addr,
    type: a.type === 'Contract' ? 'Contract' : undefined,
    balance: a.balance,
    create_time: a.createTime,
    latest_opration_time: a.latestOperationTime,
    free_net_usage: u.freeNetUsage,
    latest_consume_free_time: ms(a.latestConsumeFreeTime),
    net_usage: u.netUsage,
    latest_consume_time: ms(a.latestConsumeTime),
    // Stake-2.0 accounts keep their window optimised (x1000) once staked bandwidth was used.
    net_window_size: a.latestConsumeTime > 0 ? 28_800_000 : 0,
    net_window_optimized: a.latestConsumeTime > 0,
    account_resource: compact({
      energy_usage: u.energyUsage,
      latest_consume_time_for_energy: ms(a.latestConsumeTimeForEnergy),
      energy_window_size: a.latestConsumeTimeForEnergy > 0 ? 28_800_000 : 0,
      delegated_frozenV2_balance_for_energy: a.delegatedEnergy,
      acquired_delegated_frozenV2_balance_for_energy: a.acquiredEnergy,
      energy_window_optimized: a.latestConsumeTimeForEnergy > 0,
    }),
    owner_permission: { permission_name: 'owner', threshold: 1, keys: [key] },
    active_permission: [
      {
        type: 'Active',
        id: 2,
        permission_name: 'active',
        threshold: 1,
        operations: '7fff1fc0033efb0f000000000000000000000000000000000000000000000000',
        keys: [key],
      },
    ],
    // sortFrozenV2List: one entry per resource, defaults left out ({} is BANDWIDTH with 0).
    frozenV2: [compact({ amount: a.frozenBandwidth }), compact({ type: 'ENERGY', amount: a.frozenEnergy }), { type: 'TRON_POWER' }],
    unfrozenV2: a.unfrozen.map((x) =>
      compact({ type: x.type === 'ENERGY' ? 'ENERGY' : undefined, unfreeze_amount: x.amount, unfreeze_expire_time: x.expireTime }),
    ),
    delegated_frozenV2_balance_for_bandwidth: a.delegatedBandwidth,
    acquired_delegated_frozenV2_balance_for_bandwidth: a.acquiredBandwidth,
    asset_optimized: true,
  });
}

/** AccountResourceMessage (getaccountresource); `net` = AccountNetMessage (getaccountnet). */
export function printResources(
  view: LedgerView,
  a: Account,
  p: TronChainParams,
  headTimestamp: number,
  net = false,
): Record<string, unknown> {
  const u = withUsageAt(a, slotOf(headTimestamp));
  const t = view.totals();
  const common = {
    freeNetUsed: u.freeNetUsage,
    freeNetLimit: p.freeNetLimit,
    NetUsed: u.netUsage,
    NetLimit: netLimit(a, t, p),
    TotalNetLimit: p.totalNetLimit,
    TotalNetWeight: totalNetWeight(t, p),
  };
  if (net) return compact(common);
  return compact({
    ...common,
    EnergyUsed: u.energyUsage,
    EnergyLimit: energyLimit(a, t, p),
    TotalEnergyLimit: p.totalEnergyLimit,
    TotalEnergyWeight: totalEnergyWeight(t, p),
  });
}

export function printDelegation(d: Delegation, visible: boolean): Record<string, unknown> {
  return compact({
    from: printAddress(d.from, visible),
    to: printAddress(d.to, visible),
    frozen_balance_for_bandwidth: d.bandwidth,
    frozen_balance_for_energy: d.energy,
    expire_time_for_bandwidth: d.expireBandwidth,
    expire_time_for_energy: d.expireEnergy,
  });
}

/** DelegatedResourceAccountIndex (V2): who the account lends to and borrows from. */
export function printDelegationIndex(view: LedgerView, account: Hex41, visible: boolean): Record<string, unknown> {
  const live = view.delegations().filter((d) => d.bandwidth > 0n || d.energy > 0n || d.expireBandwidth > 0 || d.expireEnergy > 0);
  const uniq = (xs: string[]) => [...new Set(xs)].map((x) => printAddress(x, visible));
  return compact({
    account: printAddress(account, visible),
    fromAccounts: uniq(live.filter((d) => d.to === account).map((d) => d.from)),
    toAccounts: uniq(live.filter((d) => d.from === account).map((d) => d.to)),
  });
}
