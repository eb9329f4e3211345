// The stand-in's own control API, under /standin/ so no client can mistake it for
// java-tron's: a faucet, on-demand blocks, pausing block production, reorganising the
// unsolidified head and moving the clock. Production code never calls it; tests and the
// devnet seeding do (also directly, through the handle's `control`).
import { fromBase58, isHex41, type Hex41 } from './address.js';
import type { Block } from './chain.js';
import { ParamError, intParam, type Handler } from './http.js';
import { StandInError, type TronNode } from './node.js';
import { buildTransaction, signTxID, type ContractValue, type Tx } from './transactions.js';
import { selectorOf } from './vm.js';

export interface StandInToken {
  symbol: string;
  decimals: number;
  /** base58check T... */
  address: string;
  /** 41-prefixed hex */
  hex: string;
}

export interface FundRequest {
  /** TRX in sun. */
  trx?: bigint | number | string;
  /** Token base units by symbol (or by token address). */
  tokens?: Record<string, bigint | number | string>;
}

export interface StandInControl {
  /** Seals pending transactions into `count` new blocks (default 1). */
  produceBlocks(count?: number): Promise<{ number: number; id: string }[]>;
  /** Produces solidifyLag + 1 blocks: pending transactions and everything sealed so far become solidified. */
  solidify(): Promise<void>;
  pause(): void;
  resume(): void;
  producing(): boolean;
  reorg(depth: number, opts?: { keepTransactions?: boolean }): Promise<{ removed: string[]; added: string[] }>;
  advanceTime(ms: number): Promise<void>;
  /** Sends TRX and tokens from the faucet as real transactions; they land in the next block. */
  fund(address: string, req: FundRequest): Promise<string[]>;
  /**
   * A contract call signed by the faucet (a TriggerSmartContract with ABI calldata, selector
   * included), e.g. a token's addBlackList or the sanctions oracle's addToSanctionsList, whose
   * owner the faucet is. Lands in the next block; returns the transaction id.
   */
  faucetCall(contract: string, data: string): Promise<string>;
}

/** Fee limit the faucet's own TRC-20 transfers carry (it always has TRX to burn). */
const FAUCET_FEE_LIMIT = 100_000_000;

export function makeControl(
  node: TronNode,
  faucet: { hex: Hex41; privateKey: string },
  tokens: StandInToken[],
  producer: { pause(): void; resume(): void; producing(): boolean },
): StandInControl {
  const summary = (b: Block) => ({ number: b.number, id: b.id });
  const sendSigned = async (
    type: 'TransferContract' | 'TriggerSmartContract',
    value: ContractValue,
    feeLimit?: number,
  ): Promise<string> => {
    const tx: Tx = buildTransaction(type, value, node.head(), node.now(), feeLimit);
    tx.signatures = [signTxID(tx.txID, faucet.privateKey)];
    const res = await node.broadcast(tx);
    if (!res.result) throw new StandInError(`faucet ${type} refused: ${res.code} ${res.message}`);
    return res.txid;
  };
  return {
    produceBlocks: async (count = 1) => (await node.produceBlocks(count)).map(summary),
    solidify: async () => {
      await node.produceBlocks(node.solidifyLag + 1);
    },
    pause: () => producer.pause(),
    resume: () => producer.resume(),
    producing: () => producer.producing(),
    reorg: async (depth, opts = {}) => {
      const r = await node.reorg(depth, opts.keepTransactions === true);
      return { removed: r.removed.map((b) => b.id), added: r.added.map((b) => b.id) };
    },
    advanceTime: (ms) => node.advanceTime(ms),
    faucetCall: (contract, data) => {
      if (!/^(0x)?([0-9a-fA-F]{2}){4,}$/.test(data)) throw new ParamError('data must be hex calldata (selector and arguments)');
      return sendSigned(
        'TriggerSmartContract',
        { owner_address: faucet.hex, contract_address: toHex(contract), data: data.replace(/^0x/, '').toLowerCase() },
        FAUCET_FEE_LIMIT,
      );
    },
    fund: async (address, req) => {
      const to = toHex(address);
      const txids: string[] = [];
      const trx = BigInt(req.trx ?? 0);
      if (trx < 0n) throw new ParamError('trx must not be negative');
      if (trx > 0n) txids.push(await sendSigned('TransferContract', { owner_address: faucet.hex, to_address: to, amount: Number(trx) }));
      for (const [key, raw] of Object.entries(req.tokens ?? {})) {
        const token = tokens.find((t) => t.symbol === key || t.address === key || t.hex === key.toLowerCase());
        if (!token) throw new ParamError(`unknown token ${key} (have ${tokens.map((t) => t.symbol).join(', ')})`);
        const amount = BigInt(raw);
        if (amount <= 0n) throw new ParamError(`amount of ${key} must be positive`);
        const data = selectorOf('transfer(address,uint256)') + to.slice(2).padStart(64, '0') + amount.toString(16).padStart(64, '0');
        txids.push(
          await sendSigned('TriggerSmartContract', { owner_address: faucet.hex, contract_address: token.hex, data }, FAUCET_FEE_LIMIT),
        );
      }
      return txids;
    },
  };
}

function toHex(address: string): Hex41 {
  if (isHex41(address)) return address.toLowerCase();
  return fromBase58(address);
}

export function controlRoutes(node: TronNode, control: StandInControl, info: () => Record<string, unknown>): [string, Handler][] {
  return [
    ['/standin/info', () => ({ ...info(), head: node.head().number, solidified: node.solidNumber(), producing: control.producing() })],
    [
      '/standin/fund',
      async (r) => {
        const p = r.params;
        if (typeof p.address !== 'string') throw new ParamError('address is required (base58 T... or 41-hex)');
        const tokens = p.tokens === undefined ? undefined : (p.tokens as Record<string, string | number>);
        if (tokens !== undefined && (typeof tokens !== 'object' || tokens === null)) throw new ParamError('tokens must be an object');
        const trx = p.trx === undefined ? undefined : String(p.trx);
        if (trx !== undefined && !/^\d+$/.test(trx)) throw new ParamError('trx must be an integer amount of sun');
        for (const v of Object.values(tokens ?? {}))
          if (!/^\d+$/.test(String(v))) throw new ParamError('token amounts must be integers in base units');
        return { txids: await control.fund(p.address, { ...(trx ? { trx } : {}), ...(tokens ? { tokens } : {}) }) };
      },
    ],
    [
      '/standin/call',
      async (r) => {
        const p = r.params;
        if (typeof p.contract !== 'string') throw new ParamError('contract is required (base58 T... or 41-hex)');
        if (typeof p.data !== 'string') throw new ParamError('data is required (hex calldata)');
        return { txid: await control.faucetCall(p.contract, p.data) };
      },
    ],
    [
      '/standin/mine',
      async (r) => {
        const n = intParam(r.params, 'blocks', 1);
        if (n < 1 || n > 1_000) throw new ParamError('blocks must be between 1 and 1000');
        return { blocks: await control.produceBlocks(n) };
      },
    ],
    ['/standin/pause', () => (control.pause(), { producing: false })],
    ['/standin/resume', () => (control.resume(), { producing: control.producing() })],
    [
      '/standin/reorg',
      async (r) => {
        const depth = intParam(r.params, 'depth');
        if (depth < 1) throw new ParamError('depth must be a positive integer');
        return control.reorg(depth, { keepTransactions: r.params.keepTransactions === true });
      },
    ],
    [
      '/standin/time',
      async (r) => {
        const ms = intParam(r.params, 'advanceMs');
        if (ms < 0) throw new ParamError('advanceMs must not be negative');
        await control.advanceTime(ms);
        return { now: node.now() };
      },
    ],
  ];
}
