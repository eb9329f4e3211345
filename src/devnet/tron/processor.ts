// Wallet.broadcastTransaction and Manager.processTransaction, in java-tron's order:
// expiration against the next slot, signature, TaPoS reference block, expiration against
// the head, duplicate, then bandwidth and the contract itself, all or nothing. An accepted
// transaction is executed at once (java-tron's pending state) and sealed into the next block.
import { ContractValidateError, SYSTEM_CONTRACTS, createsAccount } from './actuators.js';
import { refBlockOf, type Block, type StoredTx, type TxInfo } from './chain.js';
import type { Evm } from './evm.js';
import type { Ledger } from './ledger.js';
import { MAX_EXPIRATION_AHEAD_MS, MAX_RESULT_SIZE_IN_TX, SLOT_MS, TRANSACTION_MAX_BYTE_SIZE, type TronChainParams } from './params.js';
import { BandwidthError, NoOwnerAccountError, consumeBandwidth, slotOf } from './resources.js';
import { signatureError, txBytes, type Tx } from './transactions.js';
import { executeTrigger, validateTrigger, type ContractRecord } from './vm.js';

export type ResponseCode =
  | 'SIGERROR'
  | 'CONTRACT_VALIDATE_ERROR'
  | 'CONTRACT_EXE_ERROR'
  | 'BANDWITH_ERROR'
  | 'DUP_TRANSACTION_ERROR'
  | 'TAPOS_ERROR'
  | 'TOO_BIG_TRANSACTION_ERROR'
  | 'TRANSACTION_EXPIRATION_ERROR'
  | 'OTHER_ERROR';

export type BroadcastResult = { result: true; txid: string } | { result: false; code: ResponseCode; message: string; txid: string };

export interface ChainAccess {
  ledger: Ledger;
  evm: Evm;
  params: TronChainParams;
  contracts: Map<string, ContractRecord>;
  blocks: Block[];
  /** Whether the id is in a block or already pending. */
  knows(txid: string): boolean;
}

/** Bytes billed as bandwidth: the transaction without results, plus 64 per contract. */
export function bandwidthBytes(tx: Tx): number {
  return txBytes(tx).length + MAX_RESULT_SIZE_IN_TX;
}

/** Checks that need no state change; undefined when the transaction may be executed. */
export function precheck(chain: ChainAccess, tx: Tx): BroadcastResult | undefined {
  const fail = (code: ResponseCode, message: string): BroadcastResult => ({ result: false, code, message, txid: tx.txID });
  const head = chain.blocks.at(-1) as Block;
  if (chain.knows(tx.txID)) return fail('DUP_TRANSACTION_ERROR', 'Dup transaction.');
  if (tx.rawData.expiration < head.timestamp + SLOT_MS) return fail('TRANSACTION_EXPIRATION_ERROR', 'Transaction expired');
  const sig = signatureError(tx);
  if (sig) return fail('SIGERROR', `Validate signature error: ${sig}`);
  const ref = refBlockOf(chain.blocks, tx.rawData.ref_block_bytes);
  if (!ref || ref.id.slice(16, 32) !== tx.rawData.ref_block_hash) return fail('TAPOS_ERROR', 'Tapos check error.');
  const size = txBytes(tx).length + 2 * MAX_RESULT_SIZE_IN_TX;
  if (size > TRANSACTION_MAX_BYTE_SIZE) {
    return fail(
      'TOO_BIG_TRANSACTION_ERROR',
      `Too big transaction with result, TxId ${tx.txID}, the size is ${size} bytes, maxTxSize ${TRANSACTION_MAX_BYTE_SIZE}`,
    );
  }
  const exp = tx.rawData.expiration;
  if (exp <= head.timestamp || exp > head.timestamp + MAX_EXPIRATION_AHEAD_MS)
    return fail('TRANSACTION_EXPIRATION_ERROR', 'Transaction expired');
  return undefined;
}

/**
 * Charges and executes an already prechecked transaction. On a refusal the ledger is left
 * exactly as before; a VM failure (REVERT, OUT_OF_ENERGY) is not a refusal: it is stored
 * as FAILED with its fee kept.
 */
export async function execute(chain: ChainAccess, tx: Tx): Promise<{ stored: StoredTx } | { refused: BroadcastResult }> {
  const head = chain.blocks.at(-1) as Block;
  const ctx = { ledger: chain.ledger, evm: chain.evm, params: chain.params, now: slotOf(head.timestamp), headTimestamp: head.timestamp };
  const savepoint = chain.ledger.savepoint();
  const refuse = (code: ResponseCode, message: string) => ({ refused: { result: false as const, code, message, txid: tx.txID } });
  try {
    const bill = consumeBandwidth(
      chain.ledger,
      tx.owner,
      bandwidthBytes(tx),
      createsAccount(ctx, tx.type, tx.value),
      ctx.now,
      head.timestamp,
      chain.params,
    );
    const info: TxInfo = {
      id: tx.txID,
      fee: bill.netFee,
      contractResult: [''],
      receipt: { net_usage: bill.netUsage, net_fee: bill.netFee },
      log: [],
    };
    let contractRet: StoredTx['contractRet'] = 'SUCCESS';
    if (tx.type === 'TriggerSmartContract') {
      const feeLimit = tx.rawData.fee_limit ?? 0;
      const contract = validateTrigger(chain.contracts, tx.value, feeLimit, chain.params);
      contractRet = await executeTrigger(ctx, contract, tx.owner, String(tx.value.data ?? ''), feeLimit, info);
    } else {
      const run = SYSTEM_CONTRACTS[tx.type];
      if (!run) throw new ContractValidateError(`stand-in: ${tx.type} is not modelled`);
      const r = run(ctx, tx.value);
      info.fee += r.fee;
      if (r.withdrawExpireAmount) info.withdraw_expire_amount = r.withdrawExpireAmount;
      if (r.cancelUnfreezeV2Amount) info.cancel_unfreezeV2_amount = r.cancelUnfreezeV2Amount;
    }
    return { stored: { tx, info, contractRet } };
  } catch (err) {
    chain.ledger.rollbackTo(savepoint);
    if (err instanceof ContractValidateError || err instanceof NoOwnerAccountError) {
      return refuse('CONTRACT_VALIDATE_ERROR', `Contract validate error : ${err.message}`);
    }
    if (err instanceof BandwidthError) return refuse('BANDWITH_ERROR', 'Account resource insufficient error.');
    throw err;
  }
}

/** What createtransaction-style builders run: the contract's own validation, nothing kept. */
export function validateOnly(chain: ChainAccess, tx: Tx): void {
  const head = chain.blocks.at(-1) as Block;
  const ctx = { ledger: chain.ledger, params: chain.params, now: slotOf(head.timestamp), headTimestamp: head.timestamp };
  const savepoint = chain.ledger.savepoint();
  try {
    const run = SYSTEM_CONTRACTS[tx.type];
    if (run) run(ctx, tx.value);
  } finally {
    chain.ledger.rollbackTo(savepoint);
  }
}
