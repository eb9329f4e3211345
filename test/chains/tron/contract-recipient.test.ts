/**
 * TRX to a smart contract on Tron. java-tron's TransferActuator refuses a TransferContract
 * whose recipient is a contract account while the chain forbids it
 * (getForbidTransferToContract = 1, as on mainnet): "Cannot transfer TRX to a
 * smartContract.", from createtransaction and from a broadcast alike. A payout to such an
 * address can never be sent: it must be refused when it is asked for (422, nothing written),
 * and a transaction that meets the refusal when it is built must fail ('reverted', its row
 * voided, its payout FAILED) rather than be built again for ever with its amount held.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainRejectedError } from '../../../src/chains/errors.js';
import type { NativeIntent } from '../../../src/chains/types.js';
import { TronNode } from '../../../src/chains/tron/node.js';
import { TronSender } from '../../../src/chains/tron/sender.js';
import { fundedWallet } from '../../../src/devnet/tron/testkit.js';
import { startTronWorld, walletApi, writtenRows, type TronWorld } from './world.js';

let w: TronWorld;
beforeAll(async () => {
  w = await startTronWorld('tron-contract-recipient');
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

describe('TRX to a contract account', () => {
  it('the sender refuses to quote or build it: reverted, so a payout accepted earlier fails instead of waiting for ever', async () => {
    const sender = new TronSender(new TronNode(w.s.url));
    const a = await fundedWallet(w.s, 20_000_000);
    const intent: NativeIntent = { kind: 'native', from: a.address, to: w.s.multicall.address, amount: 1_000_000n };
    const quoted = await sender.quote(intent).catch((e: unknown) => e);
    expect(quoted).toBeInstanceOf(ChainRejectedError);
    expect((quoted as ChainRejectedError).reason).toBe('reverted');
    const built = await sender.prepare(intent, {}).catch((e: unknown) => e);
    expect(built).toBeInstanceOf(ChainRejectedError);
    expect((built as ChainRejectedError).reason).toBe('reverted');
  });

  it('a withdrawal of TRX to a contract is a 422 and writes nothing (it could never be sent)', async () => {
    const before = await writtenRows(w);
    const body = { assetId: w.trxId, address: w.s.multicall.address, amount: '1' };
    const fee = await walletApi(w, 'POST', '/withdraw/network-fee', body);
    expect(fee.status, JSON.stringify(fee.body)).toBe(422);
    expect(fee.body.error).toBe('TRANSFER_WOULD_FAIL');
    const res = await walletApi(w, 'POST', '/withdraw', body);
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error).toBe('TRANSFER_WOULD_FAIL');
    expect(res.body.message).toMatch(/contract/);
    expect(await writtenRows(w)).toEqual(before);
  });
});
