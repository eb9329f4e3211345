// Raw JSON-RPC answers checked against the shapes documented at solana.com/docs/rpc (the page
// of each method is named above its expectation): field names and JSON types, error codes and
// messages as agave formats them, batches.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getTransferCheckedInstruction } from '@solana-program/token';
import { ata, build, fundedSigner, rawCall, startWorld, type World } from './test-support.js';

let w: World;
let sig: string;
let landed: number;
let senderAta: string;
beforeAll(async () => {
  w = await startWorld();
  const sender = await fundedSigner(w);
  const recipient = await generateKeyPairSigner();
  await w.standIn.control.mintTo('USDC', sender.address, 5_000_000n);
  await w.standIn.control.mintTo('USDC', recipient.address, 1n);
  w.standIn.control.produceSlots();
  senderAta = await ata(sender.address, w.usdc);
  const built = await build(w.rpc, sender, [
    getTransferCheckedInstruction({
      source: senderAta as never,
      mint: w.usdc,
      destination: await ata(recipient.address, w.usdc),
      authority: sender,
      amount: 1_500_000n,
      decimals: 6,
    }),
  ]);
  sig = built.signature;
  await w.rpc.sendTransaction(built.wire, { encoding: 'base64' }).send();
  w.standIn.control.produceSlots(3);
  landed = Number((await w.rpc.getSignatureStatuses([built.signature]).send()).value[0]!.slot);
});
afterAll(async () => {
  await w?.standIn.stop();
});

type Kind = 'string' | 'number' | 'boolean' | 'null' | 'array' | 'object';
const kind = (v: unknown): Kind => (v === null ? 'null' : Array.isArray(v) ? 'array' : (typeof v as Kind));
/** Every listed field is present with one of its allowed JSON types. */
function expectShape(value: unknown, shape: Record<string, Kind | Kind[]>): void {
  expect(kind(value)).toBe('object');
  const o = value as Record<string, unknown>;
  const actual = Object.fromEntries(Object.keys(shape).map((k) => [k, k in o ? kind(o[k]) : 'missing']));
  const expected = Object.fromEntries(
    Object.entries(shape).map(([k, t]) => [k, Array.isArray(t) ? (t.includes(actual[k] as Kind) ? actual[k] : t.join('|')) : t]),
  );
  expect(actual).toEqual(expected);
}
const context = { slot: 'number', apiVersion: 'string' } as const;

describe('documented response shapes', () => {
  it('getLatestBlockhash, getSlot, getBlockHeight, getEpochInfo, getVersion, getHealth, getGenesisHash', async () => {
    // solana.com/docs/rpc/http/getlatestblockhash
    const lb = await rawCall(w.standIn.url, 'getLatestBlockhash', [{ commitment: 'confirmed' }]);
    expectShape(lb.result.context, context);
    expectShape(lb.result.value, { blockhash: 'string', lastValidBlockHeight: 'number' });
    // solana.com/docs/rpc/http/getslot, getblockheight
    expect(kind((await rawCall(w.standIn.url, 'getSlot')).result)).toBe('number');
    expect(kind((await rawCall(w.standIn.url, 'getBlockHeight', [{ commitment: 'processed' }])).result)).toBe('number');
    // solana.com/docs/rpc/http/getepochinfo
    expectShape((await rawCall(w.standIn.url, 'getEpochInfo')).result, {
      absoluteSlot: 'number',
      blockHeight: 'number',
      epoch: 'number',
      slotIndex: 'number',
      slotsInEpoch: 'number',
      transactionCount: ['number', 'null'],
    });
    // solana.com/docs/rpc/http/getversion, gethealth, getgenesishash
    expectShape((await rawCall(w.standIn.url, 'getVersion')).result, { 'solana-core': 'string', 'feature-set': 'number' });
    expect((await rawCall(w.standIn.url, 'getHealth')).result).toBe('ok');
    expect((await rawCall(w.standIn.url, 'getGenesisHash')).result).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    // solana.com/docs/rpc/http/isblockhashvalid
    const valid = await rawCall(w.standIn.url, 'isBlockhashValid', [lb.result.value.blockhash, { commitment: 'processed' }]);
    expect(valid.result.value).toBe(true);
  });

  it('getSignatureStatuses and getTransaction (json)', async () => {
    // solana.com/docs/rpc/http/getsignaturestatuses
    const st = await rawCall(w.standIn.url, 'getSignatureStatuses', [[sig], { searchTransactionHistory: true }]);
    expectShape(st.result.context, context);
    expectShape(st.result.value[0], {
      slot: 'number',
      confirmations: ['number', 'null'],
      err: 'null',
      status: 'object',
      confirmationStatus: 'string',
    });
    expect(st.result.value[0].status).toEqual({ Ok: null });
    // solana.com/docs/rpc/http/gettransaction
    const tx = (
      await rawCall(w.standIn.url, 'getTransaction', [
        sig,
        { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 },
      ])
    ).result;
    expectShape(tx, { slot: 'number', blockTime: 'number', meta: 'object', transaction: 'object', version: 'number' });
    expectShape(tx.meta, {
      err: 'null',
      fee: 'number',
      preBalances: 'array',
      postBalances: 'array',
      innerInstructions: 'array',
      preTokenBalances: 'array',
      postTokenBalances: 'array',
      logMessages: 'array',
      rewards: 'array',
      status: 'object',
      loadedAddresses: 'object',
      computeUnitsConsumed: 'number',
    });
    expectShape(tx.meta.postTokenBalances[0], {
      accountIndex: 'number',
      mint: 'string',
      owner: 'string',
      programId: 'string',
      uiTokenAmount: 'object',
    });
    expectShape(tx.meta.postTokenBalances[0].uiTokenAmount, {
      amount: 'string',
      decimals: 'number',
      uiAmount: ['number', 'null'],
      uiAmountString: 'string',
    });
    expectShape(tx.transaction, { signatures: 'array', message: 'object' });
    expectShape(tx.transaction.message, {
      accountKeys: 'array',
      header: 'object',
      recentBlockhash: 'string',
      instructions: 'array',
      addressTableLookups: 'array',
    });
    expectShape(tx.transaction.message.header, {
      numRequiredSignatures: 'number',
      numReadonlySignedAccounts: 'number',
      numReadonlyUnsignedAccounts: 'number',
    });
    expectShape(tx.transaction.message.instructions[0], { programIdIndex: 'number', accounts: 'array', data: 'string' });
    // jsonParsed: parsed instructions and account keys with signer/writable/source
    const parsed = (
      await rawCall(w.standIn.url, 'getTransaction', [
        sig,
        { commitment: 'confirmed', encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 },
      ])
    ).result;
    expectShape(parsed.transaction.message.accountKeys[0], { pubkey: 'string', signer: 'boolean', writable: 'boolean', source: 'string' });
    expect(parsed.transaction.message.instructions[0]).toMatchObject({
      program: 'spl-token',
      programId: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
      parsed: {
        type: 'transferChecked',
        info: { source: senderAta, mint: w.usdc, tokenAmount: { amount: '1500000', decimals: 6, uiAmountString: '1.5' } },
      },
    });
    // base64 encoding: [data, "base64"]
    const b64 = (
      await rawCall(w.standIn.url, 'getTransaction', [
        sig,
        { commitment: 'confirmed', encoding: 'base64', maxSupportedTransactionVersion: 0 },
      ])
    ).result;
    expect(b64.transaction[1]).toBe('base64');
  });

  it('getBlock in each transactionDetails mode', async () => {
    // solana.com/docs/rpc/http/getblock
    const full = (await rawCall(w.standIn.url, 'getBlock', [landed, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }]))
      .result;
    expectShape(full, {
      blockhash: 'string',
      previousBlockhash: 'string',
      parentSlot: 'number',
      blockHeight: 'number',
      blockTime: 'number',
      transactions: 'array',
      rewards: 'array',
    });
    expectShape(full.transactions[0], { transaction: 'object', meta: 'object', version: 'number' });
    const sigs = (
      await rawCall(w.standIn.url, 'getBlock', [landed, { commitment: 'confirmed', transactionDetails: 'signatures', rewards: false }])
    ).result;
    expect(sigs.signatures).toEqual([sig]);
    expect('rewards' in sigs || 'transactions' in sigs).toBe(false);
    const none = (await rawCall(w.standIn.url, 'getBlock', [landed, { commitment: 'confirmed', transactionDetails: 'none' }])).result;
    expect('transactions' in none || 'signatures' in none).toBe(false);
    const parent = (await rawCall(w.standIn.url, 'getBlock', [full.parentSlot, { commitment: 'confirmed', transactionDetails: 'none' }]))
      .result;
    expect(parent.blockhash).toBe(full.previousBlockhash);
    // solana.com/docs/rpc/http/getblocks, getblockswithlimit
    const blocks = (await rawCall(w.standIn.url, 'getBlocks', [landed - 1, landed + 1, { commitment: 'confirmed' }])).result;
    expect(blocks).toEqual([landed - 1, landed, landed + 1]);
    expect((await rawCall(w.standIn.url, 'getBlocksWithLimit', [landed, 2, { commitment: 'confirmed' }])).result).toEqual([
      landed,
      landed + 1,
    ]);
  });

  it('accounts: getAccountInfo, getMultipleAccounts (base64, jsonParsed), getTokenAccountsByOwner, rent', async () => {
    // solana.com/docs/rpc/http/getaccountinfo (rentEpoch is u64::MAX for rent-exempt accounts, exactly)
    const res = await fetch(w.standIn.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'getAccountInfo',
        params: [senderAta, { encoding: 'base64', commitment: 'confirmed' }],
      }),
    });
    const text = await res.text();
    expect(text).toContain('"rentEpoch":18446744073709551615');
    const info = JSON.parse(text).result.value;
    expectShape(info, { data: 'array', executable: 'boolean', lamports: 'number', owner: 'string', rentEpoch: 'number', space: 'number' });
    expect(info.data[1]).toBe('base64');
    expect(info.space).toBe(165);
    // solana.com/docs/rpc/http/getmultipleaccounts
    const multi = (
      await rawCall(w.standIn.url, 'getMultipleAccounts', [
        [senderAta, w.usdc, '11111111111111111111111111111112'],
        { encoding: 'jsonParsed', commitment: 'confirmed' },
      ])
    ).result;
    expect(multi.value[2]).toBeNull();
    expectShape(multi.value[0].data, { program: 'string', parsed: 'object', space: 'number' });
    expect(multi.value[0].data.parsed.type).toBe('account');
    expectShape(multi.value[0].data.parsed.info, {
      isNative: 'boolean',
      mint: 'string',
      owner: 'string',
      state: 'string',
      tokenAmount: 'object',
    });
    expect(multi.value[0].data.parsed.info.tokenAmount).toEqual({ amount: '3500000', decimals: 6, uiAmount: 3.5, uiAmountString: '3.5' });
    // The stand-in's faucet is the test mints' freeze authority, as Circle and Tether are theirs (AML screening).
    expect(multi.value[1].data.parsed).toMatchObject({
      type: 'mint',
      info: { decimals: 6, isInitialized: true, freezeAuthority: w.standIn.faucet.address },
    });
    // solana.com/docs/rpc/http/gettokenaccountsbyowner
    const owner = multi.value[0].data.parsed.info.owner;
    const byProgram = (
      await rawCall(w.standIn.url, 'getTokenAccountsByOwner', [
        owner,
        { programId: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' },
        { encoding: 'base64', commitment: 'confirmed' },
      ])
    ).result;
    expectShape(byProgram.value[0], { pubkey: 'string', account: 'object' });
    expect(byProgram.value.map((v: { pubkey: string }) => v.pubkey)).toEqual([senderAta]);
    // solana.com/docs/rpc/http/getminimumbalanceforrentexemption
    expect((await rawCall(w.standIn.url, 'getMinimumBalanceForRentExemption', [165])).result).toBe(2_039_280);
  });

  it('simulateTransaction', async () => {
    // solana.com/docs/rpc/http/simulatetransaction
    const payer = await fundedSigner(w);
    w.standIn.control.produceSlots();
    const built = await build(w.rpc, payer, [getTransferSolInstruction({ source: payer, destination: payer.address, amount: 1n })]);
    const sim = (
      await rawCall(w.standIn.url, 'simulateTransaction', [
        built.wire,
        { encoding: 'base64', replaceRecentBlockhash: true, innerInstructions: true },
      ])
    ).result;
    expectShape(sim.context, context);
    expectShape(sim.value, {
      err: 'null',
      logs: 'array',
      accounts: 'null',
      unitsConsumed: 'number',
      returnData: 'null',
      innerInstructions: 'array',
      replacementBlockhash: 'object',
      fee: 'number',
      preBalances: 'array',
      postBalances: 'array',
    });
    expectShape(sim.value.replacementBlockhash, { blockhash: 'string', lastValidBlockHeight: 'number' });
    expect(sim.value.fee).toBe(5000);
    const both = await rawCall(w.standIn.url, 'simulateTransaction', [
      built.wire,
      { encoding: 'base64', replaceRecentBlockhash: true, sigVerify: true },
    ]);
    expect(both.error.code).toBe(-32602);
  });
});

describe('documented errors', () => {
  it('preflight failure: -32002 with the simulation result, as agave formats it', async () => {
    const poor = await fundedSigner(w, 1_000_000_000n);
    w.standIn.control.produceSlots();
    const built = await build(w.rpc, poor, [
      getTransferSolInstruction({ source: poor, destination: (await generateKeyPairSigner()).address, amount: 5_000_000_000n }),
    ]);
    const res = await rawCall(w.standIn.url, 'sendTransaction', [built.wire, { encoding: 'base64' }]);
    expect(res.error.code).toBe(-32002);
    expect(res.error.message).toBe('Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1');
    expect(res.error.data.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(res.error.data.logs).toContain('Program 11111111111111111111111111111111 failed: custom program error: 0x1');
    expectShape(res.error.data, { err: 'object', logs: 'array', accounts: 'null', unitsConsumed: 'number' });
    // Sent again without preflight, it lands as a failed transaction and pays its fee.
    await rawCall(w.standIn.url, 'sendTransaction', [built.wire, { encoding: 'base64', skipPreflight: true }]);
    w.standIn.control.produceSlots(2);
    const st = (await rawCall(w.standIn.url, 'getSignatureStatuses', [[built.signature]])).result.value[0];
    expect(st.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect((await rawCall(w.standIn.url, 'getBalance', [poor.address, { commitment: 'confirmed' }])).result.value).toBe(
      1_000_000_000 - 5000,
    );
    // A duplicate: "This transaction has already been processed".
    const dup = await rawCall(w.standIn.url, 'sendTransaction', [built.wire, { encoding: 'base64' }]);
    expect(dup.error.message).toBe('Transaction simulation failed: This transaction has already been processed');
    expect(dup.error.data.err).toBe('AlreadyProcessed');
  });

  it('bad signature, v0 without maxSupportedTransactionVersion, skipped and unavailable slots', async () => {
    const payer = await fundedSigner(w);
    w.standIn.control.produceSlots();
    const built = await build(w.rpc, payer, [getTransferSolInstruction({ source: payer, destination: payer.address, amount: 1n })]);
    const bytes = Buffer.from(built.wire, 'base64');
    bytes[5] = (bytes[5] ?? 0) ^ 0xff; // inside the signature
    const bad = await rawCall(w.standIn.url, 'sendTransaction', [bytes.toString('base64'), { encoding: 'base64' }]);
    expect(bad.error).toMatchObject({ code: -32003, message: 'Transaction signature verification failure' });

    const v0 = await rawCall(w.standIn.url, 'getTransaction', [sig, { commitment: 'confirmed' }]);
    expect(v0.error.code).toBe(-32015);
    expect(v0.error.message).toContain('"maxSupportedTransactionVersion": 0');

    const status = w.standIn.control.status();
    w.standIn.control.skipSlots(2);
    w.standIn.control.produceSlots(3);
    // agave's getBlock: a skipped slot above the finalized one is no ancestor of the confirmed
    // bank, answered -32004 like a slot not reached yet; only once finalized is it -32007.
    const unfinalized = await rawCall(w.standIn.url, 'getBlock', [Number(status.nextSlot), { commitment: 'confirmed' }]);
    expect(unfinalized.error).toEqual({ code: -32004, message: `Block not available for slot ${status.nextSlot}` });
    w.standIn.control.produceSlots(33);
    const skipped = await rawCall(w.standIn.url, 'getBlock', [Number(status.nextSlot), { commitment: 'confirmed' }]);
    expect(skipped.error).toEqual({
      code: -32007,
      message: `Slot ${status.nextSlot} was skipped, or missing due to ledger jump to recent snapshot`,
    });
    const future = await rawCall(w.standIn.url, 'getBlock', [Number(status.nextSlot) + 1000, { commitment: 'confirmed' }]);
    expect(future.error).toEqual({ code: -32004, message: `Block not available for slot ${Number(status.nextSlot) + 1000}` });
    const processed = await rawCall(w.standIn.url, 'getBlock', [landed, { commitment: 'processed' }]);
    expect(processed.error.code).toBe(-32602);
  });

  it('a transaction larger than a packet (1,232 bytes): -32602 before anything runs, with or without preflight', async () => {
    const payer = await fundedSigner(w);
    w.standIn.control.produceSlots();
    // 30 transfers to distinct new accounts: about 2,000 bytes, which kit signs but no node takes.
    const recipients = await Promise.all(Array.from({ length: 30 }, () => generateKeyPairSigner()));
    const built = await build(
      w.rpc,
      payer,
      recipients.map((r) => getTransferSolInstruction({ source: payer, destination: r.address, amount: 1_000_000n })),
    );
    const size = Buffer.from(built.wire, 'base64').length;
    expect(size).toBeGreaterThan(1_232);
    for (const cfg of [{ encoding: 'base64' }, { encoding: 'base64', skipPreflight: true }]) {
      const sent = await rawCall(w.standIn.url, 'sendTransaction', [built.wire, cfg]);
      expect(sent.error?.code, JSON.stringify(sent)).toBe(-32602);
      expect(sent.error.message).toContain('too large');
    }
    const simulated = await rawCall(w.standIn.url, 'simulateTransaction', [built.wire, { encoding: 'base64' }]);
    expect(simulated.error?.code, JSON.stringify(simulated)).toBe(-32602);
    w.standIn.control.produceSlots();
    expect((await w.rpc.getSignatureStatuses([built.signature], { searchTransactionHistory: true }).send()).value[0]).toBeNull();
    expect((await w.rpc.getBalance(recipients[0]!.address, { commitment: 'processed' }).send()).value).toBe(0n);
  });

  it('JSON-RPC envelope: batches, unknown methods, parse errors, minContextSlot', async () => {
    const res = await fetch(w.standIn.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'getSlot', params: [{ commitment: 'processed' }] },
        { jsonrpc: '2.0', id: 'b', method: 'noSuchMethod' },
        { jsonrpc: '2.0', id: 'c', method: 'getHealth' },
      ]),
    });
    const batch = (await res.json()) as { id: string; result?: unknown; error?: { code: number } }[];
    expect(batch.map((r) => r.id)).toEqual(['a', 'b', 'c']);
    expect(batch[1]!.error!.code).toBe(-32601);
    expect(batch[2]!.result).toBe('ok');
    const parse = await fetch(w.standIn.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":' });
    expect(((await parse.json()) as { error: { code: number } }).error.code).toBe(-32700);
    const min = await rawCall(w.standIn.url, 'getBalance', [senderAta, { commitment: 'finalized', minContextSlot: 1_000_000 }]);
    expect(min.error.code).toBe(-32016);
    expect(kind(min.error.data.contextSlot)).toBe('number');
  });

  it('requestAirdrop sends a real faucet transfer', async () => {
    // solana.com/docs/rpc/http/requestairdrop
    const to = await generateKeyPairSigner();
    const air = await rawCall(w.standIn.url, 'requestAirdrop', [to.address, 2_000_000_000]);
    expect(kind(air.result)).toBe('string');
    w.standIn.control.produceSlots(2);
    const tx = (
      await rawCall(w.standIn.url, 'getTransaction', [air.result, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }])
    ).result;
    expect(tx.transaction.message.accountKeys[0]).toBe(w.standIn.faucet.address);
    expect((await rawCall(w.standIn.url, 'getBalance', [to.address, { commitment: 'confirmed' }])).result.value).toBe(2_000_000_000);
  });
});
