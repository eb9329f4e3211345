/**
 * Withdrawals on Solana through HTTP against the validator stand-in and real PostgreSQL:
 * SOL and USDC from the master and from a child (the master pays the child's fees and signs
 * as fee payer: the child needs no SOL), the recipient's token account created once with its
 * rent in the estimate and in the recorded fee, the priority fee from recent prioritization
 * fees, an expired blockhash rebuilt once, cancel before broadcast, and sign-only from the
 * master and a child. Every amount is checked on the stand-in, to the lamport and base unit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { getTransferSolInstruction } from '@solana-program/system';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import { build, rawCall } from '../../../src/devnet/solana/test-support.js';
import { eventually } from '../../support/fixtures.js';
import {
  childOf,
  events,
  lamports,
  onChain,
  outboundRows,
  outsider,
  settled,
  solOf,
  startSolanaWorld,
  units,
  usdcOf,
  walletApi,
  type SolanaWorld,
} from './withdrawals-world.js';
import { writtenRows } from './misc-world.js';

/** Rent of an SPL token account (165 bytes), paid by the fee payer when a transfer creates it. */
const ATA_RENT = 2_039_280n;
const SIGNATURE_FEE = 5_000n;

let w: SolanaWorld;

beforeAll(async () => {
  w = await startSolanaWorld('solana-withdrawals');
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

const usdc = (d: string) => units(d, 6);

describe('single withdrawals from the master', () => {
  it('SOL to a new account: exact amount, the master pays amount + the recorded fee, one withdraw.success', async () => {
    const to = outsider();
    const before = await solOf(w, w.wallet.address);
    const res = await walletApi(w, 'POST', '/withdraw', { assetId: w.solId, address: to, amount: '1.000000001' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const done = await settled(w, res.body.data.id);
    expect(done).toMatchObject({ status: 'SUCCESS', amount: '1.000000001', recipientAddress: to, senderAddress: w.wallet.address });
    const tx = await onChain(w, done.hash);
    expect(tx.transaction.signatures).toHaveLength(1);
    expect(lamports(done.fee)).toBe(tx.meta!.fee);
    expect(await solOf(w, to)).toBe(1_000_000_001n);
    expect(await solOf(w, w.wallet.address)).toBe(before - 1_000_000_001n - tx.meta!.fee);
    expect((await outboundRows(w, done.id)).map((r) => [r.stage, r.fee_payer])).toEqual([['mined', null]]);
    await events(w, done.id, 'withdraw.success');
  });

  it('USDC to a recipient without a token account: created once, its rent in the estimate and the recorded fee; the second pays none', async () => {
    const to = outsider();
    const body = { assetId: w.usdcId, address: to, amount: '12.345678' };
    const estimate = await walletApi(w, 'POST', '/withdraw/network-fee', body);
    expect(estimate.status, JSON.stringify(estimate.body)).toBe(200);
    const quoted = lamports(estimate.body.data.networkFee);
    expect(quoted).toBeGreaterThanOrEqual(SIGNATURE_FEE + ATA_RENT);

    const before = await solOf(w, w.wallet.address);
    const usdcBefore = await usdcOf(w, w.wallet.address);
    const first = await walletApi(w, 'POST', '/withdraw', body);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const done = await settled(w, first.body.data.id);
    expect(done.status).toBe('SUCCESS');
    const tx = await onChain(w, done.hash);
    // The recorded fee: the transaction's fee and the rent of the account it created.
    expect(lamports(done.fee)).toBe(tx.meta!.fee + ATA_RENT);
    expect(lamports(done.fee)).toBeLessThanOrEqual(quoted);
    expect(await usdcOf(w, to)).toBe(12_345_678n);
    expect(await usdcOf(w, w.wallet.address)).toBe(usdcBefore - 12_345_678n);
    expect(await solOf(w, w.wallet.address)).toBe(before - lamports(done.fee));

    // The account exists now: no rent in the estimate, none paid.
    const again = await walletApi(w, 'POST', '/withdraw/network-fee', { ...body, amount: '0.000001' });
    const quotedAgain = lamports(again.body.data.networkFee);
    expect(quotedAgain).toBeLessThan(ATA_RENT);
    const second = await walletApi(w, 'POST', '/withdraw', { ...body, amount: '0.000001' });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    const done2 = await settled(w, second.body.data.id);
    const tx2 = await onChain(w, done2.hash);
    expect(lamports(done2.fee)).toBe(tx2.meta!.fee);
    expect(lamports(done2.fee)).toBeLessThanOrEqual(quotedAgain);
    expect(await usdcOf(w, to)).toBe(12_345_679n);
    expect(await solOf(w, w.wallet.address)).toBe(before - lamports(done.fee) - lamports(done2.fee));
  });
});

describe('single withdrawals from a child: the master pays the fee', () => {
  it('USDC from a child holding no SOL: two signatures, the master first; the master pays exactly the recorded fee', async () => {
    const child = await childOf(w);
    await w.sol.control.mintTo(w.usdc, child.address, 5_000_000n);
    await eventually(
      () => usdcOf(w, child.address),
      (v) => v === 5_000_000n,
    );
    const to = outsider();
    const body = { assetId: w.usdcId, address: to, amount: '3.5' };
    const estimate = await walletApi(w, 'POST', `/addresses/${child.id}/withdraw/network-fee`, body);
    expect(estimate.status, JSON.stringify(estimate.body)).toBe(200);
    // Two signatures (the master's and the child's) and the new account's rent.
    expect(lamports(estimate.body.data.networkFee)).toBeGreaterThanOrEqual(2n * SIGNATURE_FEE + ATA_RENT);

    const masterBefore = await solOf(w, w.wallet.address);
    const res = await walletApi(w, 'POST', `/addresses/${child.id}/withdraw`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const done = await settled(w, res.body.data.id);
    expect(done).toMatchObject({ status: 'SUCCESS', amount: '3.5', senderAddress: child.address, recipientAddress: to });
    const tx = await onChain(w, done.hash);
    expect(tx.transaction.signatures).toHaveLength(2);
    expect(tx.transaction.message.accountKeys.slice(0, 2)).toEqual([w.wallet.address, child.address] as Address[]);
    expect(lamports(done.fee)).toBe(tx.meta!.fee + ATA_RENT);
    expect(await solOf(w, w.wallet.address)).toBe(masterBefore - lamports(done.fee));
    expect(await solOf(w, child.address)).toBe(0n);
    expect(await usdcOf(w, child.address)).toBe(1_500_000n);
    expect(await usdcOf(w, to)).toBe(3_500_000n);
    expect((await outboundRows(w, done.id)).map((r) => [r.stage, r.fee_payer])).toEqual([['mined', w.wallet.address]]);
    await events(w, done.id, 'withdraw.success');
  });

  it('SOL from a child: the child sends exactly the amount, the master pays the fee', async () => {
    const child = await childOf(w);
    await w.sol.control.fund(child.address, 2_000_000_000n);
    await eventually(
      () => solOf(w, child.address),
      (v) => v === 2_000_000_000n,
    );
    const to = outsider();
    const masterBefore = await solOf(w, w.wallet.address);
    // All of it: the child keeps nothing for fees, it pays none.
    const res = await walletApi(w, 'POST', `/addresses/${child.id}/withdraw`, { assetId: w.solId, address: to, amount: '2' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const done = await settled(w, res.body.data.id);
    expect(done.status).toBe('SUCCESS');
    const tx = await onChain(w, done.hash);
    expect(lamports(done.fee)).toBe(tx.meta!.fee);
    expect(await solOf(w, child.address)).toBe(0n);
    expect(await solOf(w, to)).toBe(2_000_000_000n);
    expect(await solOf(w, w.wallet.address)).toBe(masterBefore - tx.meta!.fee);
  });

  it('a child holding no SOL pays out again while its first payout is in flight: the master pays that fee, the child holds none of it', async () => {
    const child = await childOf(w);
    await w.sol.control.mintTo(w.usdc, child.address, 5_000_000n);
    await eventually(
      () => usdcOf(w, child.address),
      (v) => v === 5_000_000n,
    );
    // Nothing confirms meanwhile: the first payout stays signed and broadcast, PENDING.
    w.sol.control.pause();
    let first: string;
    let second: { status: number; body: any };
    try {
      const res = await walletApi(w, 'POST', `/addresses/${child.id}/withdraw`, { assetId: w.usdcId, address: outsider(), amount: '1' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      first = res.body.data.id;
      await eventually(
        () => outboundRows(w, first),
        (rows) => rows[0]?.stage === 'broadcast',
        20_000,
      );
      second = await walletApi(w, 'POST', `/addresses/${child.id}/withdraw`, { assetId: w.usdcId, address: outsider(), amount: '1' });
    } finally {
      w.sol.control.resume();
    }
    expect({ status: second.status, code: second.body.error }, `refused while the first was in flight: ${second.body.message}`).toEqual({
      status: 200,
      code: undefined,
    });
    expect((await settled(w, first!)).status).toBe('SUCCESS');
    expect((await settled(w, second.body.data.id)).status).toBe('SUCCESS');
    expect(await solOf(w, child.address)).toBe(0n);
    expect(await usdcOf(w, child.address)).toBe(3_000_000n);
  });

  it('a child asking more than it holds is refused with INSUFFICIENT_BALANCE and nothing written', async () => {
    const child = await childOf(w);
    await w.sol.control.mintTo(w.usdc, child.address, 1_000_000n);
    await eventually(
      () => usdcOf(w, child.address),
      (v) => v === 1_000_000n,
    );
    const res = await walletApi(w, 'POST', `/addresses/${child.id}/withdraw`, {
      assetId: w.usdcId,
      address: outsider(),
      amount: '1.000001',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error).toBe('INSUFFICIENT_BALANCE');
  });
});

describe('a master without SOL', () => {
  it("refuses its child's withdrawal with INSUFFICIENT_BALANCE naming the master, and writes nothing", async () => {
    const created = await w.h.api('POST', '/v1/wallets', {
      key: w.h.businessKey,
      body: { blockchain: 'solana-withdrawals', network: 'testnet', name: 'Dry' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const dry = created.body.data as { id: string; apiKey: string; address: string };
    const api = (path: string, body?: unknown) =>
      w.h.api(body === undefined ? 'GET' : 'POST', `/v1/wallets/${dry.id}${path}`, { key: dry.apiKey, ...(body ? { body } : {}) });
    const enabled = await w.h.api('PATCH', `/v1/wallets/${dry.id}/assets/${w.usdcId}`, { key: dry.apiKey, body: { isActive: true } });
    expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);
    const child = (await api('/addresses', {})).body.data as { id: string; address: string };
    await w.sol.control.mintTo(w.usdc, child.address, 2_000_000n);
    await eventually(
      () => usdcOf(w, child.address),
      (v) => v === 2_000_000n,
    );
    const res = await api(`/addresses/${child.id}/withdraw`, { assetId: w.usdcId, address: outsider(), amount: '1' });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error).toBe('INSUFFICIENT_BALANCE');
    expect(res.body.message).toMatch(/master address pays the network fees/);
    const list = await api('/transactions');
    expect(list.status).toBe(200);
    expect(list.body.data.filter((t: { type: string }) => t.type === 'WITHDRAW')).toEqual([]);
  });
});

describe('the priority fee', () => {
  it('is the recent prioritization fee of the written accounts, as the stand-in answers it, and is what the transaction pays', async () => {
    const PRICE = 7_777n;
    const busy = await generateKeyPairSigner();
    const other = await generateKeyPairSigner();
    await w.sol.control.fund(busy.address, 1_000_000_000n);
    await w.sol.control.fund(other.address, 1_000_000_000n);
    w.sol.control.pause();
    let id: string;
    try {
      // At least 150 blocks before them: a young chain (the stand-in produces blocks on a timer,
      // fewer of them on a loaded machine) answers for fewer blocks than 150.
      w.sol.control.produceSlots(150);
      // 60 of the last 150 blocks hold a transaction writing `busy` at PRICE micro-lamports a unit.
      for (let i = 0; i < 60; i++) {
        const built = await build(w.rpc, busy, [
          getSetComputeUnitPriceInstruction({ microLamports: PRICE }),
          getTransferSolInstruction({ source: busy, destination: other.address, amount: 1 + i }),
        ]);
        await w.rpc.sendTransaction(built.wire, { encoding: 'base64' }).send();
        w.sol.control.produceSlots(1);
      }
      const recent = (await rawCall(w.sol.url, 'getRecentPrioritizationFees', [[busy.address]])).result as {
        slot: number;
        prioritizationFee: number;
      }[];
      expect(recent).toHaveLength(150);
      expect(recent.filter((r) => BigInt(r.prioritizationFee) === PRICE)).toHaveLength(60);

      // A SOL withdrawal to `busy` writes it: the quote bids PRICE (the 75th percentile).
      const body = { assetId: w.solId, address: busy.address, amount: '0.25' };
      const estimate = await walletApi(w, 'POST', '/withdraw/network-fee', body);
      expect(estimate.status, JSON.stringify(estimate.body)).toBe(200);
      const res = await walletApi(w, 'POST', '/withdraw', body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      id = res.body.data.id;
      const [row] = await eventually(
        () => outboundRows(w, id),
        (rows) => rows[0]?.stage === 'broadcast',
        20_000,
      );
      expect(row!.network_data.microLamports).toBe(PRICE.toString());
      const units = BigInt(row!.network_data.units!);
      const priority = (PRICE * units + 999_999n) / 1_000_000n;
      expect(priority).toBeGreaterThan(0n);
      expect(lamports(estimate.body.data.networkFee)).toBe(SIGNATURE_FEE + priority);
    } finally {
      w.sol.control.resume();
    }
    const done = await settled(w, id!);
    const tx = await onChain(w, done.hash);
    const units = BigInt((await outboundRows(w, id!))[0]!.network_data.units!);
    expect(tx.meta!.fee).toBe(SIGNATURE_FEE + (PRICE * units + 999_999n) / 1_000_000n);
    expect(lamports(done.fee)).toBe(tx.meta!.fee);
  });
});

describe('expiry, cancel', () => {
  it('a transaction whose blockhash expired unconfirmed is rebuilt once the finalized height is past it: one on chain, one withdraw.success, paid once', async () => {
    const to = outsider();
    const before = await solOf(w, w.wallet.address);
    w.sol.control.pause();
    let id: string;
    let first: { hash: string | null; network_data: Record<string, string> } | undefined;
    try {
      const res = await walletApi(w, 'POST', '/withdraw', { assetId: w.solId, address: to, amount: '0.5' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      id = res.body.data.id;
      [first] = await eventually(
        () => outboundRows(w, id),
        (rows) => rows[0]?.stage === 'broadcast',
        20_000,
      );
      const cancel = await walletApi(w, 'POST', '/transactions/cancel', { id });
      expect(cancel.status).toBe(409);
      // In one tick (no re-broadcast in between): the transaction is lost with a dropped
      // block, its blockhash expires (151 blocks), then the finalized height passes it too.
      w.sol.control.dropSlots(1);
      w.sol.control.expireBlockhashes();
      const { blockHeight } = w.sol.control.status();
      const past = BigInt(first!.network_data.lastValidBlockHeight!) + 33n - BigInt(blockHeight);
      w.sol.control.produceSlots(Number(past > 0n ? past : 1n));
      const rows = await eventually(
        () => outboundRows(w, id),
        (rows) => rows.length === 2 && rows[1]!.stage === 'broadcast',
        20_000,
      );
      expect(rows[0]!.stage).toBe('replaced');
      expect(rows[1]!.network_data.blockhash).not.toBe(first!.network_data.blockhash);
    } finally {
      w.sol.control.resume();
    }
    const done = await settled(w, id!);
    const rows = await outboundRows(w, id!);
    expect(rows.map((r) => r.stage)).toEqual(['replaced', 'mined']);
    expect(done).toMatchObject({ status: 'SUCCESS', hash: rows[1]!.hash, amount: '0.5' });
    const { value } = await w.rpc.getSignatureStatuses([first!.hash as never], { searchTransactionHistory: true }).send();
    expect(value[0]).toBeNull();
    const tx = await onChain(w, done.hash);
    expect(lamports(done.fee)).toBe(tx.meta!.fee);
    expect(await solOf(w, to)).toBe(500_000_000n);
    expect(await solOf(w, w.wallet.address)).toBe(before - 500_000_000n - tx.meta!.fee);
    const successes = await events(w, id!, 'withdraw.success');
    await new Promise((r) => setTimeout(r, 500));
    expect(w.receiver.requests.filter((r) => r.body.includes(id!) && r.body.includes('withdraw.success'))).toHaveLength(1);
    expect(successes).toHaveLength(1);
  });

  it('cancel before broadcast: CANCELLED, withdraw.failed, nothing sent, nothing paid', async () => {
    const to = outsider();
    const before = await solOf(w, w.wallet.address);
    await w.h.stopWorker();
    let id: string;
    try {
      const res = await walletApi(w, 'POST', '/withdraw', { assetId: w.usdcId, address: to, amount: '1' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      id = res.body.data.id;
      const cancelled = await walletApi(w, 'POST', '/transactions/cancel', { id });
      expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
      expect(cancelled.body.data).toMatchObject({ id, status: 'CANCELLED' });
      const again = await walletApi(w, 'POST', '/transactions/cancel', { id });
      expect(again.body.error).toBe('ALREADY_CANCELLED');
    } finally {
      await w.h.startWorker();
    }
    const [event] = await events(w, id!, 'withdraw.failed');
    expect(event!.data.status).toBe('CANCELLED');
    await new Promise((r) => setTimeout(r, 500));
    expect(await usdcOf(w, to)).toBe(0n);
    expect(await solOf(w, w.wallet.address)).toBe(before);
    expect((await outboundRows(w, id!)).map((r) => [r.stage, r.hash])).toEqual([['replaced', null]]);
  });
});

describe('sign-only', () => {
  it('SOL from the master: a SIGNED transaction the client sends itself; it moves exactly the amount', async () => {
    const to = outsider();
    const before = await solOf(w, w.wallet.address);
    const res = await walletApi(w, 'POST', '/withdraw/sign', { assetId: w.solId, address: to, amount: '0.3' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const t = res.body.data;
    expect(t).toMatchObject({ type: 'SIGNED', status: 'SUCCESS', amount: '0.3', recipientAddress: to });
    expect(await outboundRows(w, t.id)).toEqual([]);
    expect(await solOf(w, to)).toBe(0n);
    const sig = await w.rpc.sendTransaction(t.signedTransaction, { encoding: 'base64' }).send();
    expect(sig).toBe(t.hash);
    const tx = await eventually(
      () => w.rpc.getTransaction(sig, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send(),
      (x) => x !== null,
    );
    expect(await solOf(w, to)).toBe(300_000_000n);
    expect(await solOf(w, w.wallet.address)).toBe(before - 300_000_000n - tx!.meta!.fee);
  });

  it('USDC from a child holding no SOL: signed by the master as fee payer and by the child; the master pays fee and rent', async () => {
    const child = await childOf(w);
    await w.sol.control.mintTo(w.usdc, child.address, 4_000_000n);
    await eventually(
      () => usdcOf(w, child.address),
      (v) => v === 4_000_000n,
    );
    const to = outsider();
    const before = await solOf(w, w.wallet.address);
    const res = await walletApi(w, 'POST', `/addresses/${child.id}/withdraw/sign`, { assetId: w.usdcId, address: to, amount: '2.5' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const t = res.body.data;
    expect(t).toMatchObject({ type: 'SIGNED', senderAddress: child.address, amount: '2.5' });
    // Two signatures on the wire (shortvec count 2), the fee payer's first: the transaction's id.
    expect(Buffer.from(t.signedTransaction, 'base64')[0]).toBe(2);
    const sig = await w.rpc.sendTransaction(t.signedTransaction, { encoding: 'base64' }).send();
    expect(sig).toBe(t.hash);
    const tx = await eventually(
      () => w.rpc.getTransaction(sig, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send(),
      (x) => x !== null,
    );
    expect(tx!.transaction.message.accountKeys.slice(0, 2)).toEqual([w.wallet.address, child.address] as Address[]);
    expect(await usdcOf(w, to)).toBe(2_500_000n);
    expect(await usdcOf(w, child.address)).toBe(1_500_000n);
    expect(await solOf(w, child.address)).toBe(0n);
    expect(await solOf(w, w.wallet.address)).toBe(before - tx!.meta!.fee - ATA_RENT);
  });
});

describe('batch', () => {
  it('SOL and USDC from a child in one request: each item its own transaction and Transaction, the master paying every fee', async () => {
    const child = await childOf(w);
    await w.sol.control.fund(child.address, 1_000_000_000n);
    await w.sol.control.mintTo(w.usdc, child.address, 6_000_000n);
    await eventually(
      () => usdcOf(w, child.address),
      (v) => v === 6_000_000n,
    );
    await eventually(
      () => solOf(w, child.address),
      (v) => v === 1_000_000_000n,
    );
    const [a, b] = [outsider(), outsider()];
    const body = {
      assets: [
        { id: w.solId, amount: '1', address: a },
        { id: w.usdcId, amount: '5.5', address: b },
      ],
    };
    const estimate = await walletApi(w, 'POST', `/addresses/${child.id}/withdraw/network-fee`, body);
    expect(estimate.status, JSON.stringify(estimate.body)).toBe(200);
    const [solFee, usdcFee] = (estimate.body.data.fees as string[]).map(lamports);
    expect(usdcFee! - solFee!).toBeGreaterThanOrEqual(ATA_RENT);
    const masterBefore = await solOf(w, w.wallet.address);
    const res = await walletApi(w, 'POST', `/addresses/${child.id}/withdraw`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [x, y] = res.body.data as { id: string }[];
    const [doneX, doneY] = [await settled(w, x!.id), await settled(w, y!.id)];
    expect(doneX).toMatchObject({ status: 'SUCCESS', amount: '1', recipientAddress: a });
    expect(doneY).toMatchObject({ status: 'SUCCESS', amount: '5.5', recipientAddress: b });
    expect(doneX.hash).not.toBe(doneY.hash);
    expect(lamports(doneY.fee)).toBe((await onChain(w, doneY.hash)).meta!.fee + ATA_RENT);
    expect(await solOf(w, a)).toBe(1_000_000_000n);
    expect(await usdcOf(w, b)).toBe(5_500_000n);
    expect(await solOf(w, child.address)).toBe(0n);
    expect(await usdcOf(w, child.address)).toBe(500_000n);
    expect(await solOf(w, w.wallet.address)).toBe(masterBefore - lamports(doneX.fee) - lamports(doneY.fee));
    await events(w, x!.id, 'withdraw.success');
    await events(w, y!.id, 'withdraw.success');
  });
});

describe("an account's rent-exempt floor", () => {
  // A system account may be emptied or keep at least its rent-exempt minimum (890,880
  // lamports); a transaction leaving it in between fails on chain. Each item of a batch
  // passes its own simulation (it alone leaves plenty); together they would not.
  const FLOOR = 890_880n;

  it('refuses payouts that together would leave the sender between nothing and the minimum, writing nothing; emptying it is fine', async () => {
    const child = await childOf(w);
    await w.sol.control.fund(child.address, 2_000_000_000n);
    await eventually(
      () => solOf(w, child.address),
      (v) => v === 2_000_000_000n,
    );
    const [a, b] = [outsider(), outsider()];
    // 1 + 0.9995 SOL out of 2: 500,000 lamports left, under the floor.
    const short = {
      assets: [
        { id: w.solId, amount: '1', address: a },
        { id: w.solId, amount: '0.9995', address: b },
      ],
    };
    const before = await writtenRows(w);
    const res = await walletApi(w, 'POST', `/addresses/${child.id}/withdraw`, short);
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error).toBe('INSUFFICIENT_BALANCE');
    expect(res.body.message).toContain('0.00089088 SOL');
    expect(await writtenRows(w)).toEqual(before);

    // Leaving exactly the floor, or nothing, is allowed.
    const kept = { assets: [{ id: w.solId, amount: '1.99910912', address: a }] };
    const first = await walletApi(w, 'POST', `/addresses/${child.id}/withdraw`, kept);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect((await settled(w, first.body.data[0].id)).status).toBe('SUCCESS');
    expect(await solOf(w, child.address)).toBe(FLOOR);
    const rest = await walletApi(w, 'POST', `/addresses/${child.id}/withdraw`, { assetId: w.solId, address: b, amount: '0.00089088' });
    expect(rest.status, JSON.stringify(rest.body)).toBe(200);
    expect((await settled(w, rest.body.data.id)).status).toBe('SUCCESS');
    expect(await solOf(w, child.address)).toBe(0n);
    expect(await solOf(w, b)).toBe(FLOOR);
  });
});
