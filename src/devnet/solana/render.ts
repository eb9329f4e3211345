// Transactions as getTransaction and getBlock render them: the encodings (json, jsonParsed,
// base64, base58), the metadata, and the maxSupportedTransactionVersion rule.
import { invalidParams, RPC, RpcError } from './errors.js';
import type { TxRecord } from './ledger.js';
import { renderTokenBalances, type Config } from './rpc-common.js';
import { parseInstruction } from './parsed.js';
import { accountKeys, decodeTransactionBytes, fromBase58, toBase58, toBase64, writableKeys, type DecodedTransaction } from './wire.js';

export type TxEncoding = 'json' | 'jsonParsed' | 'base64' | 'base58';

export function txEncodingOf(cfg: Config): TxEncoding {
  const e = cfg.encoding ?? 'json';
  if (e === 'json' || e === 'jsonParsed' || e === 'base64' || e === 'base58') return e;
  throw invalidParams(
    `Invalid params: unknown variant \`${String(e)}\`, expected one of \`binary\`, \`base64\`, \`base58\`, \`json\`, \`jsonParsed\``,
  );
}

/** undefined: the client accepts legacy transactions only. */
export function maxVersionOf(cfg: Config): number | undefined {
  const v = cfg.maxSupportedTransactionVersion;
  if (v === undefined || v === null) return undefined;
  if (v !== 0 && v !== 0n) throw invalidParams(`Invalid params: unsupported maxSupportedTransactionVersion ${String(v)}`);
  return 0;
}

const decodedCache = new WeakMap<TxRecord, DecodedTransaction>();
export function decoded(tx: TxRecord): DecodedTransaction {
  let d = decodedCache.get(tx);
  if (!d) {
    d = decodeTransactionBytes(tx.raw);
    decodedCache.set(tx, d);
  }
  return d;
}

/** The version check a node makes before returning a v0 transaction. */
export function checkVersion(tx: TxRecord, maxVersion: number | undefined): void {
  const version = decoded(tx).version;
  if (version !== 'legacy' && maxVersion === undefined) {
    throw new RpcError(
      RPC.UNSUPPORTED_TRANSACTION_VERSION,
      `Transaction version (${version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${version}`,
    );
  }
}

function parsedAccountKeys(d: DecodedTransaction, tx: TxRecord) {
  const keys = accountKeys(d, tx.meta.loadedAddresses);
  const writable = new Set(writableKeys(d, tx.meta.loadedAddresses));
  return keys.map((pubkey, i) => ({
    pubkey,
    signer: i < d.header.numRequiredSignatures,
    source: i < d.staticAccounts.length ? 'transaction' : 'lookupTable',
    writable: writable.has(pubkey),
  }));
}

/** Parsed where the stand-in knows the program, else the partially decoded form. */
function jsonParsedInstruction(keys: string[], programIdIndex: number, accounts: number[], data: Uint8Array, stackHeight: number | null) {
  const programId = keys[programIdIndex] ?? '';
  const addresses = accounts.map((i) => keys[i] ?? '');
  return parseInstruction(programId, addresses, data, stackHeight) ?? { accounts: addresses, data: toBase58(data), programId, stackHeight };
}

function renderTransaction(tx: TxRecord, encoding: TxEncoding) {
  const d = decoded(tx);
  if (encoding === 'base64') return [toBase64(tx.raw), 'base64'];
  if (encoding === 'base58') return [toBase58(tx.raw), 'base58'];
  const keys = accountKeys(d, tx.meta.loadedAddresses);
  const message: Record<string, unknown> = {
    accountKeys: encoding === 'jsonParsed' ? parsedAccountKeys(d, tx) : d.staticAccounts,
    header: d.header,
    recentBlockhash: d.recentBlockhash,
    instructions: d.instructions.map((ix) =>
      encoding === 'jsonParsed'
        ? jsonParsedInstruction(keys, ix.programIdIndex, ix.accounts, ix.data, null)
        : { accounts: ix.accounts, data: toBase58(ix.data), programIdIndex: ix.programIdIndex, stackHeight: null },
    ),
  };
  if (d.version === 0) message.addressTableLookups = d.lookups;
  return { message, signatures: d.signatures };
}

function renderMeta(tx: TxRecord, encoding: TxEncoding, maxVersion: number | undefined) {
  const m = tx.meta;
  const keys = accountKeys(decoded(tx), m.loadedAddresses);
  const meta: Record<string, unknown> = {
    computeUnitsConsumed: m.computeUnitsConsumed,
    err: m.err,
    fee: m.fee,
    innerInstructions: m.innerInstructions.map((group) => ({
      index: group.index,
      instructions: group.instructions.map((ix) =>
        encoding === 'jsonParsed' ? jsonParsedInstruction(keys, ix.programIdIndex, ix.accounts, fromBase58(ix.data), ix.stackHeight) : ix,
      ),
    })),
    logMessages: m.logMessages,
    postBalances: m.postBalances,
    postTokenBalances: renderTokenBalances(m.postTokenBalances),
    preBalances: m.preBalances,
    preTokenBalances: renderTokenBalances(m.preTokenBalances),
    rewards: [],
    status: m.err === null ? { Ok: null } : { Err: m.err },
  };
  if (maxVersion !== undefined) meta.loadedAddresses = m.loadedAddresses;
  if (m.returnData) meta.returnData = { programId: m.returnData.programId, data: [m.returnData.data, 'base64'] };
  return meta;
}

/** One entry of getBlock's `transactions`, or getTransaction's result without slot/blockTime. */
export function renderTxWithMeta(tx: TxRecord, encoding: TxEncoding, maxVersion: number | undefined, details: 'full' | 'accounts') {
  checkVersion(tx, maxVersion);
  const d = decoded(tx);
  const out: Record<string, unknown> =
    details === 'full'
      ? { meta: renderMeta(tx, encoding, maxVersion), transaction: renderTransaction(tx, encoding) }
      : {
          meta: {
            err: tx.meta.err,
            fee: tx.meta.fee,
            postBalances: tx.meta.postBalances,
            postTokenBalances: renderTokenBalances(tx.meta.postTokenBalances),
            preBalances: tx.meta.preBalances,
            preTokenBalances: renderTokenBalances(tx.meta.preTokenBalances),
            status: tx.meta.err === null ? { Ok: null } : { Err: tx.meta.err },
          },
          transaction: { accountKeys: parsedAccountKeys(d, tx), signatures: d.signatures },
        };
  if (maxVersion !== undefined) out.version = d.version;
  return out;
}
