import { bytesToHex } from '@noble/hashes/utils';
import { utils } from 'tronweb';
import { describe, expect, it } from 'vitest';
import { bandwidthOf, callOf, checkRaw, encodeRaw, encodeSigned, readHeader, txIdOf, TronTxFormatError, type RawHeader } from './tx.js';

// tronweb's own protobuf codec (the one its txCheck uses) is the reference for our bytes.
const OWNER = '41' + '11'.repeat(20);
const TO = '41' + '22'.repeat(20);
const header: RawHeader = {
  refBlockBytes: 'abcd',
  refBlockHash: '0102030405060708',
  expiration: 1764100000000n,
  timestamp: 1764099940123n,
};

function tronwebTx(type: string, value: Record<string, unknown>, feeLimit?: number): { raw: string; txID: string } {
  const json = {
    visible: false,
    raw_data: {
      contract: [{ parameter: { value, type_url: `type.googleapis.com/protocol.${type}` }, type }],
      ref_block_bytes: header.refBlockBytes,
      ref_block_hash: header.refBlockHash,
      expiration: Number(header.expiration),
      timestamp: Number(header.timestamp),
      ...(feeLimit ? { fee_limit: feeLimit } : {}),
    },
  };
  const pb = utils.transaction.txJsonToPb(json as never);
  return { raw: utils.transaction.txPbToRawDataHex(pb).toLowerCase(), txID: utils.transaction.txPbToTxID(pb).replace(/^0x/, '') };
}

describe('Tron transaction bytes (tx.ts) against tronweb', () => {
  it('encodes a TRX transfer as tronweb does, and its txID', () => {
    const call = callOf({ from: OWNER, to: TO, value: 1_234_567n, data: null }, 0n);
    const raw = encodeRaw(call, header);
    const expected = tronwebTx('TransferContract', { owner_address: OWNER, to_address: TO, amount: 1234567 });
    expect(bytesToHex(raw)).toBe(expected.raw);
    expect(txIdOf(raw)).toBe(expected.txID);
  });

  it('encodes a TRC-20 call with its fee limit as tronweb does', () => {
    const data = 'a9059cbb' + '00'.repeat(12) + '33'.repeat(20) + (10n ** 18n).toString(16).padStart(64, '0');
    const call = callOf({ from: OWNER, to: TO, value: 0n, data: `0x${data}` }, 15_000_000_000n);
    const expected = tronwebTx('TriggerSmartContract', { owner_address: OWNER, contract_address: TO, data }, 15_000_000_000);
    expect(bytesToHex(encodeRaw(call, header))).toBe(expected.raw);
  });

  it('reads the header back, and checkRaw accepts exactly the call asked for', () => {
    const call = callOf({ from: OWNER, to: TO, value: 5n, data: null }, 0n);
    const raw = encodeRaw(call, header);
    expect(readHeader(raw)).toEqual(header);
    expect(checkRaw(raw, call)).toEqual(header);
    // Another amount, another recipient, a memo (field 10) appended: refused.
    const other = encodeRaw(callOf({ from: OWNER, to: TO, value: 6n, data: null }, 0n), header);
    expect(() => checkRaw(other, call)).toThrow(TronTxFormatError);
    const elsewhere = encodeRaw(callOf({ from: OWNER, to: OWNER, value: 5n, data: null }, 0n), header);
    expect(() => checkRaw(elsewhere, call)).toThrow(TronTxFormatError);
    const memo = new Uint8Array([...raw, 0x52, 0x01, 0x41]);
    expect(() => checkRaw(memo, call)).toThrow(TronTxFormatError);
    // An expiration far beyond what java-tron accepts.
    const late = encodeRaw(call, { ...header, expiration: header.timestamp + 2n * 86_400_000n });
    expect(() => checkRaw(late, call)).toThrow(/24 h/);
  });

  it('wraps raw data and a signature as a Transaction, and counts its bandwidth', () => {
    const raw = encodeRaw(callOf({ from: OWNER, to: TO, value: 5n, data: null }, 0n), header);
    const sig = new Uint8Array(65).fill(7);
    const signed = encodeSigned(raw, sig);
    // Transaction: field 1 (raw_data, its length as a varint), field 2 (the 65-byte signature).
    const len = raw.length < 128 ? [raw.length] : [(raw.length & 0x7f) | 0x80, raw.length >> 7];
    expect(bytesToHex(signed)).toBe(bytesToHex(new Uint8Array([0x0a, ...len, ...raw, 0x12, 0x41, ...sig])));
    expect(bandwidthOf(raw.length)).toBe(BigInt(signed.length + 64));
  });

  it('encodes the Stake 2.0 operations as tronweb does, each addressed to its owner only', () => {
    const own = { from: OWNER, to: OWNER, value: 0n, data: null };
    const cases: [Record<string, string>, string, Record<string, unknown>][] = [
      [
        { resourceOp: 'freeze', resource: 'ENERGY', resourceSun: '3000000' },
        'FreezeBalanceV2Contract',
        { owner_address: OWNER, frozen_balance: 3_000_000, resource: 'ENERGY' },
      ],
      [
        { resourceOp: 'freeze', resource: 'BANDWIDTH', resourceSun: '2000000' },
        'FreezeBalanceV2Contract',
        { owner_address: OWNER, frozen_balance: 2_000_000 },
      ],
      [
        { resourceOp: 'unfreeze', resource: 'ENERGY', resourceSun: '1000000' },
        'UnfreezeBalanceV2Contract',
        { owner_address: OWNER, unfreeze_balance: 1_000_000, resource: 'ENERGY' },
      ],
      [{ resourceOp: 'cancelUnfreeze' }, 'CancelAllUnfreezeV2Contract', { owner_address: OWNER }],
      [{ resourceOp: 'withdrawUnfrozen' }, 'WithdrawExpireUnfreezeContract', { owner_address: OWNER }],
    ];
    for (const [network, type, value] of cases) {
      expect(bytesToHex(encodeRaw(callOf(own, 0n, network), header)), type).toBe(tronwebTx(type, value).raw);
      // Staking moves the owner's own stake: an intent naming anyone else is refused.
      expect(() => callOf({ ...own, to: TO }, 0n, network)).toThrow(TronTxFormatError);
    }
    expect(() => callOf(own, 0n, { resourceOp: 'withdrawUnfrozen', resource: 'ENERGY' })).toThrow(TronTxFormatError);
    expect(() => callOf(own, 0n, { resourceOp: 'freeze', resource: 'ENERGY', resourceSun: '0' })).toThrow(TronTxFormatError);
  });
});
