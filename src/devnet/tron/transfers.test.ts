// TRX and TRC-20 movements through the stand-in, driven by tronweb 6.5.1 exactly as a
// production adapter drives a java-tron node; every amount and fee is checked to the sun.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TronStandIn } from './index.js';
import {
  balance,
  fundedWallet,
  hexText,
  info,
  newWallet,
  post,
  sendToken,
  sendTrx,
  tokenBalance,
  tronWeb,
  startForTest,
} from './testkit.js';

let s: TronStandIn;
beforeAll(async () => {
  s = await startForTest();
});
afterAll(async () => {
  await s?.stop();
});

describe('TRX transfers', () => {
  it('spends free bandwidth first, then burns 1000 sun per byte, to the sun', async () => {
    const a = await fundedWallet(s, 100_000_000);
    const b = await fundedWallet(s, 1_000_000);
    const fees: number[] = [];
    const used: number[] = [];
    for (let i = 0; i < 3; i++) {
      const before = await balance(s, a.hex);
      const r = await sendTrx(s, a, b.address, 1_000_000);
      expect(r.result).toBe(true);
      await s.control.produceBlocks(1);
      const txInfo = await info(s, r.txid);
      fees.push(txInfo.fee ?? 0);
      used.push(txInfo.receipt.net_usage ?? txInfo.receipt.net_fee / 1000);
      expect(await balance(s, a.hex)).toBe(before - 1_000_000 - (txInfo.fee ?? 0));
    }
    // 600 free bytes a day: two ~270-byte transfers fit, the third burns all of its bytes.
    expect(fees.slice(0, 2)).toEqual([0, 0]);
    expect(used[0]).toBeGreaterThan(200);
    expect(fees[2]).toBe((used[2] as number) * 1000);
    const res = await post(s, 'wallet/getaccountnet', { address: a.hex });
    // A little has already recovered since (usage decays by the slot).
    expect(res.freeNetUsed).toBeGreaterThanOrEqual((used[0] as number) + (used[1] as number) - 2);
    expect(res.freeNetUsed).toBeLessThanOrEqual((used[0] as number) + (used[1] as number));
    expect(res.freeNetLimit).toBe(600);
  });

  it('free bandwidth comes back over 24 h', async () => {
    const a = await fundedWallet(s, 50_000_000);
    const b = newWallet();
    await s.control.fund(b.address, { trx: 1_000_000 });
    await sendTrx(s, a, b.address, 1);
    await sendTrx(s, a, b.address, 2);
    await s.control.produceBlocks(1);
    expect((await post(s, 'wallet/getaccountnet', { address: a.hex })).freeNetUsed).toBeGreaterThan(500);
    await s.control.advanceTime(12 * 3600_000);
    await s.control.produceBlocks(1);
    const half = (await post(s, 'wallet/getaccountnet', { address: a.hex })).freeNetUsed;
    expect(half).toBeGreaterThan(200);
    expect(half).toBeLessThan(300);
    await s.control.advanceTime(12 * 3600_000);
    await s.control.produceBlocks(1);
    expect((await post(s, 'wallet/getaccountnet', { address: a.hex })).freeNetUsed ?? 0).toBe(0);
    const r = await sendTrx(s, a, b.address, 3);
    await s.control.produceBlocks(1);
    expect((await info(s, r.txid)).fee ?? 0).toBe(0);
  });

  it('activating a new account costs 1 TRX plus 0.1 TRX of bandwidth, and creates it', async () => {
    const a = await fundedWallet(s, 10_000_000);
    const fresh = newWallet();
    expect(await post(s, 'wallet/getaccount', { address: fresh.hex })).toEqual({});
    const before = await balance(s, a.hex);
    const r = await sendTrx(s, a, fresh.address, 2_000_000);
    await s.control.produceBlocks(1);
    const txInfo = await info(s, r.txid);
    expect(txInfo.fee).toBe(1_100_000);
    expect(txInfo.receipt).toEqual({ net_fee: 100_000 });
    expect(await balance(s, a.hex)).toBe(before - 2_000_000 - 1_100_000);
    const created = await post(s, 'wallet/getaccount', { address: fresh.hex });
    expect(created.balance).toBe(2_000_000);
    // java-tron stamps a new account with the head block time it was executed against.
    const previous = await post(s, 'wallet/getblockbynum', { num: txInfo.blockNumber - 1 });
    expect(created.create_time).toBe(previous.block_header.raw_data.timestamp);
  });

  it("refuses a transfer the balance cannot cover, with java-tron's message, and keeps nothing", async () => {
    const a = await fundedWallet(s, 3_000_000);
    const b = await fundedWallet(s, 1_000_000);
    const r = await sendTrx(s, a, b.address, 5_000_000);
    expect(r).toMatchObject({ code: 'CONTRACT_VALIDATE_ERROR' });
    expect(hexText((r as { message: string }).message)).toBe(
      'Contract validate error : Validate TransferContract error, balance is not sufficient.',
    );
    expect(await balance(s, a.hex)).toBe(3_000_000);
    // createtransaction validates the same way and answers java-tron's { Error }.
    const created = await post(s, 'wallet/createtransaction', { owner_address: a.hex, to_address: b.hex, amount: 5_000_000 });
    expect(created.Error).toMatch(/ContractValidateException : Validate TransferContract error, balance is not sufficient\.$/);
  });
});

describe('broadcast checks', () => {
  it('refuses a duplicate', async () => {
    const a = await fundedWallet(s, 10_000_000);
    const b = newWallet();
    const tw = tronWeb(s);
    const signed = await tw.trx.sign(await tw.transactionBuilder.sendTrx(b.address, 1_000_000, a.address), a.privateKey);
    expect((await tw.trx.sendRawTransaction(signed)).result).toBe(true);
    const again = await tw.trx.sendRawTransaction(signed);
    expect(again).toMatchObject({ code: 'DUP_TRANSACTION_ERROR', txid: signed.txID });
    expect(hexText((again as { message: string }).message)).toBe('Dup transaction.');
    await s.control.produceBlocks(1);
    expect((await tw.trx.sendRawTransaction(signed)).code).toBe('DUP_TRANSACTION_ERROR');
  });

  it('refuses a signature by another key (SIGERROR)', async () => {
    const a = await fundedWallet(s, 10_000_000);
    const intruder = newWallet();
    const tw = tronWeb(s);
    const tx = await tw.transactionBuilder.sendTrx(intruder.address, 1_000_000, a.address);
    // multisig=true: tronweb signs with a key that is not the owner's, as a buggy signer would.
    const r = await tw.trx.sendRawTransaction(await tw.trx.sign(tx, intruder.privateKey, true, true));
    expect(r.code).toBe('SIGERROR');
    expect(hexText((r as { message: string }).message)).toMatch(
      new RegExp(`^Validate signature error: [0-9a-f]{130} is signed by ${intruder.address} but it is not contained of permission\\.$`),
    );
    // Only the owner key's permissions exist (owner 0, default active 2).
    const p3 = await tw.transactionBuilder.sendTrx(intruder.address, 1_000_000, a.address, { permissionId: 3 });
    const viaP3 = await tw.trx.sendRawTransaction(await tw.trx.sign(p3, a.privateKey));
    expect(hexText((viaP3 as { message: string }).message)).toBe("Validate signature error: permission isn't exit");
    const unsigned = await tw.trx.sendRawTransaction({ ...tx, signature: [] } as never);
    expect(hexText((unsigned as { message: string }).message)).toBe('Validate signature error: miss sig or contract');
    expect(await balance(s, a.hex)).toBe(10_000_000);
  });

  it('refuses an unknown reference block (TAPOS_ERROR)', async () => {
    const a = await fundedWallet(s, 10_000_000);
    const tw = tronWeb(s);
    const head = (await post(s, 'wallet/getnowblock')).block_header.raw_data;
    const tx = await tw.transactionBuilder.sendTrx(newWallet().address, 1_000_000, a.address, {
      blockHeader: {
        ref_block_bytes: '0000',
        ref_block_hash: 'deadbeefdeadbeef',
        expiration: head.timestamp + 60_000,
        timestamp: head.timestamp,
      },
    } as never);
    const r = await tw.trx.sendRawTransaction(await tw.trx.sign(tx, a.privateKey));
    expect(r.code).toBe('TAPOS_ERROR');
    expect(hexText((r as { message: string }).message)).toBe('Tapos check error.');
  });

  it('refuses an expired transaction and one expiring more than 24 h ahead', async () => {
    const a = await fundedWallet(s, 10_000_000);
    const tw = tronWeb(s);
    const tx = await tw.transactionBuilder.sendTrx(newWallet().address, 1_000_000, a.address);
    const signed = await tw.trx.sign(tx, a.privateKey);
    await s.control.advanceTime(61_000);
    await s.control.produceBlocks(1);
    const r = await tw.trx.sendRawTransaction(signed);
    expect(r).toMatchObject({ code: 'TRANSACTION_EXPIRATION_ERROR', txid: signed.txID });
    expect(hexText((r as { message: string }).message)).toBe('Transaction expired');

    const block = await post(s, 'wallet/getblock', { detail: false });
    const far = await tw.transactionBuilder.sendTrx(newWallet().address, 1_000_000, a.address, {
      blockHeader: {
        ref_block_bytes: block.block_header.raw_data.number.toString(16).padStart(4, '0').slice(-4),
        ref_block_hash: block.blockID.slice(16, 32),
        expiration: block.block_header.raw_data.timestamp + 25 * 3600_000,
        timestamp: block.block_header.raw_data.timestamp,
      },
    } as never);
    expect((await tw.trx.sendRawTransaction(await tw.trx.sign(far, a.privateKey))).code).toBe('TRANSACTION_EXPIRATION_ERROR');
  });

  it('drops a pending transaction that expires before a block packs it', async () => {
    const a = await fundedWallet(s, 10_000_000);
    s.control.pause();
    const r = await sendTrx(s, a, newWallet().address, 1_000_000);
    expect(r.result).toBe(true);
    expect(await balance(s, a.hex)).toBeLessThan(10_000_000);
    await s.control.advanceTime(120_000);
    await s.control.produceBlocks(1);
    expect(await info(s, r.txid)).toEqual({});
    expect(await post(s, 'wallet/gettransactionbyid', { value: r.txid })).toEqual({});
    expect(await balance(s, a.hex)).toBe(10_000_000);
  });

  it("accepts broadcasthex with java-tron's reply", async () => {
    const a = await fundedWallet(s, 10_000_000);
    const tw = tronWeb(s);
    const signed = await tw.trx.sign(await tw.transactionBuilder.sendTrx(newWallet().address, 1_500_000, a.address), a.privateKey);
    const { encodeTransaction } = await import('./protobuf.js');
    const hex = Buffer.from(
      encodeTransaction(Buffer.from(signed.raw_data_hex, 'hex'), [Buffer.from(signed.signature[0] as string, 'hex')]),
    ).toString('hex');
    const r = await tw.trx.sendHexTransaction(hex);
    expect(r).toMatchObject({ result: true, code: 'SUCCESS', message: '', txid: signed.txID });
    expect(await tw.trx.sendHexTransaction(hex)).toMatchObject({
      result: false,
      code: 'DUP_TRANSACTION_ERROR',
      message: 'Dup transaction.',
    });
  });
});

describe('TRC-20 transfers', () => {
  const usdt = () => s.tokens[0]!.address;

  it('moves exact amounts; a first-time holder costs more energy, burned at 100 sun each', async () => {
    const a = await fundedWallet(s, 100_000_000, { USDT: 50_000_000n });
    const b = newWallet();
    expect(await tokenBalance(s, usdt(), a.address)).toBe(50_000_000n);
    const first = await sendToken(s, a, usdt(), b.address, 1_234_567n);
    const second = await sendToken(s, a, usdt(), b.address, 7_654_321n);
    await s.control.produceBlocks(1);
    const [i1, i2] = [await info(s, first.txid), await info(s, second.txid)];
    for (const i of [i1, i2]) {
      expect(i.receipt.result).toBe('SUCCESS');
      expect(i.receipt.energy_fee).toBe(i.receipt.energy_usage_total * 100);
      expect(i.fee).toBe(i.receipt.energy_fee + (i.receipt.net_fee ?? 0));
    }
    // The zero-to-nonzero storage write: about 17 k energy more for a fresh holder.
    expect(i1.receipt.energy_usage_total - i2.receipt.energy_usage_total).toBeGreaterThan(15_000);
    expect(i1.receipt.energy_usage_total).toBeGreaterThan(25_000);
    expect(await tokenBalance(s, usdt(), b.address)).toBe(8_888_888n);
    expect(await tokenBalance(s, usdt(), a.address)).toBe(50_000_000n - 8_888_888n);
    // Receiving TRC-20 does not activate an account.
    expect(await post(s, 'wallet/getaccount', { address: b.hex })).toEqual({});
  });

  it('OUT_OF_ENERGY: the fee limit is spent, nothing moves, the fee is kept', async () => {
    const a = await fundedWallet(s, 20_000_000, { USDT: 5_000_000n });
    const b = newWallet();
    const before = await balance(s, a.hex);
    const r = await sendToken(s, a, usdt(), b.address, 1_000_000n, 1_000_000);
    expect(r.result).toBe(true);
    await s.control.produceBlocks(1);
    const i = await info(s, r.txid);
    expect(i.result).toBe('FAILED');
    expect(i.receipt.result).toBe('OUT_OF_ENERGY');
    expect(i.receipt.energy_usage_total).toBe(10_000);
    expect(i.receipt.energy_fee).toBe(1_000_000);
    expect(hexText(i.resMessage)).toMatch(/^Not enough energy/);
    expect(i.log ?? []).toEqual([]);
    expect(await balance(s, a.hex)).toBe(before - i.fee);
    expect(await tokenBalance(s, usdt(), b.address)).toBe(0n);
    expect(await tokenBalance(s, usdt(), a.address)).toBe(5_000_000n);
    const tx = await post(s, 'wallet/gettransactionbyid', { value: r.txid });
    expect(tx.ret).toEqual([{ contractRet: 'OUT_OF_ENERGY' }]);
  });

  it('REVERT keeps the energy fee and says so', async () => {
    const a = await fundedWallet(s, 20_000_000, { USDT: 1_000n });
    const r = await sendToken(s, a, usdt(), newWallet().address, 2_000n);
    await s.control.produceBlocks(1);
    const i = await info(s, r.txid);
    expect(i).toMatchObject({ result: 'FAILED', receipt: { result: 'REVERT' } });
    expect(hexText(i.resMessage)).toBe('REVERT opcode executed');
    expect(i.fee).toBe(i.receipt.energy_fee + (i.receipt.net_fee ?? 0));
    expect(i.receipt.energy_fee).toBeGreaterThan(0);
  });

  it('estimateenergy covers the real use, as java-tron rounds it (up to 1 TRX of energy over)', async () => {
    const a = await fundedWallet(s, 20_000_000, { USDT: 1_000_000n });
    const b = newWallet();
    const tw = tronWeb(s);
    const est = await tw.transactionBuilder.estimateEnergy(
      usdt(),
      'transfer(address,uint256)',
      {},
      [
        { type: 'address', value: b.address },
        { type: 'uint256', value: 1 },
      ],
      a.address,
    );
    const r = await sendToken(s, a, usdt(), b.address, 1n, est.energy_required * 100);
    await s.control.produceBlocks(1);
    const used = (await info(s, r.txid)).receipt.energy_usage_total;
    expect(est.energy_required).toBeGreaterThanOrEqual(used);
    expect(est.energy_required - used).toBeLessThanOrEqual(10_000);
  });
});
