/**
 * The configuration with the chain families in it: config/ names no family (it imports only
 * lib/), so the composition root hands it theirs (chains/family-lookup.ts, FAMILY_CONFIGS). The
 * CLI loads the configuration through here; tests and benchmarks resolve their chains-file
 * entries through here too.
 */
import { loadConfig as loadWith, type AppConfig } from './config/index.js';
import { resolveChain as resolveWith, type ChainConfig, type ChainEntry } from './config/chains.js';
import { FAMILY_CONFIGS } from './chains/family-lookup.js';

/** The configuration of `env` (config/index.ts), with every registered chain family. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  return loadWith(env, FAMILY_CONFIGS);
}

/** A chains-file entry resolved against the catalogue and the families (config/chains.ts). */
export function resolveChain(entry: ChainEntry, source: string): ChainConfig {
  return resolveWith(entry, source, FAMILY_CONFIGS);
}
