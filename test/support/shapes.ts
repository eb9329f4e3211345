/** The exact key sets of spec resources, for tests that check nothing is missing or extra. */
export const BLOCKCHAIN_KEYS = [
  'createdAt',
  'derivationPath',
  'id',
  'isActive',
  'isEvmCompatible',
  'isL2',
  'logoUrl',
  'name',
  'slug',
  'symbol',
  'tokenStandard',
  'updatedAt',
].sort();

export const ASSET_KEYS = [
  'address',
  'blockchain',
  'createdAt',
  'currency',
  'decimals',
  'id',
  'isActive',
  'isNative',
  'logoUrl',
  'name',
  'network',
  'standard',
  'symbol',
  'updatedAt',
].sort();
