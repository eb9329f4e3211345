import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/index.ts';
import { NATIVE_ADDRESS } from '../../src/config/chains.ts';
import { findCatalogueChain } from '../../src/chains/family-lookup.ts';
import { loadConfig } from '../../src/configuration.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'wallet-config-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileCount = 0;
/** Writes a chains file (an object is JSON-encoded, a string is written as is). */
function chainsFile(content: unknown): string {
  const file = path.join(dir, `cfg-${++fileCount}.json`); // a name no assertion can match by accident
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

const RPC = 'https://rpc.example.com/v1';
const MASTER_KEY = randomBytes(32).toString('base64');

/** The ConfigError loadConfig throws for `env` (fails the test when none is thrown). */
function configError(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig: defaults', () => {
  it('with no settings runs the embedded default', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      embeddedDatabase: true,
      devnet: true,
      databaseUrl: null,
      chains: [],
      masterKey: null,
      host: '127.0.0.1',
      port: 8080,
      publicUrl: null,
      dataDir: path.resolve('.data'),
      logLevel: 'info',
      keyExport: { testnet: true, mainnet: false },
      keyImportMainnet: false,
      webhookCompatSignatureHeader: true,
      devnetPortBase: 8545,
      apiLimits: { keyRate: 1000, authFailures: 20, authFailureWindowS: 60, authFailureDelayMs: 1000, authFailureBudget: 100 },
    });
  });

  it('reads every setting it is given', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgresql://wallet:secret@db:5432/wallet',
      MASTER_KEY: `${MASTER_KEY}\n`,
      PORT: '0',
      HOST: '0.0.0.0',
      PUBLIC_URL: 'https://wallet.example.com/',
      DATA_DIR: 'some/dir',
      LOG_LEVEL: 'debug',
      ADDRESS_LIMIT: '500',
      ALLOW_KEY_EXPORT_TESTNET: 'false',
      ALLOW_KEY_EXPORT_MAINNET: 'yes',
      ALLOW_KEY_IMPORT_MAINNET: 'true',
      WEBHOOK_COMPAT_SIGNATURE_HEADER: 'false',
      DEVNET_BLOCK_TIME: '0',
      DEVNET_PORT: '0',
      API_KEY_RATE_LIMIT: '0',
      AUTH_FAILURE_LIMIT: '5',
      AUTH_FAILURE_WINDOW: '300',
      AUTH_FAILURE_DELAY_MS: '0',
      AUTH_FAILURE_BUDGET: '0',
      RPC_BASE_MAINNET: RPC,
    });
    expect(config).toMatchObject({
      embeddedDatabase: false,
      devnet: false,
      databaseUrl: 'postgresql://wallet:secret@db:5432/wallet',
      host: '0.0.0.0',
      port: 0,
      publicUrl: 'https://wallet.example.com',
      dataDir: path.resolve('some/dir'),
      logLevel: 'debug',
      addressLimit: 500,
      keyExport: { testnet: false, mainnet: true },
      keyImportMainnet: true,
      webhookCompatSignatureHeader: false,
      devnetBlockTime: 0,
      devnetPortBase: 0,
      apiLimits: { keyRate: 0, authFailures: 5, authFailureWindowS: 300, authFailureDelayMs: 0, authFailureBudget: 0 },
    });
    expect(config.masterKey).toEqual(Buffer.from(MASTER_KEY, 'base64'));
  });
});

describe('loadConfig: master keys', () => {
  it('reads the key ring and the HSM settings; an HSM needs no MASTER_KEY with DATABASE_URL', () => {
    const previous = [randomBytes(32), randomBytes(32)];
    const local = loadConfig({ MASTER_KEY, MASTER_KEY_PREVIOUS: previous.map((k) => k.toString('base64')).join(', ') });
    expect(local.keys).toMatchObject({ vault: 'local', previous, pkcs11: null, rotateBatchSize: 100, rotatePauseMs: 0 });
    const pinFile = path.join(dir, 'pin');
    writeFileSync(pinFile, '123456\n');
    const hsm = loadConfig({
      DATABASE_URL: 'postgres://wallet@db/wallet',
      RPC_BASE_MAINNET: RPC,
      KEY_VAULT: 'pkcs11',
      PKCS11_MODULE: '/usr/lib/softhsm/libsofthsm2.so',
      PKCS11_TOKEN_LABEL: 'wallet',
      PKCS11_PIN_FILE: pinFile,
      PKCS11_KEY_LABEL_PREVIOUS: 'old-a,old-b',
    });
    expect(hsm.masterKey).toBeNull();
    expect(hsm.keys.pkcs11).toEqual({
      module: '/usr/lib/softhsm/libsofthsm2.so',
      tokenLabel: 'wallet',
      slot: null,
      pin: '123456',
      keyLabel: 'wallet-master-key',
      previousKeyLabels: ['old-a', 'old-b'],
    });
  });
});

describe('loadConfig: devnets', () => {
  it('an external database runs local devnets only when DEVNET=true says so', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://wallet@db/wallet', MASTER_KEY, DEVNET: 'true' });
    expect(config).toMatchObject({ embeddedDatabase: false, devnet: true, chains: [] });
  });
});

describe('loadConfig: WEBHOOK_ALLOW_PRIVATE_TARGETS', () => {
  it('is on by default with the local devnet, off with configured chains, and follows the setting', () => {
    expect(loadConfig({}).webhookAllowPrivateTargets).toBe(true);
    expect(loadConfig({ RPC_BASE_MAINNET: RPC }).webhookAllowPrivateTargets).toBe(false);
    expect(loadConfig({ DATABASE_URL: 'postgres://wallet@db/wallet', MASTER_KEY, RPC_BASE_MAINNET: RPC }).webhookAllowPrivateTargets).toBe(
      false,
    );
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' }).webhookAllowPrivateTargets).toBe(false);
    expect(loadConfig({ RPC_BASE_MAINNET: RPC, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }).webhookAllowPrivateTargets).toBe(true);
    expect(configError({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'sometimes' }).message).toMatch(
      /^Invalid configuration: WEBHOOK_ALLOW_PRIVATE_TARGETS\b/,
    );
  });
});

describe('loadConfig: every bad setting is a ConfigError naming it', () => {
  const cases: [string, NodeJS.ProcessEnv, string][] = [
    ['PORT not a number', { PORT: 'abc' }, 'PORT'],
    ['PORT out of range', { PORT: '70000' }, 'PORT'],
    ['PORT negative', { PORT: '-1' }, 'PORT'],
    ['PORT in exponent form', { PORT: '8e3' }, 'PORT'],
    ['DATABASE_URL of another database', { DATABASE_URL: 'mysql://root@localhost/wallet', MASTER_KEY }, 'DATABASE_URL'],
    ['DATABASE_URL without MASTER_KEY', { DATABASE_URL: 'postgres://wallet@localhost/wallet' }, 'MASTER_KEY'],
    ['MASTER_KEY of 16 bytes', { MASTER_KEY: randomBytes(16).toString('base64') }, 'MASTER_KEY'],
    ['MASTER_KEY of 33 bytes', { MASTER_KEY: randomBytes(33).toString('base64') }, 'MASTER_KEY'],
    ['MASTER_KEY not base64', { MASTER_KEY: 'correct horse battery staple!!' }, 'MASTER_KEY'],
    ['MASTER_KEY as hex', { MASTER_KEY: randomBytes(32).toString('hex') }, 'MASTER_KEY'],
    ['LOG_LEVEL unknown', { LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    ['ADDRESS_LIMIT negative', { ADDRESS_LIMIT: '-1' }, 'ADDRESS_LIMIT'],
    ['ADDRESS_LIMIT fractional', { ADDRESS_LIMIT: '2.5' }, 'ADDRESS_LIMIT'],
    ['ALLOW_KEY_EXPORT_MAINNET not a boolean', { ALLOW_KEY_EXPORT_MAINNET: 'maybe' }, 'ALLOW_KEY_EXPORT_MAINNET'],
    ['ALLOW_KEY_EXPORT_TESTNET not a boolean', { ALLOW_KEY_EXPORT_TESTNET: 'on-weekdays' }, 'ALLOW_KEY_EXPORT_TESTNET'],
    ['ALLOW_KEY_IMPORT_MAINNET not a boolean', { ALLOW_KEY_IMPORT_MAINNET: 'perhaps' }, 'ALLOW_KEY_IMPORT_MAINNET'],
    ['WEBHOOK_COMPAT_SIGNATURE_HEADER not a boolean', { WEBHOOK_COMPAT_SIGNATURE_HEADER: 'both' }, 'WEBHOOK_COMPAT_SIGNATURE_HEADER'],
    ['DEVNET_BLOCK_TIME fractional', { DEVNET_BLOCK_TIME: '1.5' }, 'DEVNET_BLOCK_TIME'],
    ['DEVNET_PORT too high for two chains', { DEVNET_PORT: '65535' }, 'DEVNET_PORT'],
    ['PUBLIC_URL without scheme', { PUBLIC_URL: 'wallet.example.com' }, 'PUBLIC_URL'],
    ['RPC_ variable that is not a URL', { RPC_POLYGON_MAINNET: 'localhost:8545' }, 'RPC_POLYGON_MAINNET'],
    ['RPC_ variable without a host', { RPC_BASE_TESTNET: 'https://' }, 'RPC_BASE_TESTNET'],
    ['an external database with no chains', { DATABASE_URL: 'postgres://wallet@db/wallet', MASTER_KEY }, 'CHAINS_FILE'],
    ['DEVNET not a boolean', { DEVNET: 'maybe' }, 'DEVNET'],
    ['DEVNET together with configured chains', { DEVNET: 'true', RPC_ETHEREUM_MAINNET: 'https://eth.example/rpc' }, 'DEVNET'],
    ['DEVNET=false with nothing configured', { DEVNET: 'false' }, 'CHAINS_FILE'],
    ['KEY_VAULT unknown', { KEY_VAULT: 'kms' }, 'KEY_VAULT'],
    ['MASTER_KEY_PREVIOUS malformed', { MASTER_KEY, MASTER_KEY_PREVIOUS: 'abc' }, 'MASTER_KEY_PREVIOUS'],
    ['MASTER_KEY_PREVIOUS repeating MASTER_KEY', { MASTER_KEY, MASTER_KEY_PREVIOUS: MASTER_KEY }, 'MASTER_KEY_PREVIOUS'],
    ['KEY_VAULT=pkcs11 without a module', { KEY_VAULT: 'pkcs11' }, 'PKCS11_MODULE'],
    ['KEY_VAULT=pkcs11 without a token', { KEY_VAULT: 'pkcs11', PKCS11_MODULE: '/x.so', PKCS11_PIN: '1' }, 'PKCS11_TOKEN_LABEL'],
    ['KEY_VAULT=pkcs11 without a PIN', { KEY_VAULT: 'pkcs11', PKCS11_MODULE: '/x.so', PKCS11_TOKEN_LABEL: 't' }, 'PKCS11_PIN'],
    ['KEY_VAULT=pkcs11 with MASTER_KEY', { KEY_VAULT: 'pkcs11', MASTER_KEY, PKCS11_MODULE: '/x.so' }, 'MASTER_KEY'],
    [
      'PKCS11_PIN_FILE missing',
      { KEY_VAULT: 'pkcs11', PKCS11_MODULE: '/x.so', PKCS11_TOKEN_LABEL: 't', PKCS11_PIN_FILE: '/nonexistent/pin' },
      'PKCS11_PIN_FILE',
    ],
    ['ROTATE_BATCH_SIZE zero', { ROTATE_BATCH_SIZE: '0' }, 'ROTATE_BATCH_SIZE'],
    ['API_KEY_RATE_LIMIT negative', { API_KEY_RATE_LIMIT: '-5' }, 'API_KEY_RATE_LIMIT'],
    ['AUTH_FAILURE_LIMIT not a number', { AUTH_FAILURE_LIMIT: 'lots' }, 'AUTH_FAILURE_LIMIT'],
    ['AUTH_FAILURE_WINDOW of zero seconds', { AUTH_FAILURE_WINDOW: '0' }, 'AUTH_FAILURE_WINDOW'],
    ['AUTH_FAILURE_DELAY_MS above 10 s', { AUTH_FAILURE_DELAY_MS: '60000' }, 'AUTH_FAILURE_DELAY_MS'],
  ];
  for (const [label, env, setting] of cases) {
    it(label, () => {
      const err = configError(env);
      expect(err.message).toMatch(new RegExp(`^Invalid configuration: ${setting}\\b`));
    });
  }

  it('does not echo a malformed RPC URL, which may carry a provider key', () => {
    const err = configError({ RPC_ETHEREUM_MAINNET: 'mainnet.infura.io/v3/SECRETKEY123' });
    expect(err.message).not.toContain('SECRETKEY123');
  });
});

describe('loadConfig: chains file problems name CHAINS_FILE and the field', () => {
  const eth = { blockchain: 'ethereum', network: 'mainnet', rpcUrl: RPC };
  const cases: [string, () => string, RegExp][] = [
    ['missing file', () => path.join(dir, 'does-not-exist.json'), /cannot be read as JSON.*ENOENT/],
    ['not JSON', () => chainsFile('{ chains: [ ethereum ] }'), /cannot be read as JSON/],
    ['no chains key', () => chainsFile({ networks: [] }), /: (chains: Expected required property|networks: Unexpected property)/],
    ['rpcUrl with a wrong scheme', () => chainsFile({ chains: [{ ...eth, rpcUrl: 'ftp://rpc.example.com' }] }), /chains\.0\.rpcUrl/],
    ['rpcUrl without a scheme', () => chainsFile({ chains: [{ ...eth, rpcUrl: 'localhost:8545' }] }), /chains\.0\.rpcUrl/],
    ['unknown field (typo)', () => chainsFile({ chains: [{ ...eth, confirmation: 3 }] }), /chains\.0\.confirmation/],
    [
      'unknown field in an asset',
      () => chainsFile({ chains: [{ ...eth, assets: [{ symbol: 'X', address: `0x${'1'.repeat(40)}`, decimals: 6, chain: 1 }] }] }),
      /chains\.0\.assets\.0\.chain/,
    ],
    ['unknown network', () => chainsFile({ chains: [{ ...eth, network: 'devnet' }] }), /chains\.0\.network/],
    [
      'asset with a bad address',
      () => chainsFile({ chains: [{ ...eth, assets: [{ symbol: 'X', address: '0x1234', decimals: 6 }] }] }),
      /chains\.0\.assets\.0\.address/,
    ],
    [
      'asset with negative decimals',
      () => chainsFile({ chains: [{ ...eth, assets: [{ symbol: 'X', address: `0x${'1'.repeat(40)}`, decimals: -1 }] }] }),
      /chains\.0\.assets\.0\.decimals/,
    ],
    [
      'a chain listed twice',
      () => chainsFile({ chains: [eth, { ...eth, rpcUrl: 'https://other.example.com' }] }),
      /configures ethereum:mainnet again/,
    ],
    [
      'unknown blockchain without chainId',
      () => chainsFile({ chains: [{ blockchain: 'zksync', network: 'mainnet', rpcUrl: RPC, name: 'zkSync Era', symbol: 'ETH' }] }),
      /"zksync".*"chainId" is required/,
    ],
    [
      'unknown blockchain without name',
      () => chainsFile({ chains: [{ blockchain: 'zksync', network: 'mainnet', rpcUrl: RPC, chainId: 324, symbol: 'ETH' }] }),
      /"zksync".*"name" is required/,
    ],
    [
      'unknown blockchain without symbol',
      () => chainsFile({ chains: [{ blockchain: 'zksync', network: 'mainnet', rpcUrl: RPC, chainId: 324, name: 'zkSync Era' }] }),
      /"zksync".*"symbol" is required/,
    ],
    ['an empty chain list', () => chainsFile({ chains: [] }), /lists no chains/],
  ];
  for (const [label, file, problem] of cases) {
    it(label, () => {
      const err = configError({ CHAINS_FILE: file() });
      expect(err.message).toMatch(/^Invalid configuration: CHAINS_FILE\b/);
      expect(err.message).toMatch(problem);
    });
  }

  it('a chain both in the file and in an RPC_ variable names both sources', () => {
    const err = configError({ CHAINS_FILE: chainsFile({ chains: [eth] }), RPC_ETHEREUM_MAINNET: RPC });
    expect(err.message).toContain('ethereum:mainnet');
    expect(err.message).toContain('RPC_ETHEREUM_MAINNET');
    expect(err.message).toContain('CHAINS_FILE');
  });
});

describe('loadConfig: chains resolved against the catalogue', () => {
  it('a file with only blockchain, network and rpcUrl gets everything else from the catalogue', () => {
    const config = loadConfig({ CHAINS_FILE: chainsFile({ chains: [{ blockchain: 'ethereum', network: 'mainnet', rpcUrl: RPC }] }) });
    expect(config.devnet).toBe(false);
    expect(config.chains).toHaveLength(1);
    const chain = config.chains[0]!;
    expect(chain).toMatchObject({
      network: 'mainnet',
      chainId: 1,
      rpcUrl: RPC,
      confirmations: 12,
      multicall3: '0xcA11bde05977b3631167028862bE2a173976CA11',
    });
    expect(chain.blockchain).toMatchObject({
      slug: 'ethereum',
      symbol: 'ETH',
      derivationPath: "m/44'/60'/0'/0",
      tokenStandard: 'ERC20',
      isEvmCompatible: true,
    });
    expect(chain.assets).toEqual([
      { symbol: 'ETH', name: 'Ethereum', address: NATIVE_ADDRESS, decimals: 18, isNative: true, standard: null, currency: null },
      {
        symbol: 'USDT',
        name: 'Tether USD',
        address: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
        decimals: 6,
        isNative: false,
        standard: 'ERC20',
        currency: 'USD',
        blacklist: 'tether',
      },
      {
        symbol: 'USDC',
        name: 'USD Coin',
        address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
        decimals: 6,
        isNative: false,
        standard: 'ERC20',
        currency: 'USD',
        blacklist: 'circle',
      },
    ]);
    // AML screening's on-chain sources: the issuers' lists above, and the sanctions oracle.
    expect(chain.sanctionsOracle).toBe('0x40C57923924B5c5c5455c48D93317139ADDaC8fb');
  });

  it('a chains file names the AML sources: an asset blacklist, the sanctions oracle, or null to switch one off', () => {
    const [eth] = loadConfig({
      CHAINS_FILE: chainsFile({ chains: [{ blockchain: 'ethereum', network: 'mainnet', rpcUrl: RPC, sanctionsOracle: null }] }),
    }).chains;
    expect(eth!.sanctionsOracle).toBeNull();
    const [custom] = loadConfig({
      CHAINS_FILE: chainsFile({
        chains: [
          {
            blockchain: 'mychain',
            network: 'mainnet',
            rpcUrl: RPC,
            chainId: 4242,
            name: 'My chain',
            symbol: 'MY',
            sanctionsOracle: '0x40C57923924B5c5c5455c48D93317139ADDaC8fb',
            assets: [{ symbol: 'USDT', address: '0xdAC17F958D2ee523a2206206994597C13D831ec7', decimals: 6, blacklist: 'tether-v2' }],
          },
        ],
      }),
    }).chains;
    expect(custom!.sanctionsOracle).toBe('0x40C57923924B5c5c5455c48D93317139ADDaC8fb');
    expect(custom!.assets[1]!.blacklist).toBe('tether-v2');
    expect(() =>
      loadConfig({
        CHAINS_FILE: chainsFile({
          chains: [
            {
              blockchain: 'ethereum',
              network: 'mainnet',
              rpcUrl: RPC,
              assets: [{ symbol: 'X', address: '0xdAC17F958D2ee523a2206206994597C13D831ec7', decimals: 6, blacklist: 'binance' }],
            },
          ],
        }),
      }),
    ).toThrow(/blacklist/);
    expect(loadConfig({}).aml).toEqual({ timeoutMs: 5_000, cacheTtlMs: 60_000, retryMs: 10_000, http: null });
    expect(loadConfig({ AML_HTTP_PROVIDER: 'chainalysis', AML_HTTP_API_KEY: 'k' }).aml.http).toEqual({
      kind: 'chainalysis',
      url: 'https://public.chainalysis.com',
      apiKey: 'k',
    });
    expect(() => loadConfig({ AML_HTTP_PROVIDER: 'trm' })).toThrow(/AML_HTTP_PROVIDER/);
  });

  it('refuses a DATABASE_URL the driver cannot read, naming the setting and never the password', () => {
    for (const url of ['postgres://wallet:s3cret@db:99999/wallet', 'postgres://wallet:s3#cret@db/wallet']) {
      let message = '';
      try {
        loadConfig({ DATABASE_URL: url, MASTER_KEY });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/DATABASE_URL is not a connection string the PostgreSQL driver can read/);
      expect(message).not.toContain('s3');
    }
    expect(loadConfig({ DATABASE_URL: 'postgres://wallet:s3%23cret@db/wallet', MASTER_KEY, DEVNET: 'true' }).databaseUrl).toBe(
      'postgres://wallet:s3%23cret@db/wallet',
    );
  });

  it('BNB Smart Chain stablecoins keep their 18 decimals', () => {
    const [chain] = loadConfig({ RPC_BSC_MAINNET: RPC }).chains;
    expect(chain!.chainId).toBe(56);
    expect(chain!.assets.filter((a) => !a.isNative).map((a) => [a.symbol, a.decimals])).toEqual([
      ['USDT', 18],
      ['USDC', 18],
    ]);
  });

  it('RPC_POLYGON_MAINNET alone switches Polygon on', () => {
    const config = loadConfig({ RPC_POLYGON_MAINNET: 'https://polygon-rpc.example.com' });
    expect(config.devnet).toBe(false);
    expect(config.chains.map((c) => [c.blockchain.slug, c.network, c.chainId, c.rpcUrl])).toEqual([
      ['polygon', 'mainnet', 137, 'https://polygon-rpc.example.com'],
    ]);
    const catalogue = findCatalogueChain('polygon')!.networks.mainnet;
    expect(config.chains[0]!.confirmations).toBe(catalogue.confirmations);
    expect(config.chains[0]!.assets.filter((a) => !a.isNative).map((a) => a.address)).toEqual(catalogue.assets.map((a) => a.address));
  });

  it('RPC_ variables and a chains file combine', () => {
    const config = loadConfig({
      RPC_BASE_TESTNET: RPC,
      CHAINS_FILE: chainsFile({ chains: [{ blockchain: 'arbitrum', network: 'mainnet', rpcUrl: RPC }] }),
    });
    expect(config.chains.map((c) => `${c.blockchain.slug}:${c.network}:${c.chainId}`).sort()).toEqual([
      'arbitrum:mainnet:42161',
      'base:testnet:84532',
    ]);
  });

  it('overrides win over the catalogue: confirmations, multicall3 and the asset list', () => {
    const pyusd = '0x6c3ea9036406852006290770BEdFcAbA0e23A0e8';
    const config = loadConfig({
      CHAINS_FILE: chainsFile({
        chains: [
          {
            blockchain: 'ethereum',
            network: 'mainnet',
            rpcUrl: RPC,
            confirmations: 3,
            multicall3: null,
            assets: [
              { symbol: 'PYUSD', name: 'PayPal USD', address: pyusd, decimals: 6 },
              { symbol: 'WETH', address: `0x${'2'.repeat(40)}`, decimals: 18 },
            ],
          },
        ],
      }),
    });
    const chain = config.chains[0]!;
    expect(chain.chainId).toBe(1);
    expect(chain.confirmations).toBe(3);
    expect(chain.multicall3).toBeNull();
    expect(chain.assets.map((a) => [a.symbol, a.address, a.decimals, a.isNative, a.currency])).toEqual([
      ['ETH', NATIVE_ADDRESS, 18, true, null],
      ['PYUSD', pyusd, 6, false, 'USD'],
      ['WETH', `0x${'2'.repeat(40)}`, 18, false, null],
    ]);
    // Not USDT/USDC any more: the file's list replaces the catalogue's.
    expect(chain.assets.some((a) => a.symbol === 'USDT' || a.symbol === 'USDC')).toBe(false);
  });

  it('an unknown EVM chain works when chainId, name and symbol are given', () => {
    const config = loadConfig({
      CHAINS_FILE: chainsFile({
        chains: [{ blockchain: 'zksync', network: 'mainnet', rpcUrl: RPC, chainId: 324, name: 'zkSync Era', symbol: 'ETH' }],
      }),
    });
    expect(config.chains[0]).toMatchObject({
      chainId: 324,
      multicall3: null,
      blockchain: { slug: 'zksync', name: 'zkSync Era', symbol: 'ETH', derivationPath: "m/44'/60'/0'/0" },
    });
    expect(config.chains[0]!.assets.map((a) => a.symbol)).toEqual(['ETH']);
  });
});

describe('loadConfig: a chain names its family', () => {
  const custom = { network: 'testnet', rpcUrl: RPC, chainId: 2494104990, name: 'Tron Shasta', symbol: 'TRX' };

  it("is 'evm' unless the file says otherwise, and a custom chain of another family derives at that family's path", () => {
    const config = loadConfig({
      CHAINS_FILE: chainsFile({
        chains: [
          { blockchain: 'ethereum', network: 'mainnet', rpcUrl: RPC },
          { blockchain: 'zksync', network: 'mainnet', rpcUrl: RPC, chainId: 324, name: 'zkSync Era', symbol: 'ETH' },
          { blockchain: 'tron', family: 'tron', ...custom },
          { blockchain: 'solana', family: 'solana', ...custom, chainId: 1, name: 'Solana Devnet', symbol: 'SOL' },
        ],
      }),
    });
    expect(
      config.chains.map((c) => [c.blockchain.slug, c.blockchain.family, c.blockchain.derivationPath, c.blockchain.isEvmCompatible]),
    ).toEqual([
      ['ethereum', 'evm', "m/44'/60'/0'/0", true],
      ['zksync', 'evm', "m/44'/60'/0'/0", true],
      ['tron', 'tron', "m/44'/195'/0'/0", false],
      ['solana', 'solana', "m/44'/501'", false],
    ]);
  });

  it('refuses an unknown family, and another family under a catalogue (EVM) slug', () => {
    expect(configError({ CHAINS_FILE: chainsFile({ chains: [{ blockchain: 'tron', family: 'bitcoin', ...custom }] }) }).message).toMatch(
      /CHAINS_FILE.*chains\.0\.family/,
    );
    expect(
      configError({ CHAINS_FILE: chainsFile({ chains: [{ blockchain: 'ethereum', network: 'mainnet', rpcUrl: RPC, family: 'tron' }] }) })
        .message,
    ).toMatch(/"ethereum" is an EVM chain of the built-in catalogue, so "family" cannot be "tron"/);
  });

  it("takes a Tron chain's token and multicall addresses in T… form, TRX with 6 decimals; each family only its own form", () => {
    const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
    const MULTICALL = 'TEazPvZwDjDtFeJupyo7QunvnrnUjPH8ED';
    const [tron] = loadConfig({
      CHAINS_FILE: chainsFile({
        chains: [
          {
            blockchain: 'tron',
            family: 'tron',
            ...custom,
            multicall3: MULTICALL,
            assets: [{ symbol: 'USDT', address: USDT, decimals: 6 }],
          },
        ],
      }),
    }).chains;
    expect(tron!.multicall3).toBe(MULTICALL);
    expect(tron!.assets.map((a) => [a.symbol, a.address, a.decimals, a.isNative])).toEqual([
      ['TRX', NATIVE_ADDRESS, 6, true],
      ['USDT', USDT, 6, false],
    ]);
    const hex = `0x${'a'.repeat(40)}`;
    const tronWithHex = { blockchain: 'tron', family: 'tron', ...custom, assets: [{ symbol: 'USDT', address: hex, decimals: 6 }] };
    expect(configError({ CHAINS_FILE: chainsFile({ chains: [tronWithHex] }) }).message).toMatch(
      /chains\.tron\.assets\.0\.address: not an address of the tron family/,
    );
    const evmWithTron = {
      blockchain: 'ethereum',
      network: 'mainnet',
      rpcUrl: RPC,
      assets: [{ symbol: 'USDT', address: USDT, decimals: 6 }],
    };
    expect(configError({ CHAINS_FILE: chainsFile({ chains: [evmWithTron] }) }).message).toMatch(
      /chains\.ethereum\.assets\.0\.address: not an address of the evm family/,
    );
    expect(
      configError({ CHAINS_FILE: chainsFile({ chains: [{ blockchain: 'tron', family: 'tron', ...custom, multicall3: 'T123' }] }) }).message,
    ).toMatch(/chains\.0\.multicall3/);
  });
});

describe('loadConfig: price feeds and rate settings', () => {
  const FEED = `0x${'f'.repeat(40)}`;

  it('catalogue chains bring the Chainlink USD feeds of their stablecoins; testnets and native coins none', () => {
    const [eth] = loadConfig({ RPC_ETHEREUM_MAINNET: RPC }).chains;
    expect(eth!.priceFeeds).toEqual({
      USDT: { address: '0x3E7d1eAB13ad0104d2750B8863b489D65364e32D', heartbeat: 86_400 },
      USDC: { address: '0x8fFfFfd4AfB6115b954Bd326cbe7B4BA576818f6', heartbeat: 86_400 },
    });
    expect(loadConfig({ RPC_ETHEREUM_TESTNET: RPC }).chains[0]!.priceFeeds).toEqual({});
  });

  it('the chains file adds, replaces and switches off feeds by symbol (the native coin included)', () => {
    const [chain] = loadConfig({
      CHAINS_FILE: chainsFile({
        chains: [
          {
            blockchain: 'ethereum',
            network: 'mainnet',
            rpcUrl: RPC,
            priceFeeds: { ETH: { address: FEED, heartbeat: 3600 }, USDT: null, USDC: { address: FEED, heartbeat: 90_000 } },
          },
        ],
      }),
    }).chains;
    expect(chain!.priceFeeds).toEqual({ ETH: { address: FEED, heartbeat: 3600 }, USDC: { address: FEED, heartbeat: 90_000 } });
  });

  it("a file with its own asset list starts without the catalogue's feeds", () => {
    const [chain] = loadConfig({
      CHAINS_FILE: chainsFile({
        chains: [
          {
            blockchain: 'ethereum',
            network: 'mainnet',
            rpcUrl: RPC,
            assets: [{ symbol: 'USDC', address: `0x${'2'.repeat(40)}`, decimals: 6 }],
          },
        ],
      }),
    }).chains;
    expect(chain!.priceFeeds).toEqual({});
  });

  it('a feed for a symbol the chain does not have, or without a heartbeat, is a ConfigError naming it', () => {
    const eth = { blockchain: 'ethereum', network: 'mainnet', rpcUrl: RPC };
    const unknown = configError({
      CHAINS_FILE: chainsFile({ chains: [{ ...eth, priceFeeds: { DAI: { address: FEED, heartbeat: 60 } } }] }),
    });
    expect(unknown.message).toMatch(/^Invalid configuration: CHAINS_FILE\b.*priceFeeds\.DAI: no asset with this symbol/);
    const noHeartbeat = configError({ CHAINS_FILE: chainsFile({ chains: [{ ...eth, priceFeeds: { USDT: { address: FEED } } }] }) });
    expect(noHeartbeat.message).toMatch(/chains\.0\.priceFeeds\.USDT/);
    const badAddress = configError({
      CHAINS_FILE: chainsFile({ chains: [{ ...eth, priceFeeds: { USDT: { address: '0x12', heartbeat: 60 } } }] }),
    });
    expect(badAddress.message).toMatch(/chains\.0\.priceFeeds\.USDT\.address/);
  });

  it('RATES_* settings: defaults (no peg), values, and bad values named', () => {
    expect(loadConfig({}).rates).toEqual({ pegFallback: false, cacheMs: 5_000, graceSeconds: 600 });
    expect(loadConfig({ RATES_PEG_FALLBACK: 'true', RATES_CACHE_MS: '0', RATES_STALENESS_GRACE_SECONDS: '30' }).rates).toEqual({
      pegFallback: true,
      cacheMs: 0,
      graceSeconds: 30,
    });
    for (const [name, value] of [
      ['RATES_PEG_FALLBACK', 'sometimes'],
      ['RATES_CACHE_MS', '60001'],
      ['RATES_STALENESS_GRACE_SECONDS', '-5'],
    ] as const) {
      expect(configError({ [name]: value }).message).toMatch(new RegExp(`^Invalid configuration: ${name}\\b`));
    }
  });
});

describe('loadConfig: Tron in the catalogue', () => {
  it('RPC_TRON_MAINNET and RPC_TRON_TESTNET switch on Tron mainnet and Nile: family tron, TRC20, TRX 6 decimals, USDT and USDC', () => {
    const config = loadConfig({ RPC_TRON_MAINNET: 'https://api.trongrid.io', RPC_TRON_TESTNET: 'https://nile.trongrid.io' });
    const view = (network: string) => {
      const c = config.chains.find((x) => x.blockchain.slug === 'tron' && x.network === network)!;
      return {
        chainId: c.chainId,
        rpcUrl: c.rpcUrl,
        family: c.blockchain.family,
        derivationPath: c.blockchain.derivationPath,
        tokenStandard: c.blockchain.tokenStandard,
        isEvmCompatible: c.blockchain.isEvmCompatible,
        confirmations: c.confirmations,
        multicall3: c.multicall3,
        swapRouter: c.swapRouter,
        assets: c.assets.map((a) => [a.symbol, a.address, a.decimals, a.isNative, a.standard, a.currency]),
      };
    };
    const common = { family: 'tron', derivationPath: "m/44'/195'/0'/0", tokenStandard: 'TRC20', isEvmCompatible: false };
    expect(view('mainnet')).toEqual({
      ...common,
      chainId: 728_126_428,
      rpcUrl: 'https://api.trongrid.io',
      confirmations: 20,
      multicall3: null,
      swapRouter: null,
      assets: [
        ['TRX', NATIVE_ADDRESS, 6, true, null, null],
        ['USDT', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', 6, false, 'TRC20', 'USD'],
        ['USDC', 'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8', 6, false, 'TRC20', 'USD'],
      ],
    });
    expect(view('testnet')).toEqual({
      ...common,
      chainId: 3_448_148_188,
      rpcUrl: 'https://nile.trongrid.io',
      confirmations: 20,
      multicall3: null,
      swapRouter: null,
      assets: [
        ['TRX', NATIVE_ADDRESS, 6, true, null, null],
        ['USDT', 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf', 6, false, 'TRC20', 'USD'],
      ],
    });
  });

  it('a chains file naming only tron, a network and an rpcUrl gets the rest from the catalogue; family evm under it is refused', () => {
    const [tron] = loadConfig({
      CHAINS_FILE: chainsFile({ chains: [{ blockchain: 'tron', network: 'mainnet', rpcUrl: 'https://api.trongrid.io' }] }),
    }).chains;
    expect(tron!.blockchain).toMatchObject({ family: 'tron', nativeDecimals: 6, symbol: 'TRX', tokenStandard: 'TRC20' });
    expect(
      configError({
        CHAINS_FILE: chainsFile({ chains: [{ blockchain: 'tron', network: 'mainnet', rpcUrl: RPC, family: 'evm' }] }),
      }).message,
    ).toMatch(/"tron" is a Tron chain of the built-in catalogue, so "family" cannot be "evm"/);
  });
});

describe('loadConfig: Solana in the catalogue', () => {
  it('RPC_SOLANA_MAINNET and RPC_SOLANA_TESTNET switch on mainnet-beta and devnet: family solana, SPL, SOL 9 decimals, USDC (and USDT on mainnet)', () => {
    const config = loadConfig({
      RPC_SOLANA_MAINNET: 'https://api.mainnet-beta.solana.com',
      RPC_SOLANA_TESTNET: 'https://api.devnet.solana.com',
    });
    const view = (network: string) => {
      const c = config.chains.find((x) => x.blockchain.slug === 'solana' && x.network === network)!;
      return {
        chainId: c.chainId,
        rpcUrl: c.rpcUrl,
        family: c.blockchain.family,
        derivationPath: c.blockchain.derivationPath,
        tokenStandard: c.blockchain.tokenStandard,
        isEvmCompatible: c.blockchain.isEvmCompatible,
        nativeDecimals: c.blockchain.nativeDecimals,
        confirmations: c.confirmations,
        multicall3: c.multicall3,
        swapRouter: c.swapRouter,
        assets: c.assets.map((a) => [a.symbol, a.address, a.decimals, a.isNative, a.standard, a.currency]),
      };
    };
    const common = { family: 'solana', derivationPath: "m/44'/501'", tokenStandard: 'SPL', isEvmCompatible: false, nativeDecimals: 9 };
    expect(view('mainnet')).toEqual({
      ...common,
      chainId: 101,
      rpcUrl: 'https://api.mainnet-beta.solana.com',
      confirmations: 32,
      multicall3: null,
      swapRouter: null,
      assets: [
        ['SOL', NATIVE_ADDRESS, 9, true, null, null],
        ['USDC', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', 6, false, 'SPL', 'USD'],
        ['USDT', 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', 6, false, 'SPL', 'USD'],
      ],
    });
    expect(view('testnet')).toEqual({
      ...common,
      chainId: 103,
      rpcUrl: 'https://api.devnet.solana.com',
      confirmations: 32,
      multicall3: null,
      swapRouter: null,
      assets: [
        ['SOL', NATIVE_ADDRESS, 9, true, null, null],
        ['USDC', '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU', 6, false, 'SPL', 'USD'],
      ],
    });
  });

  it('a chains file naming only solana, a network and an rpcUrl gets the rest from the catalogue; family evm under it is refused', () => {
    const [solana] = loadConfig({
      CHAINS_FILE: chainsFile({ chains: [{ blockchain: 'solana', network: 'mainnet', rpcUrl: 'https://api.mainnet-beta.solana.com' }] }),
    }).chains;
    expect(solana!.blockchain).toMatchObject({ family: 'solana', nativeDecimals: 9, symbol: 'SOL', tokenStandard: 'SPL' });
    expect(
      configError({
        CHAINS_FILE: chainsFile({ chains: [{ blockchain: 'solana', network: 'mainnet', rpcUrl: RPC, family: 'evm' }] }),
      }).message,
    ).toMatch(/"solana" is a Solana chain of the built-in catalogue, so "family" cannot be "evm"/);
  });

  it('a custom Solana chain without tokenStandard gets SPL (a Tron one TRC20, an EVM one ERC20)', () => {
    const custom = (blockchain: string, family: string, address: string) =>
      loadConfig({
        CHAINS_FILE: chainsFile({
          chains: [
            {
              blockchain,
              family,
              network: 'testnet',
              rpcUrl: RPC,
              chainId: 990_001,
              name: 'X',
              symbol: 'X',
              assets: [{ symbol: 'USDC', address, decimals: 6 }],
            },
          ],
        }),
      }).chains[0]!.assets.map((a) => a.standard);
    expect(custom('sol-x', 'solana', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toEqual([null, 'SPL']);
    expect(custom('tron-x', 'tron', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toEqual([null, 'TRC20']);
    expect(custom('evm-x', 'evm', '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48')).toEqual([null, 'ERC20']);
  });

  it("finality: 'confirmed' or 'finalized' on a Solana chain (absent by default); refused on another family", () => {
    const solana = (finality?: string) =>
      loadConfig({
        CHAINS_FILE: chainsFile({ chains: [{ blockchain: 'solana', network: 'mainnet', rpcUrl: RPC, ...(finality ? { finality } : {}) }] }),
      }).chains[0]!;
    expect(solana().finality).toBeUndefined();
    expect(solana('confirmed').finality).toBe('confirmed');
    expect(solana('finalized').finality).toBe('finalized');
    expect(
      configError({
        CHAINS_FILE: chainsFile({ chains: [{ blockchain: 'solana', network: 'mainnet', rpcUrl: RPC, finality: 'processed' }] }),
      }).message,
    ).toMatch(/finality/);
    expect(
      configError({ CHAINS_FILE: chainsFile({ chains: [{ blockchain: 'tron', network: 'mainnet', rpcUrl: RPC, finality: 'confirmed' }] }) })
        .message,
    ).toMatch(/chains\.tron\.finality: only Solana chains/);
  });
});

describe('loadConfig: event stream limits', () => {
  it('5 per key and 50 per business by default; each settable, a bad value refused', () => {
    expect(loadConfig({}).eventStreams).toEqual({ maxStreamsPerKey: 5, maxStreamsPerBusiness: 50 });
    expect(loadConfig({ EVENT_STREAMS_PER_KEY: '2', EVENT_STREAMS_PER_BUSINESS: '400' }).eventStreams).toEqual({
      maxStreamsPerKey: 2,
      maxStreamsPerBusiness: 400,
    });
    expect(configError({ EVENT_STREAMS_PER_BUSINESS: '0' }).message).toMatch(/^Invalid configuration: EVENT_STREAMS_PER_BUSINESS\b/);
  });
});

describe("loadConfig: a chain's asset list names each contract once", () => {
  // The catalogue keeps one asset row per (chain, address): a second entry with the same
  // address (or the native coin's zero address) overwrote the first at start, silently; with
  // the zero address the native coin's row became a token and native deposits were no longer
  // matched to any asset.
  const eth = { blockchain: 'ethereum', network: 'mainnet', rpcUrl: RPC };
  const token = (symbol: string, address: string) => ({ symbol, address, decimals: 6 });
  const A = `0x${'ab'.repeat(20)}`;
  const cases: [string, object[], RegExp][] = [
    ['the same address twice', [token('USDC', A), token('USDT', A)], /chains\.ethereum\.assets\.1\.address: .*assets\.0/],
    ['the same EVM address in another case', [token('USDC', A), token('USDT', A.toUpperCase().replace('0X', '0x'))], /assets\.1\.address/],
    ["the native coin's zero address", [token('USDC', NATIVE_ADDRESS)], /assets\.0\.address: .*native coin/],
  ];
  for (const [label, assets, problem] of cases) {
    it(`refuses ${label}`, () => {
      const err = configError({ CHAINS_FILE: chainsFile({ chains: [{ ...eth, assets }] }) });
      expect(err.message).toMatch(/^Invalid configuration: CHAINS_FILE\b/);
      expect(err.message).toMatch(problem);
    });
  }

  it('accepts the same address on two chains, and two Solana mints that differ only in case', () => {
    const mint = 'So11111111111111111111111111111111111111112';
    const config = loadConfig({
      CHAINS_FILE: chainsFile({
        chains: [
          { ...eth, assets: [token('USDC', A)] },
          { blockchain: 'polygon', network: 'mainnet', rpcUrl: RPC, assets: [token('USDC', A)] },
          {
            blockchain: 'solana',
            network: 'mainnet',
            rpcUrl: RPC,
            assets: [token('AAA', mint), token('BBB', mint.toLowerCase().replace(/l/g, 'k'))],
          },
        ],
      }),
    });
    expect(config.chains).toHaveLength(3);
  });

  it('refuses a chainId or startBlock past the safe integer range (it would be rounded)', () => {
    for (const field of ['chainId', 'startBlock']) {
      const chain = `{"blockchain":"mychain","network":"mainnet","rpcUrl":"${RPC}","name":"M","symbol":"M","chainId":1}`;
      const raw = `{"chains":[${chain.replace('}', `,"${field}":9007199254740993}`).replace('"chainId":1,"chainId"', '"chainId"')}]}`;
      const err = configError({ CHAINS_FILE: chainsFile(raw) });
      expect(err.message).toMatch(new RegExp(`chains\\.0\\.${field}`));
    }
  });
});
