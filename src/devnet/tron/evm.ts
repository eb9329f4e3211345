// The stand-in's TVM: an anvil node executing the contracts' own bytecode. Senders are
// impersonated (their Tron signature was checked already), gas is free (base fee 0), and
// energy is the EVM execution gas: the transaction's gas used minus its intrinsic cost.
import type { ContractResult } from './protobuf.js';

export type EvmAddress = `0x${string}`;

export interface EvmLog {
  address: string;
  topics: string[];
  data: string;
}

export interface EvmOutcome {
  result: ContractResult;
  /** Execution gas (energy), intrinsic cost excluded. */
  energy: number;
  /** Return data on success, revert data on REVERT, hex without 0x. */
  output: string;
  logs: EvmLog[];
  error?: string;
}

interface CallFrame {
  gas: string;
  gasUsed: string;
  output?: string;
  error?: string;
  revertReason?: string;
  logs?: { address: string; topics: string[]; data: string }[];
  calls?: CallFrame[];
}

export class EvmError extends Error {}

/**
 * anvil refuses transactions above 2^24 gas (EIP-7825), so one call's energy is capped
 * there: far above any token transfer (~30 k), below java-tron's own caps (100 M for
 * constant calls, fee_limit / energy price for transactions).
 */
export const MAX_TX_GAS = 16_777_216;
export const CONSTANT_CALL_ENERGY = 100_000_000;
const gasFor = (data: string, energyLimit: number) => Math.min(intrinsicGas(data) + energyLimit, MAX_TX_GAS);

export function intrinsicGas(data: string): number {
  const bytes = Buffer.from(data.replace(/^0x/, ''), 'hex');
  let gas = 21_000;
  for (const b of bytes) gas += b === 0 ? 4 : 16;
  return gas;
}

function classify(error: string | undefined): ContractResult {
  if (!error) return 'SUCCESS';
  const e = error.toLowerCase();
  if (e.startsWith('out of gas')) return 'OUT_OF_ENERGY';
  if (e.includes('revert')) return 'REVERT';
  if (e.includes('invalid jump')) return 'BAD_JUMP_DESTINATION';
  if (e.includes('stack underflow')) return 'STACK_TOO_SMALL';
  if (e.includes('stack overflow') || e.includes('stack limit')) return 'STACK_TOO_LARGE';
  if (e.includes('invalid opcode') || e.includes('opcode') || e.includes('invalid fe')) return 'ILLEGAL_OPERATION';
  return 'UNKNOWN';
}

/** Logs of a call tree in execution order (callTracer keeps each frame's own logs). */
function flattenLogs(frame: CallFrame): EvmLog[] {
  if (frame.error) return [];
  const own = (frame.logs ?? []).map((l) => ({
    address: l.address,
    topics: l.topics,
    data: l.data,
    position: (l as { position?: string }).position,
  }));
  const out: EvmLog[] = [];
  const calls = frame.calls ?? [];
  let next = 0;
  // Interleave: a log with position p was emitted after the first p sub-calls.
  for (const l of own) {
    const p = l.position === undefined ? calls.length : Number(l.position);
    while (next < p && next < calls.length) out.push(...flattenLogs(calls[next++] as CallFrame));
    out.push({ address: l.address, topics: l.topics, data: l.data });
  }
  while (next < calls.length) out.push(...flattenLogs(calls[next++] as CallFrame));
  return out;
}

export class Evm {
  private id = 0;
  /** Oldest anvil block whose state anvil can still read (history does not survive a reload). */
  historyFrom = 0;

  constructor(readonly rpcUrl: string) {}

  async rpc<T>(method: string, params: unknown[] = []): Promise<T> {
    const res = await fetch(this.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params }),
    });
    const body = (await res.json()) as { result?: T; error?: { message?: string } };
    if (body.error) throw new EvmError(`${method}: ${body.error.message ?? JSON.stringify(body.error)}`);
    return body.result as T;
  }

  /** Every start: gas costs nothing and any sender may be used (anvil forgets both on reload). */
  async init(): Promise<void> {
    await this.rpc('anvil_autoImpersonateAccount', [true]);
    await this.rpc('anvil_setNextBlockBaseFeePerGas', ['0x0']);
  }

  async head(): Promise<{ number: number; hash: string }> {
    const b = await this.rpc<{ number: string; hash: string }>('eth_getBlockByNumber', ['latest', false]);
    return { number: Number(b.number), hash: b.hash };
  }

  async setBalance(address: EvmAddress, wei: bigint): Promise<void> {
    await this.rpc('anvil_setBalance', [address, `0x${wei.toString(16)}`]);
  }

  async setCode(address: EvmAddress, code: string): Promise<void> {
    await this.rpc('anvil_setCode', [address, code]);
  }

  async mine(): Promise<void> {
    await this.rpc('evm_mine');
  }

  async code(address: EvmAddress): Promise<string> {
    return this.rpc<string>('eth_getCode', [address, 'latest']);
  }

  /** Executes a state-changing call as `from` with `energyLimit` execution gas; mines one anvil block. */
  async execute(
    from: EvmAddress,
    to: EvmAddress | undefined,
    data: string,
    energyLimit: number,
  ): Promise<EvmOutcome & { contractAddress?: string }> {
    const gas = gasFor(data, energyLimit);
    const tx = { from, ...(to ? { to } : {}), data, gas: `0x${gas.toString(16)}`, maxFeePerGas: '0x0', maxPriorityFeePerGas: '0x0' };
    const hash = await this.rpc<string>('eth_sendTransaction', [tx]).catch(async (err: Error) => {
      // A very large block can lift anvil's base fee off zero; put it back and try once more.
      if (!/base fee/i.test(err.message)) throw err;
      await this.rpc('anvil_setNextBlockBaseFeePerGas', ['0x0']);
      await this.mine();
      return this.rpc<string>('eth_sendTransaction', [tx]);
    });
    const receipt = await this.receipt(hash);
    const frame = await this.rpc<CallFrame>('debug_traceTransaction', [hash, { tracer: 'callTracer' }]);
    const energy = Number(receipt.gasUsed) - (gas - Number(frame.gas));
    const result = receipt.status === '0x1' ? 'SUCCESS' : classify(frame.error ?? 'execution reverted');
    return {
      result,
      energy: result === 'OUT_OF_ENERGY' ? Number(frame.gas) : Math.max(0, energy),
      output: (frame.output ?? '0x').replace(/^0x/, ''),
      logs: result === 'SUCCESS' ? receipt.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data })) : [],
      ...(frame.error ? { error: frame.error } : {}),
      ...(receipt.contractAddress ? { contractAddress: receipt.contractAddress } : {}),
    };
  }

  /** anvil answers eth_sendTransaction before its automine has always stored the receipt. */
  private async receipt(hash: string): Promise<{ status: string; gasUsed: string; logs: EvmLog[]; contractAddress: string | null }> {
    for (let i = 0; i < 200; i++) {
      const r = await this.rpc<{ status: string; gasUsed: string; logs: EvmLog[]; contractAddress: string | null } | null>(
        'eth_getTransactionReceipt',
        [hash],
      );
      if (r) return r;
      await new Promise((res) => setTimeout(res, 5));
    }
    throw new EvmError(`anvil did not mine ${hash}`);
  }

  /** Runs a call without keeping its effects, at an anvil block (clamped to the readable history). */
  async call(
    from: EvmAddress,
    to: EvmAddress,
    data: string,
    block: number | 'latest',
    energyLimit = CONSTANT_CALL_ENERGY,
  ): Promise<EvmOutcome> {
    const gas = gasFor(data, energyLimit);
    const tag = block === 'latest' ? 'latest' : `0x${Math.max(block, this.historyFrom).toString(16)}`;
    const frame = await this.rpc<CallFrame>('debug_traceCall', [
      { from, to, data, gas: `0x${gas.toString(16)}`, maxFeePerGas: '0x0', maxPriorityFeePerGas: '0x0' },
      tag,
      { tracer: 'callTracer', tracerConfig: { withLog: true } },
    ]);
    const result = classify(frame.error);
    return {
      result,
      energy: result === 'OUT_OF_ENERGY' ? Number(frame.gas) : Math.max(0, Number(frame.gasUsed) - (gas - Number(frame.gas))),
      output: (frame.output ?? '0x').replace(/^0x/, ''),
      logs: flattenLogs(frame),
      ...(frame.error ? { error: frame.error } : {}),
    };
  }

  async dump(): Promise<string> {
    return this.rpc<string>('anvil_dumpState');
  }

  async load(state: string): Promise<void> {
    await this.rpc('anvil_loadState', [state]);
    this.historyFrom = (await this.head()).number;
  }

  /** Drops anvil blocks down to `number`; fails past a reload (the state is no longer kept). */
  async rollbackTo(number: number): Promise<void> {
    const head = await this.head();
    if (number < this.historyFrom) throw new EvmError(`anvil block ${number} is older than the last restart (${this.historyFrom})`);
    if (head.number > number) await this.rpc('anvil_rollback', [head.number - number]);
    await this.rpc('anvil_setNextBlockBaseFeePerGas', ['0x0']);
  }
}
