/**
 * The stand-ins of the chain families that no real node can run for here (DESIGN section 9):
 * a list, which devnet.ts starts after the anvils, in this order, on the ports after
 * theirs. Each entry loads its starter (devnet-<family>.ts) only when a devnet starts. A
 * family's registration (chains/<family>/index.ts) does not name its stand-in: production
 * code never reaches devnet/.
 */
import type { DevnetStandIn } from './types.js';

export const STAND_INS: readonly DevnetStandIn[] = Object.freeze([
  // java-tron's HTTP API over anvil (devnet/tron).
  { slug: 'devnet-tron', start: async (opts) => (await import('./devnet-tron.js')).startDevnetTron(opts) },
  // Solana's JSON-RPC over litesvm (devnet/solana).
  { slug: 'devnet-solana', start: async (opts) => (await import('./devnet-solana.js')).startDevnetSolana(opts) },
]);
