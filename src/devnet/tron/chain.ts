// Blocks as java-tron makes them: header raw_data protobuf, block hash = sha256 of it, block
// id = 8-byte big-endian number followed by bytes 8..32 of the hash, txTrieRoot = merkle root
// of sha256(whole Transaction), signed by the stand-in's one witness.
import { secp256k1 } from '@noble/curves/secp256k1';
import type { Hex41 } from './address.js';
import { encodeBlockHeaderRaw, type ContractResult } from './protobuf.js';
import { BLOCK_VERSION } from './params.js';
import { sha256, txBytes, type Tx } from './transactions.js';

export interface TxLog {
  /** 20-byte hex without 0x, as java-tron stores TVM log addresses. */
  address: string;
  topics: string[];
  data: string;
}

/** TransactionInfo fields the stand-in fills (Tron.proto), block fields added when sealed. */
export interface TxInfo {
  id: string;
  fee: number;
  blockNumber?: number;
  blockTimeStamp?: number;
  contractResult: string[];
  contract_address?: Hex41;
  receipt: {
    energy_usage?: number;
    energy_fee?: number;
    origin_energy_usage?: number;
    energy_usage_total?: number;
    net_usage?: number;
    net_fee?: number;
    result?: ContractResult;
  };
  log: TxLog[];
  result?: 'FAILED';
  /** UTF-8 text; printed as hex (visible=false) like java-tron's bytes field. */
  resMessage?: string;
  withdraw_expire_amount?: number;
  /** CancelAllUnfreezeV2: what each resource got back into its stake (TransactionInfo's map). */
  cancel_unfreezeV2_amount?: Record<'BANDWIDTH' | 'ENERGY' | 'TRON_POWER', number>;
}

export interface StoredTx {
  tx: Tx;
  info: TxInfo;
  /** Transaction.Result.contractRet as stored in the block. */
  contractRet: ContractResult;
}

export interface Block {
  number: number;
  timestamp: number;
  id: string;
  parentId: string;
  txTrieRoot: string;
  witness: Hex41;
  witnessSignature: string;
  txs: StoredTx[];
  /** The anvil block holding the EVM state at the end of this block, and its hash. */
  evmBlock: number;
  evmHash: string;
}

const ZERO_HASH = '00'.repeat(32);

/** MerkleTree.createTree: pairs hashed left to right, an odd one carried up unchanged. */
export function merkleRoot(leaves: Buffer[]): string {
  if (leaves.length === 0) return ZERO_HASH;
  let level = leaves;
  while (level.length > 1) {
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const right = level[i + 1];
      next.push(right ? sha256(Buffer.concat([level[i] as Buffer, right])) : (level[i] as Buffer));
    }
    level = next;
  }
  return (level[0] as Buffer).toString('hex');
}

export function makeBlock(opts: {
  number: number;
  timestamp: number;
  parentId: string;
  txs: StoredTx[];
  witnessKey: string;
  witness: Hex41;
  evmBlock: number;
  evmHash: string;
}): Block {
  const txTrieRoot = merkleRoot(opts.txs.map((s) => sha256(txBytes(s.tx, s.contractRet))));
  const raw = encodeBlockHeaderRaw({
    timestamp: opts.timestamp,
    txTrieRoot: Buffer.from(txTrieRoot, 'hex'),
    parentHash: Buffer.from(opts.parentId, 'hex'),
    number: opts.number,
    witnessAddress: Buffer.from(opts.witness, 'hex'),
    version: BLOCK_VERSION,
  });
  const hash = sha256(raw);
  const id = opts.number.toString(16).padStart(16, '0') + hash.subarray(8).toString('hex');
  const sig = secp256k1.sign(hash, Buffer.from(opts.witnessKey, 'hex'));
  return {
    number: opts.number,
    timestamp: opts.timestamp,
    id,
    parentId: opts.parentId,
    txTrieRoot,
    witness: opts.witness,
    witnessSignature: sig.toCompactHex() + sig.recovery.toString(16).padStart(2, '0'),
    txs: opts.txs,
    evmBlock: opts.evmBlock,
    evmHash: opts.evmHash,
  };
}

export const GENESIS_PARENT = ZERO_HASH;

/** The ids of blocks at most 65536 back, keyed like java-tron's RecentBlockStore (2 low bytes of the number). */
export function refBlockOf(blocks: Block[], refBlockBytes: string): Block | undefined {
  if (!/^[0-9a-f]{4}$/.test(refBlockBytes)) return undefined;
  const head = blocks.length - 1;
  const low = Number.parseInt(refBlockBytes, 16);
  const n = head - ((((head - low) % 65536) + 65536) % 65536);
  return n >= 0 && head - n < 65536 ? blocks[n] : undefined;
}
