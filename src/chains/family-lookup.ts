/**
 * What shared code asks of the chain families (the list is chains/families.ts): a family by
 * name, the default one, its derivation at an account path, and what configuration needs of
 * them all (their FamilyConfigs, the built-in catalogue, the standard account paths).
 */
import type { FamilyConfig } from '../config/index.js';
import { findIn, type CatalogueChain } from '../config/catalogue.js';
import type { ChainFamily } from './family.js';
import { FAMILIES as LIST } from './families.js';
import type { ChainFamilyName, KeyDerivation } from './types.js';

export type { ChainFamily } from './family.js';

export const FAMILIES: readonly ChainFamily[] = Object.freeze([...LIST]);

/** The names of the families listed (ChainFamilyName is any string: a configuration may name another). */
export type ListedFamilyName = (typeof LIST)[number]['name'];

export const CHAIN_FAMILIES: readonly ListedFamilyName[] = Object.freeze(FAMILIES.map((f) => f.name as ListedFamilyName));

/** What configuration knows of each family, for loadConfig (config/chains.ts). */
export const FAMILY_CONFIGS: readonly FamilyConfig[] = Object.freeze(FAMILIES.map((f) => f.config));

/** Every chain of the built-in catalogue, family by family. */
export const CATALOGUE: readonly CatalogueChain[] = Object.freeze(FAMILIES.flatMap((f) => f.config.catalogue));

/** The catalogue entry of `slug`, whatever its family. */
export function findCatalogueChain(slug: string): CatalogueChain | undefined {
  return findIn(CATALOGUE, slug);
}

/** Each family's standard account path (its derivation's), by name. */
export const STANDARD_ACCOUNT_PATHS = Object.freeze(
  Object.fromEntries(FAMILIES.map((f) => [f.name, f.derivation.accountPath])),
) as Readonly<Record<ListedFamilyName, string>>;

/** Each family's account path as configuration knows it (FamilyConfig), by name: the same paths (families.test.ts). */
export const FAMILY_ACCOUNT_PATHS = Object.freeze(Object.fromEntries(FAMILIES.map((f) => [f.name, f.config.accountPath]))) as Readonly<
  Record<ListedFamilyName, string>
>;

export function isChainFamilyName(name: unknown): name is ChainFamilyName {
  return typeof name === 'string' && FAMILIES.some((f) => f.name === name);
}

export function familyOf(name: ChainFamilyName): ChainFamily {
  const family = FAMILIES.find((f) => f.name === name);
  if (!family) throw new Error(`unknown chain family ${String(name)}`);
  return family;
}

/** The family of a configuration that names none. */
export const DEFAULT_FAMILY: ChainFamily = FAMILIES[0]!;

/**
 * The derivation of a family at `accountPath` (a catalogue entry's derivationPath); the
 * family's standard one when absent or equal to it, else the family's own answer
 * (ChainFamily.derivationAt: a family with a fixed layout refuses another path).
 */
export function derivationFor(name: ChainFamilyName, accountPath?: string): KeyDerivation {
  const family = familyOf(name);
  if (accountPath === undefined || accountPath === family.derivation.accountPath) return family.derivation;
  return family.derivationAt(accountPath);
}
