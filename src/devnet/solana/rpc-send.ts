// Submitting: sendTransaction (with preflight simulation unless skipped), simulateTransaction,
// and requestAirdrop (a real transfer from the faucet, as the devnet faucet makes).
import { invalidParams, RPC, RpcError, txErrorText } from './errors.js';
import { execute, precheck, simulate, type Simulation } from './execute.js';
import { MAX_PROCESSING_AGE } from './ledger.js';
import {
  addressParam,
  commitmentOf,
  configAt,
  contextSlot,
  encodeAccount,
  encodingOf,
  renderTokenBalances,
  u64,
  withContext,
  type Method,
  type MethodContext,
} from './rpc-common.js';
import { decodeWireTransaction, signaturesValid, type DecodedTransaction } from './wire.js';

/** Sends a decoded transaction as a node would; returns its signature. */
export function submitTransaction(ctx: MethodContext, tx: DecodedTransaction, skipPreflight: boolean): string {
  const ledger = ctx.ledger;
  if (!skipPreflight) {
    if (!signaturesValid(tx)) throw new RpcError(RPC.SIGNATURE_VERIFICATION_FAILURE, 'Transaction signature verification failure');
    const sim = simulate(ledger, tx, { sigVerify: false, checkBlockhash: true });
    if (sim.err !== null) {
      throw new RpcError(RPC.PREFLIGHT_FAILURE, `Transaction simulation failed: ${txErrorText(sim.err)}`, {
        ...simulationValue(sim, { innerInstructions: false }),
        accounts: null,
      });
    }
  }
  // Without preflight a transaction that cannot land (bad signature, unknown or expired
  // blockhash, duplicate, fee payer unable to pay) is accepted here and never seen again.
  const checked = precheck(ledger, tx, { sigVerify: true, checkBlockhash: true });
  if (!('err' in checked)) execute(ledger, tx, checked.loaded);
  return tx.signature;
}

function simulationValue(sim: Simulation, opts: { innerInstructions: boolean }) {
  return {
    err: sim.err,
    fee: sim.fee,
    innerInstructions: opts.innerInstructions ? sim.innerInstructions : null,
    loadedAddresses: sim.loadedAddresses,
    logs: sim.logs,
    postBalances: sim.postBalances,
    postTokenBalances: sim.postTokenBalances ? renderTokenBalances(sim.postTokenBalances) : null,
    preBalances: sim.preBalances,
    preTokenBalances: sim.preTokenBalances ? renderTokenBalances(sim.preTokenBalances) : null,
    replacementBlockhash: null as unknown,
    returnData: sim.returnData ? { data: [sim.returnData.data, 'base64'], programId: sim.returnData.programId } : null,
    unitsConsumed: sim.unitsConsumed,
  };
}

const sendTransaction: Method = (params, ctx) => {
  const cfg = configAt(params, 1);
  const tx = decodeWireTransaction(params[0], cfg.encoding);
  if (cfg.preflightCommitment !== undefined) commitmentOf({ commitment: cfg.preflightCommitment });
  contextSlot(ctx, cfg, 'processed');
  return submitTransaction(ctx, tx, cfg.skipPreflight === true);
};

const simulateTransaction: Method = (params, ctx) => {
  const cfg = configAt(params, 1);
  const tx = decodeWireTransaction(params[0], cfg.encoding);
  const commitment = commitmentOf(cfg);
  const sigVerify = cfg.sigVerify === true;
  const replace = cfg.replaceRecentBlockhash === true;
  if (sigVerify && replace) throw invalidParams('sigVerify may not be used with replaceRecentBlockhash');
  // Simulation runs on the newest state (the processed bank) whatever the commitment asked.
  const slot = contextSlot(ctx, cfg, commitment);
  const sim = simulate(ctx.ledger, tx, { sigVerify, checkBlockhash: !replace });
  const value = simulationValue(sim, { innerInstructions: cfg.innerInstructions === true });
  if (replace) {
    const tip = ctx.ledger.tip;
    value.replacementBlockhash = { blockhash: tip.blockhash, lastValidBlockHeight: tip.blockHeight + MAX_PROCESSING_AGE };
  }
  const accountsCfg = cfg.accounts as { addresses?: unknown; encoding?: unknown } | undefined;
  let accounts: unknown = null;
  if (accountsCfg) {
    if (!Array.isArray(accountsCfg.addresses)) throw invalidParams('Invalid params: accounts.addresses must be an array');
    const encoding = encodingOf({ encoding: accountsCfg.encoding ?? 'base64' });
    if (encoding === 'base58') throw invalidParams('base58 encoding not supported');
    accounts = accountsCfg.addresses.map(addressParam).map((a) => {
      const state = sim.err === null ? sim.postAccount(a) : null;
      return state ? encodeAccount(ctx, state, encoding, {}, 'processed') : null;
    });
  }
  return withContext(slot, { ...value, accounts });
};

export interface Faucet {
  /** Builds, signs and submits a transfer from the faucet; returns its signature. */
  airdrop(to: string, lamports: bigint): Promise<string>;
}

export function requestAirdropMethod(faucet: Faucet): Method {
  return async (params) => {
    const to = addressParam(params[0]);
    const lamports = u64(params[1], 'lamports');
    commitmentOf(configAt(params, 2));
    if (lamports === 0n) throw invalidParams('Invalid params: lamports must be greater than zero');
    return faucet.airdrop(to, lamports);
  };
}

export const sendMethods: Record<string, Method> = { sendTransaction, simulateTransaction };
