// Read endpoints, served twice: under /wallet as of the head (pending state included, as
// java-tron's full node shows it) and under /walletsolidity as of the solidified block.
import { AddressError, fromBase58, isHex41, parseAddress, printAddress, type Hex41 } from './address.js';
import type { Block } from './chain.js';
import { ParamError, intParam, type Handler, type Req } from './http.js';
import { compact, printAccount, printBlock, printDelegation, printDelegationIndex, printResources, printTxInfo } from './json.js';
import { delegationKey } from './ledger.js';
import type { TronNode } from './node.js';
import { BLOCK_LIMIT_NUM, chainParameterList } from './params.js';
import { canDelegateMax, slotOf } from './resources.js';
import { printTransaction } from './transactions.js';

export function queryRoutes(node: TronNode, solid: boolean): [string, Handler][] {
  const top = () => (solid ? node.solid() : node.head());
  const blockAt = (n: number): Block | undefined => (n >= 0 && n <= top().number ? node.blocks[n] : undefined);
  const view = () => node.view(solid);
  const account = (req: Req, field = 'address'): Hex41 => parseAddress(req.params[field], req.visible, field);
  const txid = (req: Req): string => {
    const v = req.params.value;
    if (typeof v !== 'string' || !/^[0-9a-fA-F]{64}$/.test(v)) throw new ParamError('value must be a 32-byte hex transaction id');
    return v.toLowerCase();
  };

  const routes: [string, Handler][] = [
    ['getnowblock', (r) => printBlock(top(), r.visible)],
    [
      'getblockbynum',
      (r) => {
        const b = blockAt(intParam(r.params, 'num'));
        return b ? printBlock(b, r.visible) : {};
      },
    ],
    [
      'getblockbyid',
      (r) => {
        const b = node.blockById(String(r.params.value ?? '').toLowerCase());
        return b && b.number <= top().number ? printBlock(b, r.visible) : {};
      },
    ],
    [
      'getblock',
      (r) => {
        const idOrNum = r.params.id_or_num === undefined ? '' : String(r.params.id_or_num);
        const detail = r.params.detail === true || r.params.detail === 'true';
        let b: Block | undefined;
        if (idOrNum === '') b = top();
        else if (/^\d+$/.test(idOrNum)) b = blockAt(Number(idOrNum));
        else if (/^[0-9a-fA-F]{64}$/.test(idOrNum)) {
          b = node.blockById(idOrNum.toLowerCase());
          if (b && b.number > top().number) b = undefined;
        } else return { Error: 'id must be legal block hash.' };
        return b ? printBlock(b, r.visible, detail) : {};
      },
    ],
    [
      'getblockbylimitnext',
      (r) => {
        const start = intParam(r.params, 'startNum');
        const end = intParam(r.params, 'endNum');
        if (!(end > 0 && end > start && end - start <= BLOCK_LIMIT_NUM)) return {};
        // java-tron reads this one past the solidified block even under /walletsolidity:
        // BlockStore.getLimitNumber's Chainbase.getValuesNext collects every snapshot of the
        // store (SnapshotImpl.collect walks root to newest) whatever the cursor, so it returns
        // the head's blocks too.
        const list: Block[] = [];
        for (let n = Math.max(start, 0); n < end && n <= node.head().number; n++) list.push(node.blocks[n] as Block);
        return { block: list.map((b) => printBlock(b, r.visible)) };
      },
    ],
    [
      'getblockbylatestnum',
      (r) => {
        const num = intParam(r.params, 'num');
        if (!(num > 0 && num < BLOCK_LIMIT_NUM)) return {};
        const head = top().number;
        return { block: node.blocks.slice(Math.max(0, head - num + 1), head + 1).map((b) => printBlock(b, r.visible)) };
      },
    ],
    [
      'gettransactionbyid',
      (r) => {
        const id = txid(r);
        const found = node.findTx(id, top().number);
        if (found) return printTransaction(found.stored.tx, r.visible, { contractRet: found.stored.contractRet });
        // A full node also knows the transactions it holds pending.
        const pending = solid ? undefined : node.pending.find((s) => s.tx.txID === id);
        return pending ? printTransaction(pending.tx, r.visible, { contractRet: pending.contractRet }) : {};
      },
    ],
    [
      'gettransactioninfobyid',
      (r) => {
        const found = node.findTx(txid(r), top().number);
        return found ? printTxInfo(found.stored.info, r.visible) : {};
      },
    ],
    [
      'gettransactioninfobyblocknum',
      (r) => {
        const num = intParam(r.params, 'num');
        if (num <= 0) return {};
        return (blockAt(num)?.txs ?? []).map((s) => printTxInfo(s.info, r.visible));
      },
    ],
    [
      'gettransactioncountbyblocknum',
      (r) => {
        const b = blockAt(intParam(r.params, 'num'));
        return compact({ count: b ? b.txs.length : 0 });
      },
    ],
    [
      'getaccount',
      (r) => {
        const a = view().account(account(r));
        return a ? printAccount(a, r.visible, top().timestamp) : {};
      },
    ],
    [
      'getaccountresource',
      (r) => {
        const v = view();
        const a = v.account(account(r));
        return a ? printResources(v, a, node.params, top().timestamp) : {};
      },
    ],
    [
      'getaccountnet',
      (r) => {
        const v = view();
        const a = v.account(account(r));
        return a ? printResources(v, a, node.params, top().timestamp, true) : {};
      },
    ],
    [
      'getdelegatedresourcev2',
      (r) => {
        const from = parseAddress(r.params.fromAddress, r.visible, 'fromAddress');
        const to = parseAddress(r.params.toAddress, r.visible, 'toAddress');
        const v = view();
        const list = [v.delegation(delegationKey(from, to, false)), v.delegation(delegationKey(from, to, true))].filter(
          (d) => d && (d.bandwidth > 0n || d.energy > 0n || d.expireBandwidth > 0 || d.expireEnergy > 0),
        );
        return list.length > 0 ? { delegatedResource: list.map((d) => printDelegation(d as NonNullable<typeof d>, r.visible)) } : {};
      },
    ],
    [
      'getdelegatedresourceaccountindexv2',
      (r) => {
        const v = r.params.value;
        let address: Hex41;
        try {
          address = r.visible ? fromBase58(String(v)) : String(v).toLowerCase();
        } catch {
          return {};
        }
        if (!isHex41(address)) return {};
        const index = printDelegationIndex(view(), address, r.visible);
        return index.fromAccounts || index.toAccounts ? index : {};
      },
    ],
    [
      'getcandelegatedmaxsize',
      (r) => {
        const type = intParam(r.params, 'type');
        const owner = account(r, 'owner_address');
        const resource = type === 1 ? 'ENERGY' : type === 0 ? 'BANDWIDTH' : undefined;
        const max = resource ? canDelegateMax(view(), owner, resource, node.params, slotOf(top().timestamp)) : 0n;
        return compact({ max_size: max });
      },
    ],
    [
      'getcanwithdrawunfreezeamount',
      (r) => {
        const a = view().account(account(r, 'owner_address'));
        const at = intParam(r.params, 'timestamp');
        const amount = (a?.unfrozen ?? []).filter((u) => u.expireTime <= at).reduce((s, u) => s + u.amount, 0n);
        return compact({ amount });
      },
    ],
    [
      'getavailableunfreezecount',
      (r) => {
        const a = view().account(account(r, 'owner_address'));
        const busy = (a?.unfrozen ?? []).filter((u) => u.expireTime > top().timestamp).length;
        return compact({ count: a ? 32 - busy : 0 });
      },
    ],
    ['validateaddress', (r) => validateAddress(r.params.address)],
    ['getchainparameters', () => ({ chainParameter: chainParameterList(node.params) })],
    ['getenergyprices', () => ({ prices: `0:${node.params.energyFee}` })],
    ['getbandwidthprices', () => ({ prices: `0:${node.params.transactionFee}` })],
    ['getburntrx', () => compact({ burnTrxAmount: view().totals().burned })],
    ['getcontract', (r) => contractJson(node, r)],
    [
      'getcontractinfo',
      (r) => {
        const c = contractJson(node, r);
        if (!('contract_address' in c)) return c;
        return {
          runtimecode: (node.contracts.get(String(r.params.value).toLowerCase()) ?? { bytecode: '' }).bytecode,
          smart_contract: c,
          contract_state: { update_cycle: 0 },
        };
      },
    ],
    [
      'getnodeinfo',
      () => ({
        beginSyncNum: 0,
        block: `Num:${node.head().number},ID:${node.head().id}`,
        solidityBlock: `Num:${node.solid().number},ID:${node.solid().id}`,
        currentConnectCount: 0,
        activeConnectCount: 0,
        passiveConnectCount: 0,
        totalFlow: 0,
        peerList: [],
        configNodeInfo: { codeVersion: '4.8.1', p2pVersion: 'tron-standin', versionNum: '0', listenPort: 0, discoverEnable: false },
        machineInfo: {},
      }),
    ],
  ];
  return routes;
}

/** ValidateAddressServlet: hex (42 chars), base58check (34) or base64 (28). */
function validateAddress(input: unknown): { result: boolean; message: string } {
  const s = typeof input === 'string' ? input : '';
  let bytes: Buffer;
  let message: string;
  try {
    if (s.length === 42) {
      if (!/^[0-9a-fA-F]+$/.test(s)) throw new Error('Invalid hex string');
      bytes = Buffer.from(s, 'hex');
      message = 'Hex string format';
    } else if (s.length === 34) {
      bytes = Buffer.from(fromBase58(s), 'hex');
      message = 'Base58check format';
    } else if (s.length === 28) {
      bytes = Buffer.from(s, 'base64');
      message = 'Base64 format';
    } else return { result: false, message: 'Length error' };
  } catch (err) {
    return { result: false, message: err instanceof AddressError ? 'Invalid address' : (err as Error).message };
  }
  return bytes.length === 21 && bytes[0] === 0x41 ? { result: true, message } : { result: false, message: 'Invalid address' };
}

function contractJson(node: TronNode, r: Req): Record<string, unknown> {
  let address: string;
  try {
    address = r.visible ? fromBase58(String(r.params.value)) : String(r.params.value ?? '').toLowerCase();
  } catch (err) {
    if (err instanceof AddressError) return {};
    throw err;
  }
  const c = node.contracts.get(address);
  if (!c) return {};
  return {
    bytecode: c.bytecode,
    consume_user_resource_percent: c.consumeUserResourcePercent,
    name: c.name,
    origin_address: printAddress(c.origin, r.visible),
    abi: { entrys: c.abi },
    origin_energy_limit: c.originEnergyLimit,
    contract_address: printAddress(c.address, r.visible),
  };
}
