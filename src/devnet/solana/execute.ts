// Running a transaction: the checks a validator makes before execution (signatures, blockhash
// age, the status cache), execution by litesvm, and the metadata a node records for it (fee,
// balances, token balances, logs, inner instructions, compute units).
import { FailedTransactionMetadata, type SimulatedTransactionInfo, type TransactionMetadata } from 'litesvm/dist/internal.js';
import { txErrorJson, type TxErrorJson } from './errors.js';
import type { AccountState, Ledger, TokenBalanceRecord, TxMeta, TxRecord } from './ledger.js';
import { parseMint, parseTokenAccount } from './token.js';
import {
  accountKeys,
  addressFromBytes,
  computeBudget,
  resolveLookups,
  signaturesValid,
  toBase58,
  toBase64,
  transactionFee,
  writableKeys,
  type DecodedTransaction,
  type LoadedAddresses,
} from './wire.js';

const NONCE_ADVANCE = 4; // SystemInstruction::AdvanceNonceAccount
const NONCE_ACCOUNT_LEN = 80;

export interface Checks {
  sigVerify: boolean;
  /** false for simulateTransaction with replaceRecentBlockhash */
  checkBlockhash: boolean;
}

/** The checks made before execution; an error here means the transaction never lands. */
export function precheck(ledger: Ledger, tx: DecodedTransaction, checks: Checks): { err: TxErrorJson } | { loaded: LoadedAddresses } {
  if (checks.sigVerify && !signaturesValid(tx)) return { err: 'SignatureFailure' };
  if (checks.checkBlockhash && ledger.blockhashHeight(tx.recentBlockhash) === undefined && !usesDurableNonce(ledger, tx)) {
    return { err: 'BlockhashNotFound' };
  }
  if (ledger.tx(tx.signature)) return { err: 'AlreadyProcessed' };
  const loaded = resolveLookups(tx, (a) => ledger.live(a));
  if (typeof loaded === 'string') return { err: loaded };
  return { loaded };
}

/** A durable-nonce transaction: first instruction advances a nonce account holding this "blockhash". */
function usesDurableNonce(ledger: Ledger, tx: DecodedTransaction): boolean {
  const ix = tx.instructions[0];
  if (!ix || tx.staticAccounts[ix.programIdIndex] !== '11111111111111111111111111111111') return false;
  if (ix.data.length < 4 || new DataView(ix.data.buffer, ix.data.byteOffset).getUint32(0, true) !== NONCE_ADVANCE) return false;
  const nonceAddress = tx.staticAccounts[ix.accounts[0] ?? -1];
  const nonce = nonceAddress ? ledger.live(nonceAddress) : null;
  if (!nonce || nonce.data.length !== NONCE_ACCOUNT_LEN) return false;
  return addressFromBytes(nonce.data.subarray(40, 72)) === tx.recentBlockhash;
}

function run(ledger: Ledger, tx: DecodedTransaction, simulate: true): FailedTransactionMetadata | SimulatedTransactionInfo;
function run(ledger: Ledger, tx: DecodedTransaction, simulate: false): FailedTransactionMetadata | TransactionMetadata;
function run(ledger: Ledger, tx: DecodedTransaction, simulate: boolean) {
  const svm = ledger.svm;
  if (simulate) return tx.version === 'legacy' ? svm.simulateLegacyTransaction(tx.bytes) : svm.simulateVersionedTransaction(tx.bytes);
  return tx.version === 'legacy' ? svm.sendLegacyTransaction(tx.bytes) : svm.sendVersionedTransaction(tx.bytes);
}

function tokenBalances(ledger: Ledger, states: (AccountState | null)[]): TokenBalanceRecord[] {
  const out: TokenBalanceRecord[] = [];
  states.forEach((s, accountIndex) => {
    const t = s ? parseTokenAccount(s.owner, s.data) : null;
    if (!s || !t) return;
    const mintState = ledger.live(t.mint);
    const mint = mintState ? parseMint(mintState.owner, mintState.data) : null;
    out.push({ accountIndex, mint: t.mint, owner: t.owner, programId: s.owner, amount: t.amount, decimals: mint?.decimals ?? 0 });
  });
  return out;
}

function executionMeta(m: TransactionMetadata) {
  const innerInstructions = m
    .innerInstructions()
    .map((list, index) => ({
      index,
      instructions: list.map((inner) => {
        const ix = inner.instruction();
        return {
          programIdIndex: ix.programIdIndex(),
          accounts: [...ix.accounts()],
          data: toBase58(ix.data()),
          stackHeight: inner.stackHeight(),
        };
      }),
    }))
    .filter((i) => i.instructions.length > 0);
  const rd = m.returnData();
  const returnData = rd.data().length > 0 ? { programId: addressFromBytes(rd.programId()), data: toBase64(rd.data()) } : null;
  return { logMessages: m.logs(), innerInstructions, computeUnitsConsumed: m.computeUnitsConsumed(), returnData };
}

/**
 * Executes and, when the runtime charged the fee (lamports left the transaction's accounts),
 * records it as pending for the next block. Returns null for a transaction that never lands.
 */
export function execute(ledger: Ledger, tx: DecodedTransaction, loaded: LoadedAddresses): TxRecord | null {
  const keys = accountKeys(tx, loaded);
  const pre = keys.map((k) => ledger.live(k));
  const preTokenBalances = tokenBalances(ledger, pre);
  const result = run(ledger, tx, false);
  const post = keys.map((k) => ledger.live(k));
  const sum = (xs: (AccountState | null)[]) => xs.reduce((t, a) => t + (a?.lamports ?? 0n), 0n);
  // Lamports only leave a transaction's accounts as its fee: no fee, no landing.
  const fee = sum(pre) - sum(post);
  if (fee <= 0n) return null;
  const writable = writableKeys(tx, loaded);
  for (const w of writable) {
    const i = keys.indexOf(w);
    if (i >= 0) ledger.rememberBeforeWrite(w, pre[i] ?? null);
  }
  const failed = result instanceof FailedTransactionMetadata;
  const meta: TxMeta = {
    err: failed ? txErrorJson(result) : null,
    fee,
    preBalances: pre.map((a) => a?.lamports ?? 0n),
    postBalances: post.map((a) => a?.lamports ?? 0n),
    preTokenBalances,
    postTokenBalances: tokenBalances(ledger, post),
    ...executionMeta(failed ? result.meta() : result),
    loadedAddresses: loaded,
  };
  const record: TxRecord = { signature: tx.signature, raw: tx.bytes, slot: 0n, meta, unitPrice: computeBudget(tx).unitPrice, writable };
  ledger.addPending(record);
  return record;
}

export interface Simulation {
  err: TxErrorJson | null;
  logs: string[];
  unitsConsumed: bigint;
  returnData: { programId: string; data: string } | null;
  innerInstructions: TxMeta['innerInstructions'];
  fee: bigint | null;
  loadedAddresses: LoadedAddresses | null;
  preBalances: bigint[] | null;
  postBalances: bigint[] | null;
  preTokenBalances: TokenBalanceRecord[] | null;
  postTokenBalances: TokenBalanceRecord[] | null;
  /** State after the simulated execution, for the `accounts` option. */
  postAccount(address: string): AccountState | null;
}

/** Runs without committing, against the newest state (the processed bank). */
export function simulate(ledger: Ledger, tx: DecodedTransaction, checks: Checks): Simulation {
  const checked = precheck(ledger, tx, checks);
  const empty = {
    logs: [],
    unitsConsumed: 0n,
    returnData: null,
    innerInstructions: [],
    fee: null,
    loadedAddresses: null,
    preBalances: null,
    postBalances: null,
    preTokenBalances: null,
    postTokenBalances: null,
    postAccount: (a: string) => ledger.live(a),
  };
  if ('err' in checked) return { err: checked.err, ...empty };
  const keys = accountKeys(tx, checked.loaded);
  const pre = keys.map((k) => ledger.live(k));
  const result = run(ledger, tx, true);
  if (result instanceof FailedTransactionMetadata) {
    return {
      ...empty,
      err: txErrorJson(result),
      ...execSim(result.meta()),
      fee: transactionFee(tx),
      loadedAddresses: checked.loaded,
      preBalances: pre.map((a) => a?.lamports ?? 0n),
      preTokenBalances: tokenBalances(ledger, pre),
    };
  }
  const postMap = new Map<string, AccountState | null>();
  for (const aa of result.postAccounts()) {
    const a = aa.account();
    postMap.set(addressFromBytes(aa.address), {
      lamports: a.lamports(),
      data: a.data(),
      owner: addressFromBytes(a.owner()),
      executable: a.executable(),
      rentEpoch: a.rentEpoch(),
    });
  }
  const postAccount = (address: string) => {
    const s = postMap.has(address) ? postMap.get(address)! : ledger.live(address);
    return s && s.lamports > 0n ? s : null;
  };
  const post = keys.map(postAccount);
  return {
    err: null,
    ...execSim(result.meta()),
    fee: transactionFee(tx),
    loadedAddresses: checked.loaded,
    preBalances: pre.map((a) => a?.lamports ?? 0n),
    postBalances: post.map((a) => a?.lamports ?? 0n),
    preTokenBalances: tokenBalances(ledger, pre),
    postTokenBalances: tokenBalances(ledger, post),
    postAccount,
  };
}

function execSim(m: TransactionMetadata) {
  const e = executionMeta(m);
  return { logs: e.logMessages, unitsConsumed: e.computeUnitsConsumed, returnData: e.returnData, innerInstructions: e.innerInstructions };
}
