import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { getAddress } from 'viem';
import type { NetworkName } from '../../src/config/catalogue.js';
import { CATALOGUE, findCatalogueChain } from '../../src/chains/family-lookup.js';
import { EVM_CATALOGUE } from '../../src/chains/evm/catalogue.js';

const NETWORK_NAMES: readonly NetworkName[] = ['mainnet', 'testnet'];
const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

const allNetworks = EVM_CATALOGUE.flatMap((chain) => NETWORK_NAMES.map((network) => ({ chain, network, data: chain.networks[network] })));

const allAssets = allNetworks.flatMap(({ chain, network, data }) => data.assets.map((asset) => ({ chain, network, asset })));

/** Regression guard against a typo in a chain id. */
const EXPECTED_CHAIN_IDS: Record<string, Record<NetworkName, number>> = {
  ethereum: { mainnet: 1, testnet: 11155111 },
  bsc: { mainnet: 56, testnet: 97 },
  polygon: { mainnet: 137, testnet: 80002 },
  base: { mainnet: 8453, testnet: 84532 },
  arbitrum: { mainnet: 42161, testnet: 421614 },
  optimism: { mainnet: 10, testnet: 11155420 },
  avalanche: { mainnet: 43114, testnet: 43113 },
  celo: { mainnet: 42220, testnet: 11142220 },
};

describe('EVM catalogue', () => {
  it('contains exactly the expected chains with the expected chain ids', () => {
    const actual = Object.fromEntries(
      EVM_CATALOGUE.map((chain) => [chain.slug, { mainnet: chain.networks.mainnet.chainId, testnet: chain.networks.testnet.chainId }]),
    );
    expect(actual).toEqual(EXPECTED_CHAIN_IDS);
  });

  it('has unique slugs', () => {
    const slugs = EVM_CATALOGUE.map((chain) => chain.slug);
    expect(new Set(slugs).size).toBe(slugs.length);
  });

  it('has unique chain ids across every network', () => {
    const ids = allNetworks.map(({ data }) => data.chainId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(Number.isSafeInteger(id) && id > 0).toBe(true);
    }
  });

  it('gives every chain exactly a mainnet and a testnet network', () => {
    for (const chain of EVM_CATALOGUE) {
      expect(Object.keys(chain.networks).sort()).toEqual([...NETWORK_NAMES].sort());
    }
  });

  it('stores every address as well-formed, EIP-55 checksummed hex', () => {
    const addresses = [
      ...allAssets.map(({ asset }) => asset.address),
      ...allNetworks.flatMap(({ data }) => (data.multicall3 === null ? [] : [data.multicall3])),
    ];
    expect(addresses.length).toBeGreaterThan(0);
    for (const address of addresses) {
      expect(address).toMatch(HEX_ADDRESS);
      // getAddress throws on malformed input. Requiring equality means the
      // stored string is already in checksummed form (not all-lowercase).
      expect(getAddress(address)).toBe(address);
    }
  });

  it('uses 18 decimals for BSC stablecoins and 6 everywhere else', () => {
    for (const { chain, asset } of allAssets) {
      expect(asset.decimals, `${chain.slug} ${asset.symbol}`).toBe(chain.slug === 'bsc' ? 18 : 6);
    }
  });

  it('lists each stablecoin symbol and address at most once per network', () => {
    for (const { data } of allNetworks) {
      const symbols = data.assets.map((asset) => asset.symbol);
      const addresses = data.assets.map((asset) => asset.address.toLowerCase());
      expect(new Set(symbols).size).toBe(symbols.length);
      expect(new Set(addresses).size).toBe(addresses.length);
    }
  });

  it('lists both USDT and USDC on every mainnet except USDT on Base', () => {
    for (const chain of EVM_CATALOGUE) {
      const symbols = chain.networks.mainnet.assets.map((asset) => asset.symbol).sort();
      expect(symbols, chain.slug).toEqual(chain.slug === 'base' ? ['USDC'] : ['USDC', 'USDT']);
    }
  });

  it('recommends a positive, integral confirmation depth everywhere', () => {
    for (const { chain, network, data } of allNetworks) {
      expect(Number.isInteger(data.confirmations) && data.confirmations >= 1, `${chain.slug} ${network}`).toBe(true);
    }
  });

  it('keeps the shared EVM invariants', () => {
    for (const chain of EVM_CATALOGUE) {
      expect(chain.nativeDecimals).toBe(18);
      expect(chain.isEvmCompatible).toBe(true);
      expect(chain.derivationPath).toBe("m/44'/60'/0'/0");
      expect(chain.tokenStandard).toBe(chain.slug === 'bsc' ? 'BEP20' : 'ERC20');
      expect(chain.logoUrl).toMatch(/^https:\/\//);
      for (const network of NETWORK_NAMES) {
        expect(chain.networks[network].explorerUrl).toMatch(/^https:\/\/[^/]+[^/]$/);
      }
    }
  });

  it('marks the rollups (and Celo since its L2 migration) as L2', () => {
    const l2 = EVM_CATALOGUE.filter((chain) => chain.isL2)
      .map((chain) => chain.slug)
      .sort();
    expect(l2).toEqual(['arbitrum', 'base', 'celo', 'optimism']);
  });

  it('is deeply frozen so shared defaults cannot be mutated', () => {
    const chain = EVM_CATALOGUE[0]!;
    expect(Object.isFrozen(EVM_CATALOGUE)).toBe(true);
    expect(Object.isFrozen(chain.networks.mainnet.assets[0])).toBe(true);
  });

  it('finds chains by exact slug', () => {
    expect(findCatalogueChain('ethereum')?.networks.mainnet.chainId).toBe(1);
    expect(findCatalogueChain('celo')?.networks.testnet.chainId).toBe(11142220);
    expect(findCatalogueChain('solana')?.networks.mainnet.chainId).toBe(101);
    expect(findCatalogueChain('near')).toBeUndefined();
    expect(findCatalogueChain('')).toBeUndefined();
  });

  it('stays pure data: the modules import nothing but each other', () => {
    // The shape (config/) and each family's entries (chains/<family>/catalogue.ts, the EVM's default swap routers).
    const files = [
      'config/catalogue.ts',
      'chains/evm/catalogue.ts',
      'chains/evm/swap-routers.ts',
      'chains/tron/catalogue.ts',
      'chains/solana/catalogue.ts',
    ];
    for (const file of files) {
      const source = readFileSync(new URL(`../../src/${file}`, import.meta.url), 'utf8');
      const imports = [...source.matchAll(/^\s*import\s.*from\s+'([^']+)'/gm)].map((m) => m[1]);
      expect(
        imports.every((i) => ['../../config/catalogue.js', './swap-routers.js'].includes(i!)),
        `${file}: ${imports.join(', ')}`,
      ).toBe(true);
      expect(source).not.toMatch(/\brequire\(/);
    }
  });
});

describe('EVM catalogue: price feeds', () => {
  it('ships USD feeds only for mainnet assets it lists, as checksummed addresses with a 24 h heartbeat', () => {
    let count = 0;
    for (const { chain, network, data } of allNetworks) {
      for (const [symbol, feed] of Object.entries(data.priceFeeds ?? {})) {
        count++;
        expect(network, `${chain.slug} ${symbol}`).toBe('mainnet');
        expect(
          data.assets.some((a) => a.symbol === symbol),
          `${chain.slug} ${symbol}`,
        ).toBe(true);
        expect(getAddress(feed!.address)).toBe(feed!.address);
        expect(feed!.heartbeat).toBe(86_400);
      }
    }
    // USDT and USDC on every mainnet, but Base (no canonical USDT in the catalogue).
    expect(count).toBe(15);
    const addresses = allNetworks.flatMap(({ data }) => Object.values(data.priceFeeds ?? {}).map((f) => f!.address.toLowerCase()));
    expect(new Set(addresses).size).toBe(addresses.length);
  });
});

describe('Tron in the catalogue', () => {
  it('Tron mainnet and Nile: family tron, TRC20, TRX with 6 decimals, T… token addresses with valid checksums', async () => {
    const { tronCodec } = await import('../../src/chains/tron/codec.js');
    const tron = CATALOGUE.find((c) => c.slug === 'tron')!;
    expect(tron).toMatchObject({ family: 'tron', symbol: 'TRX', nativeDecimals: 6, tokenStandard: 'TRC20', isEvmCompatible: false });
    expect(tron.derivationPath).toBe("m/44'/195'/0'/0");
    expect([tron.networks.mainnet.chainId, tron.networks.testnet.chainId]).toEqual([728_126_428, 3_448_148_188]);
    const assets = [...tron.networks.mainnet.assets, ...tron.networks.testnet.assets];
    expect(assets.map((a) => [a.symbol, a.decimals])).toEqual([
      ['USDT', 6],
      ['USDC', 6],
      ['USDT', 6],
    ]);
    for (const a of assets) expect(tronCodec.normalize(a.address), a.address).toBe(a.address);
    // The EVM list stays EVM only.
    expect(EVM_CATALOGUE.some((c) => c.slug === 'tron')).toBe(false);
  });
});

describe('Solana in the catalogue', () => {
  it('Solana mainnet and devnet: family solana, SPL, SOL with 9 decimals, base58 mints of 32 bytes', async () => {
    const { solanaCodec } = await import('../../src/chains/solana/codec.js');
    const solana = CATALOGUE.find((c) => c.slug === 'solana')!;
    expect(solana).toMatchObject({ family: 'solana', symbol: 'SOL', nativeDecimals: 9, tokenStandard: 'SPL', isEvmCompatible: false });
    expect(solana.derivationPath).toBe("m/44'/501'");
    expect([solana.networks.mainnet.chainId, solana.networks.testnet.chainId]).toEqual([101, 103]);
    expect([solana.networks.mainnet.confirmations, solana.networks.testnet.confirmations]).toEqual([32, 32]);
    expect(solana.networks.mainnet.assets.map((a) => [a.symbol, a.address, a.decimals])).toEqual([
      ['USDC', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', 6],
      ['USDT', 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', 6],
    ]);
    // Circle's devnet USDC; Tether publishes no devnet USDT.
    expect(solana.networks.testnet.assets.map((a) => [a.symbol, a.address, a.decimals])).toEqual([
      ['USDC', '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU', 6],
    ]);
    for (const a of [...solana.networks.mainnet.assets, ...solana.networks.testnet.assets])
      expect(solanaCodec.normalize(a.address), a.address).toBe(a.address);
    expect(EVM_CATALOGUE.some((c) => c.slug === 'solana')).toBe(false);
  });
});
