/**
 * What a devnet chain is, and how a stand-in is started (stand-ins.ts lists them):
 * devnet.ts starts the anvils and every listed stand-in; a stand-in's starter imports this
 * file, never devnet.ts itself.
 */
import type { ChainConfig } from '../config/index.js';
import type { Logger } from '../lib/logger.js';

export interface DevnetChain {
  config: ChainConfig;
  faucet: { address: string; privateKey: string };
  /** Gives a demo master native coin once (stand-ins; anvil chains are funded with viem in seed.ts). */
  fundNative?(address: string): Promise<void>;
}

/** A chain family's local chain for the embedded default (src/devnet/<family>), listed in stand-ins.ts. */
export interface DevnetStandIn {
  /** The chain's slug (`devnet-…`), for logs. */
  readonly slug: string;
  /** Loads the stand-in's code (only when a devnet starts) and starts it. */
  start(opts: { dir?: string; port: number; logger: Logger }): Promise<{ chain: DevnetChain; stop(): Promise<void> }>;
}
