/**
 * The chain families, a list: each registers itself in its own folder
 * (chains/<family>/index.ts, a ChainFamily: chains/family.ts), and joining the service is
 * one line here. Everything shared asks by name through family-lookup.ts (registry.ts for
 * adapters, codecs and derivations; the composition root for the families' configuration)
 * instead of importing a family folder.
 *
 * The first family is the default of a configuration that names none (blockchain.family
 * absent: the configurations tests and devnets build by hand).
 */
import type { ChainFamily } from './family.js';
import { evmFamily } from './evm/index.js';
import { solanaFamily } from './solana/index.js';
import { tronFamily } from './tron/index.js';

export const FAMILIES = [evmFamily, tronFamily, solanaFamily] as const satisfies readonly ChainFamily[];
