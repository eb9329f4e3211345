// The stand-in's answers against the response shapes java-tron documents: exact field names
// (no invented ones), value types and hex/base58 spellings. Each shape names its doc page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TronStandIn } from './index.js';
import { fundedWallet, get, newWallet, post, sendToken, sendTrx, startForTest, type Wallet } from './testkit.js';

/** A shape: a type token, a nested object (keys ending in '?' optional), or a one-element array. */
type Shape = string | { [k: string]: Shape } | [Shape];

const TOKENS: Record<string, (v: unknown) => boolean> = {
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  string: (v) => typeof v === 'string',
  boolean: (v) => typeof v === 'boolean',
  hex: (v) => typeof v === 'string' && /^([0-9a-f]{2})*$/.test(v),
  hex32: (v) => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v),
  hex8: (v) => typeof v === 'string' && /^[0-9a-f]{16}$/.test(v),
  hex2: (v) => typeof v === 'string' && /^[0-9a-f]{4}$/.test(v),
  hex65: (v) => typeof v === 'string' && /^[0-9a-f]{130}$/.test(v),
  address: (v) => typeof v === 'string' && /^41[0-9a-f]{40}$/.test(v),
  evmAddress: (v) => typeof v === 'string' && /^[0-9a-f]{40}$/.test(v),
  base58: (v) => typeof v === 'string' && /^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(v),
  true: (v) => v === true,
  false: (v) => v === false,
  any: () => true,
};

function check(value: unknown, shape: Shape, at: string, errors: string[]): void {
  if (typeof shape === 'string') {
    if (shape.startsWith('=')) {
      if (value !== shape.slice(1)) errors.push(`${at}: expected "${shape.slice(1)}", got ${JSON.stringify(value)}`);
    } else if (!(TOKENS[shape] as (v: unknown) => boolean)(value)) errors.push(`${at}: expected ${shape}, got ${JSON.stringify(value)}`);
    return;
  }
  if (Array.isArray(shape)) {
    if (!Array.isArray(value) || value.length === 0) return void errors.push(`${at}: expected a non-empty array`);
    value.forEach((v, i) => check(v, shape[0], `${at}[${i}]`, errors));
    return;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return void errors.push(`${at}: expected an object`);
  const keys = new Map(Object.keys(shape).map((k) => [k.replace(/\?$/, ''), k]));
  for (const k of Object.keys(value)) if (!keys.has(k)) errors.push(`${at}.${k}: not a documented field`);
  for (const [name, key] of keys) {
    const v = (value as Record<string, unknown>)[name];
    if (v === undefined) {
      if (!key.endsWith('?')) errors.push(`${at}.${name}: missing`);
    } else check(v, shape[key] as Shape, `${at}.${name}`, errors);
  }
}

function expectShape(value: unknown, shape: Shape): void {
  const errors: string[] = [];
  check(value, shape, '$', errors);
  expect(errors).toEqual([]);
}

// Transaction, as printed by Util.printTransactionToJSON.
// https://tronprotocol.github.io/documentation-en/api/http/block-and-tx-query/gettransactionbyid/
const rawData = (value: Shape, feeLimit = false): Shape => ({
  contract: [{ parameter: { value, type_url: 'string' }, type: 'string' }],
  ref_block_bytes: 'hex2',
  ref_block_hash: 'hex8',
  expiration: 'number',
  timestamp: 'number',
  ...(feeLimit ? { fee_limit: 'number' } : {}),
});
const TRANSFER_VALUE: Shape = { owner_address: 'address', to_address: 'address', amount: 'number' };
const TRIGGER_VALUE: Shape = { owner_address: 'address', contract_address: 'address', data: 'hex' };
const SIGNED_TX = (value: Shape, feeLimit = false): Shape => ({
  ret: [{ contractRet: 'string' }],
  signature: ['hex65'],
  txID: 'hex32',
  raw_data: rawData(value, feeLimit),
  raw_data_hex: 'hex',
});
// https://tronprotocol.github.io/documentation-en/api/http/block-and-tx-query/getnowblock/
const BLOCK: Shape = {
  blockID: 'hex32',
  block_header: {
    raw_data: {
      number: 'number',
      txTrieRoot: 'hex32',
      witness_address: 'address',
      parentHash: 'hex32',
      version: 'number',
      timestamp: 'number',
    },
    witness_signature: 'hex65',
  },
  'transactions?': ['any'],
};

let s: TronStandIn;
let a: Wallet;
let trxTx: string;
let tokenTx: string;
beforeAll(async () => {
  s = await startForTest();
  a = await fundedWallet(s, 100_000_000, { USDT: 10_000_000n });
  trxTx = (await sendTrx(s, a, newWallet().address, 1_000_000)).txid;
  tokenTx = (await sendToken(s, a, s.tokens[0]!.address, newWallet().address, 5n)).txid;
  await s.control.produceBlocks(1);
});
afterAll(async () => {
  await s?.stop();
});

describe('documented response shapes', () => {
  it('blocks', async () => {
    expectShape(await post(s, 'wallet/getnowblock'), BLOCK);
    const withTxs = await post(s, 'wallet/getblockbynum', {
      num: (await post(s, 'wallet/gettransactioninfobyid', { value: trxTx })).blockNumber,
    });
    expectShape(withTxs, BLOCK);
    expectShape(withTxs.transactions[0], SIGNED_TX(TRANSFER_VALUE));
    // https://tronprotocol.github.io/documentation-en/api/http/block-and-tx-query/getblockbylimitnext/
    expectShape(await post(s, 'wallet/getblockbylimitnext', { startNum: 1, endNum: 3 }), { block: [BLOCK] });
    // visible=true: addresses in base58check.
    const visible = await get(s, 'wallet/getnowblock?visible=true');
    expect(visible.block_header.raw_data.witness_address).toMatch(/^T/);
  });

  it('transactions and their infos', async () => {
    expectShape(await post(s, 'wallet/gettransactionbyid', { value: trxTx }), SIGNED_TX(TRANSFER_VALUE));
    expectShape(await post(s, 'wallet/gettransactionbyid', { value: tokenTx }), SIGNED_TX(TRIGGER_VALUE, true));
    // https://tronprotocol.github.io/documentation-en/api/http/block-and-tx-query/gettransactioninfobyid/
    expectShape(await post(s, 'wallet/gettransactioninfobyid', { value: trxTx }), {
      id: 'hex32',
      'fee?': 'number',
      blockNumber: 'number',
      blockTimeStamp: 'number',
      contractResult: ['any'],
      receipt: { 'net_usage?': 'number', 'net_fee?': 'number' },
    });
    const tokenInfo = await post(s, 'wallet/gettransactioninfobyid', { value: tokenTx });
    expectShape(tokenInfo, {
      id: 'hex32',
      fee: 'number',
      blockNumber: 'number',
      blockTimeStamp: 'number',
      contractResult: ['hex'],
      contract_address: 'address',
      receipt: {
        'energy_usage?': 'number',
        energy_fee: 'number',
        energy_usage_total: 'number',
        'net_usage?': 'number',
        'net_fee?': 'number',
        result: '=SUCCESS',
      },
      // Log addresses are the TVM's 20 bytes, topics and data plain hex (no 0x).
      log: [{ address: 'evmAddress', topics: ['hex32'], data: 'hex' }],
    });
    const visible = await post(s, 'wallet/gettransactioninfobyid', { value: tokenTx, visible: true });
    expect(visible.log[0].address).toMatch(/^T/);
    expect(visible.contract_address).toBe(s.tokens[0]!.address);
    // https://tronprotocol.github.io/documentation-en/api/http/block-and-tx-query/gettransactioninfobyblocknum/
    const byBlock = await post(s, 'wallet/gettransactioninfobyblocknum', { num: tokenInfo.blockNumber });
    expect(Array.isArray(byBlock)).toBe(true);
  });

  it('building and broadcasting', async () => {
    // https://tronprotocol.github.io/documentation-en/api/http/tx-build-and-broadcast/createtransaction/
    const built = await post(s, 'wallet/createtransaction', { owner_address: a.hex, to_address: s.faucet.hex, amount: 1 });
    expectShape(built, { visible: 'false', txID: 'hex32', raw_data: rawData(TRANSFER_VALUE), raw_data_hex: 'hex' });
    const visible = await post(s, 'wallet/createtransaction', {
      owner_address: a.address,
      to_address: s.faucet.address,
      amount: 1,
      visible: true,
    });
    expectShape(visible, {
      visible: 'true',
      txID: 'hex32',
      raw_data: rawData({ owner_address: 'base58', to_address: 'base58', amount: 'number' }),
      raw_data_hex: 'hex',
    });
    // A hex address with visible=true (or base58 without it) is refused like java-tron's parser does.
    expect((await post(s, 'wallet/createtransaction', { owner_address: a.address, to_address: s.faucet.hex, amount: 1 })).Error).toBeTypeOf(
      'string',
    );
    // https://tronprotocol.github.io/documentation-en/api/http/tx-build-and-broadcast/broadcasttransaction/
    expectShape(await post(s, 'wallet/broadcasttransaction', { ...built, signature: ['00'.repeat(65)] }), {
      code: '=SIGERROR',
      txid: 'hex32',
      message: 'hex',
    });
    // https://tronprotocol.github.io/documentation-en/api/http/smart-contract/triggersmartcontract/
    const trigger = {
      owner_address: a.hex,
      contract_address: s.tokens[0]!.hex,
      function_selector: 'transfer(address,uint256)',
      parameter: s.faucet.hex.slice(2).padStart(64, '0') + '1'.padStart(64, '0'),
      fee_limit: 50_000_000,
    };
    expectShape(await post(s, 'wallet/triggersmartcontract', trigger), {
      result: { result: 'true' },
      transaction: { visible: 'false', txID: 'hex32', raw_data: rawData(TRIGGER_VALUE, true), raw_data_hex: 'hex' },
    });
    // https://tronprotocol.github.io/documentation-en/api/http/smart-contract/triggerconstantcontract/
    expectShape(await post(s, 'wallet/triggerconstantcontract', trigger), {
      result: { result: 'true' },
      energy_used: 'number',
      constant_result: ['hex'],
      'logs?': [{ address: 'evmAddress', topics: ['hex32'], data: 'hex' }],
      transaction: { ret: ['any'], visible: 'false', txID: 'hex32', raw_data: rawData(TRIGGER_VALUE, true), raw_data_hex: 'hex' },
    });
    // https://tronprotocol.github.io/documentation-en/api/http/smart-contract/estimateenergy/
    expectShape(await post(s, 'wallet/estimateenergy', trigger), { result: { result: 'true' }, energy_required: 'number' });
    expectShape(await post(s, 'wallet/triggersmartcontract', { ...trigger, contract_address: s.faucet.hex }), {
      result: { code: '=CONTRACT_VALIDATE_ERROR', message: 'hex' },
    });
  });

  it('accounts and resources', async () => {
    // https://tronprotocol.github.io/documentation-en/api/http/account/getaccount/
    expectShape(await post(s, 'wallet/getaccount', { address: a.hex }), {
      address: 'address',
      balance: 'number',
      create_time: 'number',
      'latest_opration_time?': 'number',
      'free_net_usage?': 'number',
      'latest_consume_free_time?': 'number',
      'net_usage?': 'number',
      'latest_consume_time?': 'number',
      'net_window_size?': 'number',
      'net_window_optimized?': 'boolean',
      'account_resource?': 'any',
      owner_permission: { permission_name: '=owner', threshold: 'number', keys: [{ address: 'address', weight: 'number' }] },
      active_permission: [
        { type: '=Active', id: 'number', permission_name: '=active', threshold: 'number', operations: 'hex32', keys: ['any'] },
      ],
      frozenV2: ['any'],
      asset_optimized: 'true',
    });
    expect(await post(s, 'wallet/getaccount', { address: newWallet().hex })).toEqual({});
    // https://tronprotocol.github.io/documentation-en/api/http/account/getaccountresource/
    expectShape(await post(s, 'wallet/getaccountresource', { address: a.hex }), {
      'freeNetUsed?': 'number',
      freeNetLimit: 'number',
      'NetUsed?': 'number',
      'NetLimit?': 'number',
      TotalNetLimit: 'number',
      TotalNetWeight: 'number',
      'EnergyUsed?': 'number',
      'EnergyLimit?': 'number',
      TotalEnergyLimit: 'number',
      TotalEnergyWeight: 'number',
    });
    // https://tronprotocol.github.io/documentation-en/api/http/account/validateaddress/
    expect(await post(s, 'wallet/validateaddress', { address: a.address })).toEqual({ result: true, message: 'Base58check format' });
    expect(await post(s, 'wallet/validateaddress', { address: a.hex })).toEqual({ result: true, message: 'Hex string format' });
    expect(await post(s, 'wallet/validateaddress', { address: 'T123' })).toEqual({ result: false, message: 'Length error' });
    // https://tronprotocol.github.io/documentation-en/api/http/witness-and-governance/getchainparameters/
    const params = (await post(s, 'wallet/getchainparameters')).chainParameter as { key: string; value?: number }[];
    const byKey = Object.fromEntries(params.map((p) => [p.key, p.value]));
    expect(byKey).toMatchObject({
      getEnergyFee: 100,
      getTransactionFee: 1000,
      getCreateAccountFee: 100_000,
      getCreateNewAccountFeeInSystemContract: 1_000_000,
      getFreeNetLimit: 600,
    });
  });

  it('unknown things answer as java-tron does', async () => {
    expect(await post(s, 'wallet/gettransactioninfobyid', { value: '00'.repeat(32) })).toEqual({});
    expect(await post(s, 'wallet/gettransactionbyid', { value: '00'.repeat(32) })).toEqual({});
    expect(await post(s, 'wallet/getblockbynum', { num: 10_000_000 })).toEqual({});
    expect(await post(s, 'wallet/getaccountresource', { address: newWallet().hex })).toEqual({});
    expect(await post(s, 'wallet/getcontract', { value: newWallet().hex })).toEqual({});
    const res = await fetch(`${s.url}/wallet/nosuchthing`);
    expect(res.status).toBe(404);
  });
});
