// The stand-in's own control API: JSON-RPC methods named `standin_*`, a prefix no Solana node
// uses, on the same endpoint. They drive what a real cluster does by itself (slots, forks,
// time) and what a devnet faucet does (SOL and test tokens).
import type { StandInChain } from './chain.js';
import { invalidParams } from './errors.js';
import { addressParam, type Method } from './rpc-common.js';

function amountParam(v: unknown, what: string): bigint {
  if (typeof v === 'bigint' && v > 0n) return v;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return BigInt(v);
  if (typeof v === 'string' && /^[1-9]\d*$/.test(v)) return BigInt(v);
  throw invalidParams(`Invalid params: ${what} must be a positive integer (number or decimal string)`);
}

function countParam(v: unknown, fallback: number, max: number): number {
  if (v === undefined || v === null) return fallback;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max) return v;
  throw invalidParams(`Invalid params: expected an integer count 0..${max}`);
}

export function status(chain: StandInChain) {
  const l = chain.ledger;
  return {
    slot: l.tip.slot,
    blockHeight: l.tip.blockHeight,
    confirmedSlot: l.blockAt('confirmed').slot,
    finalizedSlot: l.blockAt('finalized').slot,
    nextSlot: l.nextSlot,
    pendingTransactions: l.pending.length,
    paused: chain.paused,
  };
}

export function controlMethods(chain: StandInChain): Record<string, Method> {
  return {
    standin_status: () => status(chain),
    /** SOL from the faucet (the same as requestAirdrop, without a cap). */
    standin_fund: (p) => chain.faucet.airdrop(addressParam(p[0]), amountParam(p[1], 'lamports')),
    /** A mint whose authority is the faucet; the address is fixed per symbol. */
    standin_createMint: async (p) => {
      const cfg = (p[0] ?? {}) as { symbol?: unknown; decimals?: unknown };
      if (typeof cfg.symbol !== 'string' || !/^[A-Za-z0-9]{1,16}$/.test(cfg.symbol)) throw invalidParams('Invalid params: symbol');
      const decimals = countParam(cfg.decimals, 6, 18);
      return chain.faucet.createMint(cfg.symbol, decimals);
    },
    /** Mints to the owner's associated token account, creating it. */
    standin_mintTo: (p) => chain.faucet.mintTo(addressParam(p[0]), addressParam(p[1]), amountParam(p[2], 'amount')),
    /** Freezes the owner's token account of a mint, as the mint's freeze authority (an issuer blocking the address). */
    standin_freezeAccount: (p) => chain.faucet.setFrozen(addressParam(p[0]), addressParam(p[1]), true),
    /** Thaws it again. */
    standin_thawAccount: (p) => chain.faucet.setFrozen(addressParam(p[0]), addressParam(p[1]), false),
    /** Produces n blocks at once (default 1): advance time, confirm, finalize, expire blockhashes. */
    standin_produceSlots: (p) => {
      chain.produceSlots(countParam(p[0], 1, 10_000));
      return status(chain);
    },
    /** Leaves n slot numbers without a block, as skipped leader slots. */
    standin_skipSlots: (p) => {
      chain.skipSlots(countParam(p[0], 1, 10_000));
      return status(chain);
    },
    standin_pause: () => {
      chain.pause();
      return status(chain);
    },
    standin_resume: () => {
      chain.resume();
      return status(chain);
    },
    /** Abandons the newest n unfinalized blocks and the pending transactions. */
    standin_dropSlots: (p) => {
      const n = countParam(p[0], 1, 10_000);
      if (n > chain.ledger.droppableBlocks) {
        throw invalidParams(`Invalid params: only ${chain.ledger.droppableBlocks} unfinalized blocks can be dropped`);
      }
      return chain.dropSlots(n);
    },
  };
}
