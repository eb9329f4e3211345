/**
 * The Solana validator stand-in: Solana's JSON-RPC API over litesvm (the real runtime and SPL
 * programs, in process), with slots, commitments, blockhash expiry, fees, forks and
 * persistence modelled around it. See docs/solana.md. One call starts it:
 *
 *   const sol = await startSolanaStandIn({ port: 0, slotMs: 400, tokens: [{ symbol: 'USDC', decimals: 6 }] });
 *   createSolanaRpc(sol.url) ... ; await sol.stop();
 */
import { StandInChain, type StandInLogger } from './chain.js';
import { controlMethods, status } from './control.js';
import { MAX_PROCESSING_AGE } from './ledger.js';
import { accountMethods } from './rpc-accounts.js';
import { blockMethods } from './rpc-blocks.js';
import { clusterMethods } from './rpc-cluster.js';
import type { Method } from './rpc-common.js';
import { requestAirdropMethod, sendMethods } from './rpc-send.js';
import { startRpcServer } from './server.js';

export { CONFIRMATION_DEPTH, FINALIZATION_DEPTH, MAX_PROCESSING_AGE } from './ledger.js';

export interface SolanaStandInOptions {
  /** Data directory for the chain; omit for a throwaway chain. */
  dir?: string;
  /** 0 = any free port. */
  port?: number;
  /** Milliseconds per slot (default 400); 0 = a slot only when asked. */
  slotMs?: number;
  logger?: StandInLogger;
  /** Test tokens to create (idempotent across restarts); mint addresses are fixed per symbol. */
  tokens?: { symbol: string; decimals: number }[];
}

export interface SolanaStandIn {
  url: string;
  port: number;
  tokens: { symbol: string; decimals: number; mint: string }[];
  /** The faucet, also the mint authority of the test tokens. Devnet play money only. */
  faucet: { address: string; secretKey: string };
  control: {
    fund(address: string, lamports: bigint): Promise<string>;
    createMint(symbol: string, decimals: number): Promise<string>;
    mintTo(mintOrSymbol: string, owner: string, amount: bigint): Promise<{ signature: string; tokenAccount: string }>;
    /** Freezes (true) or thaws the owner's token account of a mint (an issuer's blacklist; the faucet is the freeze authority). */
    setFrozen(mintOrSymbol: string, owner: string, frozen: boolean): Promise<{ signature: string; tokenAccount: string }>;
    produceSlots(n?: number): void;
    skipSlots(n: number): void;
    /** Produces enough blocks that every blockhash handed out so far is expired. */
    expireBlockhashes(): void;
    dropSlots(n: number): { slots: bigint[]; signatures: string[] };
    pause(): void;
    resume(): void;
    status(): ReturnType<typeof status>;
  };
  stop(): Promise<void>;
}

const silent: StandInLogger = { info() {}, warn() {} };

export async function startSolanaStandIn(opts: SolanaStandInOptions = {}): Promise<SolanaStandIn> {
  const logger = opts.logger ?? silent;
  const chain = await StandInChain.open({ dir: opts.dir, slotMs: opts.slotMs ?? 400, logger });
  try {
    const tokens: SolanaStandIn['tokens'] = [];
    let created = false;
    for (const t of opts.tokens ?? []) {
      const r = await chain.faucet.createMint(t.symbol, t.decimals);
      created ||= r.signature !== null;
      tokens.push({ ...t, mint: r.mint });
    }
    if (created) chain.produceSlots(1);
    const methods: Record<string, Method> = {
      ...clusterMethods,
      ...accountMethods,
      ...blockMethods,
      ...sendMethods,
      requestAirdrop: requestAirdropMethod(chain.faucet),
      ...controlMethods(chain),
    };
    const server = await startRpcServer(methods, chain.ctx, opts.port ?? 0, logger);
    logger.info(
      { url: server.url, dir: opts.dir, slotMs: opts.slotMs ?? 400, faucet: chain.faucetKey.address },
      'solana stand-in: started',
    );
    let stopping: Promise<void> | undefined;
    return {
      url: server.url,
      port: server.port,
      tokens,
      faucet: { address: chain.faucetKey.address, secretKey: chain.faucetKey.secretKey },
      control: {
        fund: (address, lamports) => chain.faucet.airdrop(address, lamports),
        createMint: async (symbol, decimals) => (await chain.faucet.createMint(symbol, decimals)).mint,
        mintTo: (mintOrSymbol, owner, amount) =>
          chain.faucet.mintTo(tokens.find((t) => t.symbol === mintOrSymbol)?.mint ?? mintOrSymbol, owner, amount),
        setFrozen: (mintOrSymbol, owner, frozen) =>
          chain.faucet.setFrozen(tokens.find((t) => t.symbol === mintOrSymbol)?.mint ?? mintOrSymbol, owner, frozen),
        produceSlots: (n = 1) => void chain.produceSlots(n),
        skipSlots: (n) => chain.skipSlots(n),
        expireBlockhashes: () => void chain.produceSlots(Number(MAX_PROCESSING_AGE) + 1),
        dropSlots: (n) => chain.dropSlots(n),
        pause: () => chain.pause(),
        resume: () => chain.resume(),
        status: () => status(chain),
      },
      stop: () => {
        stopping ??= (async () => {
          await server.close();
          chain.close();
          logger.info({ dir: opts.dir }, 'solana stand-in: stopped');
        })();
        return stopping;
      },
    };
  } catch (err) {
    chain.close();
    throw err;
  }
}
