/**
 * The EVM family's entries of the built-in catalogue: the main EVM networks, mainnet and
 * testnet (config/catalogue.ts for the shape; chains/evm/index.ts lists them).
 *
 * With this catalogue an operator only has to supply RPC URLs to switch a
 * chain on: chain ids, confirmation depths, Multicall3, explorers and the
 * canonical USDT/USDC contracts are already here. Every value can be
 * overridden per chain and per network through the chains file; treat this as
 * the default, not as the only source of truth.
 *
 * Where the data comes from:
 *   - Stablecoin contracts follow the issuers' published contract lists
 *     (Circle's "USDC contract addresses" page, Tether's supported-protocols
 *     list and the USDT0 deployment list) and, for Celo, the Celo docs'
 *     stablecoin table. Each address was also cross-checked against
 *     independent public token lists and integrations. Comments on the chains
 *     below say where that check was weaker.
 *   - Chain ids, explorers and Multicall3 availability match the chain
 *     definitions published by the networks themselves and the Multicall3
 *     deployment list (github.com/mds1/multicall3).
 *   - Addresses are written in EIP-55 checksummed form; test/config/catalogue.test.ts
 *     checks every one of them.
 *   - The default swap router of each network is swap-routers.ts's.
 *
 * Only canonical issuer tokens are listed. Bridged copies (USDC.e, USDbC,
 * USDT.e, ...) are deliberately left out: they are different contracts with
 * different issuers and redemption paths. Crediting one as if it were the
 * canonical token would be a bookkeeping error, so an operator who wants them
 * must add them on purpose.
 *
 * Pure data: this module imports no chain library (viem etc.), only the catalogue's shape.
 * The objects are deep-frozen. Copy them before you change anything.
 */
import { deepFreeze, type CatalogueChain, type NetworkName } from '../../config/catalogue.js';
import { SWAP_ROUTERS } from './swap-routers.js';

/**
 * Multicall3 is deployed at this same address on every network in this
 * catalogue (checked against the Multicall3 deployment list and the chain
 * definitions shipped with viem). On Celo Sepolia, the newest network here,
 * it is present from block 1 as an OP Stack preinstall.
 */
const MULTICALL3 = '0xcA11bde05977b3631167028862bE2a173976CA11' as const;

/**
 * BIP-44 path down to the external chain: m / purpose' / coin_type' / account' / change.
 * Address index i is then m/44'/60'/0'/0/i.
 *
 * We use SLIP-44 coin type 60 (Ethereum) for every EVM chain, including those
 * that registered their own coin type (e.g. Celo 52752, Polygon 966). This is
 * what MetaMask, Ledger Live, Trust Wallet and most custodians do. All EVM
 * chains share one key scheme (secp256k1) and one address format
 * (keccak-256), so one path gives the same address on every chain. That
 * keeps a user's deposit address stable across chains. It also means funds
 * sent on the "wrong" EVM chain still land on a key we control and can be
 * recovered. An operator migrating keys from a chain-specific wallet (e.g. an
 * old Celo wallet on 52752) must override this per chain.
 */
const EVM_DERIVATION_PATH = "m/44'/60'/0'/0";

/**
 * The public SanctionsList oracle (Chainalysis: `isSanctioned(address)`, the addresses of the
 * OFAC SDN list), at this address on Ethereum, BNB Smart Chain, Polygon, Avalanche,
 * Optimism, Arbitrum and Celo, and at SANCTIONS_ORACLE_BASE on Base (Chainalysis's
 * published deployments). Testnets have none. AML screening reads it (docs/aml.md).
 *
 * The `blacklist` of each stablecoin below names whose list its contract keeps
 * (config/chains.ts BlacklistKind): Tether's 2017 token on Ethereum ('tether'); Tether's
 * newer TetherToken / USDT0 on Polygon, Arbitrum, Optimism and Avalanche ('tether-v2',
 * `isBlocked`); Circle's FiatToken for native USDC everywhere ('circle'). Left out where the
 * contract is not the issuer's (BNB Smart Chain's Binance-Peg tokens) or its list function
 * is not confirmed (Celo's USDT): a chains file can add `blacklist` to an asset.
 */
const SANCTIONS_ORACLE = '0x40C57923924B5c5c5455c48D93317139ADDaC8fb';
const SANCTIONS_ORACLE_BASE = '0x3A91A31cB3dC49b4db9Ce721F50a9D076c8D739B';

/**
 * Chainlink USD price feeds (AggregatorV3 proxies, 8 decimals) of the mainnet stablecoins,
 * the source of rates (docs/api.md "Rates"). Addresses are Chainlink's own list: the feed
 * data Chainlink publishes with its docs (docs.chain.link/data-feeds/price-feeds/addresses,
 * as packaged in Chainlink Labs' @chainlink/mcp-server 0.0.1-alpha.17, data/feeds, generated
 * 2025-11-03). Where that list has one USDT / USD or USDC / USD proxy on a chain, it is
 * taken as is. Ethereum and Base list several per pair (the others are SVR proxies
 * dedicated to Aave); the standard proxies kept here are the ones public integrations have
 * read for years (Ethereum) or that update on their own schedule rather than in step with an
 * SVR twin (Base USDC). Base's catalogue has no canonical USDT, so no USDT feed. Testnets get
 * none: their tokens are test tokens; an operator can add a feed in the chains file.
 *
 * Heartbeat: Chainlink runs its USD stablecoin feeds on a 24 h heartbeat. Should a chain's
 * feed publish another one, set `heartbeat` in the chains file: a shorter real heartbeat
 * only makes this limit lenient, a longer one makes rates missing, never stale.
 */
const chainlinkUsd = (address: `0x${string}`) => ({ address, heartbeat: 86_400 });

const TRUST_WALLET_LOGO = (dir: string): string =>
  `https://raw.githubusercontent.com/trustwallet/assets/master/blockchains/${dir}/info/logo.png`;

const CATALOGUE_CHAINS: Omit<CatalogueChain, 'family'>[] = [
  // ---------------------------------------------------------------- Ethereum
  {
    slug: 'ethereum',
    name: 'Ethereum',
    symbol: 'ETH',
    nativeDecimals: 18,
    derivationPath: EVM_DERIVATION_PATH,
    tokenStandard: 'ERC20',
    isEvmCompatible: true,
    isL2: false,
    logoUrl: TRUST_WALLET_LOGO('ethereum'),
    networks: {
      mainnet: {
        chainId: 1,
        label: 'Ethereum Mainnet',
        // 12 blocks (~2.4 min) is the usual exchange-grade depth against reorgs.
        // Full Casper FFG finality takes ~2 epochs (~13 min). Operators who want
        // that guarantee should read at the 'finalized' block tag.
        confirmations: 12,
        multicall3: MULTICALL3,
        sanctionsOracle: SANCTIONS_ORACLE,
        explorerUrl: 'https://etherscan.io',
        assets: [
          { symbol: 'USDT', name: 'Tether USD', address: '0xdAC17F958D2ee523a2206206994597C13D831ec7', decimals: 6, blacklist: 'tether' },
          { symbol: 'USDC', name: 'USD Coin', address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', decimals: 6, blacklist: 'circle' },
        ],
        priceFeeds: {
          USDT: chainlinkUsd('0x3E7d1eAB13ad0104d2750B8863b489D65364e32D'),
          USDC: chainlinkUsd('0x8fFfFfd4AfB6115b954Bd326cbe7B4BA576818f6'),
        },
      },
      testnet: {
        chainId: 11155111,
        label: 'Sepolia',
        confirmations: 3,
        multicall3: MULTICALL3,
        explorerUrl: 'https://sepolia.etherscan.io',
        // Circle's test USDC. Tether publishes no canonical Sepolia USDT.
        assets: [
          {
            symbol: 'USDC',
            name: 'USD Coin (testnet)',
            address: '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238',
            decimals: 6,
            blacklist: 'circle',
          },
        ],
      },
    },
  },

  // --------------------------------------------------------- BNB Smart Chain
  {
    slug: 'bsc',
    name: 'BNB Smart Chain',
    symbol: 'BNB',
    nativeDecimals: 18,
    derivationPath: EVM_DERIVATION_PATH,
    tokenStandard: 'BEP20',
    isEvmCompatible: true,
    isL2: false,
    logoUrl: TRUST_WALLET_LOGO('smartchain'),
    networks: {
      mainnet: {
        chainId: 56,
        label: 'BNB Smart Chain Mainnet',
        // With BEP-126 fast finality, block n is economically final by n+2.
        // If fast finality stalls, BSC falls back to probabilistic finality,
        // so we keep a margin well beyond that.
        confirmations: 15,
        multicall3: MULTICALL3,
        sanctionsOracle: SANCTIONS_ORACLE,
        explorerUrl: 'https://bscscan.com',
        // Neither Tether nor Circle issues on BSC. The canonical stablecoins
        // are Binance-Peg tokens backed 1:1 by Binance. WATCH OUT: both use
        // 18 decimals, not 6 like everywhere else.
        assets: [
          { symbol: 'USDT', name: 'Binance-Peg BSC-USD (Tether USD)', address: '0x55d398326f99059fF775485246999027B3197955', decimals: 18 },
          { symbol: 'USDC', name: 'Binance-Peg USD Coin', address: '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d', decimals: 18 },
        ],
        priceFeeds: {
          USDT: chainlinkUsd('0xB97Ad0E74fa7d920791E90258A6E2085088b4320'),
          USDC: chainlinkUsd('0x51597f405303C4377E36123cBc172b13269EA163'),
        },
      },
      testnet: {
        chainId: 97,
        label: 'BNB Smart Chain Testnet',
        confirmations: 3,
        multicall3: MULTICALL3,
        explorerUrl: 'https://testnet.bscscan.com',
        // There is no issuer-published USDT/USDC on chain 97 (Circle has no BSC
        // testnet entry). Community faucet tokens exist but are not canonical.
        assets: [],
      },
    },
  },

  // ------------------------------------------------------------ Polygon PoS
  {
    slug: 'polygon',
    name: 'Polygon PoS',
    symbol: 'POL',
    nativeDecimals: 18,
    derivationPath: EVM_DERIVATION_PATH,
    tokenStandard: 'ERC20',
    isEvmCompatible: true,
    // Not an L2: Polygon PoS is a sidechain with its own validator set and
    // consensus (Heimdall/Bor). It posts checkpoints to Ethereum, but Ethereum
    // does not verify its state transitions (no fraud or validity proofs), so
    // Ethereum does not secure it.
    isL2: false,
    logoUrl: TRUST_WALLET_LOGO('polygon'),
    networks: {
      mainnet: {
        chainId: 137,
        label: 'Polygon Mainnet',
        // Polygon had deep reorgs under its older probabilistic fork choice,
        // hence the industry habit of 128+ blocks. Milestones (PIP-11) now give
        // deterministic finality well within that depth, so 128 blocks
        // (~4-5 min at ~2 s) is a conservative margin rather than a hard need.
        confirmations: 128,
        multicall3: MULTICALL3,
        sanctionsOracle: SANCTIONS_ORACLE,
        explorerUrl: 'https://polygonscan.com',
        // USDT: the PoS-bridge Tether contract, since upgraded in place to
        // USDT0 (same address). USDC: Circle's native USDC. The bridged
        // "USDC.e" (0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174) also exists
        // and is deliberately NOT listed.
        assets: [
          {
            symbol: 'USDT',
            name: 'Tether USD (USDT0)',
            address: '0xc2132D05D31c914a87C6611C10748AEb04B58e8F',
            decimals: 6,
            blacklist: 'tether-v2',
          },
          { symbol: 'USDC', name: 'USD Coin', address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', decimals: 6, blacklist: 'circle' },
        ],
        priceFeeds: {
          USDT: chainlinkUsd('0x0A6513e40db6EB1b165753AD52E80663aeA50545'),
          USDC: chainlinkUsd('0xfE4A8cc5b5B2366C1B58Bea3858e81843581b2F7'),
        },
      },
      testnet: {
        chainId: 80002,
        label: 'Polygon Amoy',
        confirmations: 16,
        multicall3: MULTICALL3,
        explorerUrl: 'https://amoy.polygonscan.com',
        assets: [
          {
            symbol: 'USDC',
            name: 'USD Coin (testnet)',
            address: '0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582',
            decimals: 6,
            blacklist: 'circle',
          },
        ],
      },
    },
  },

  // -------------------------------------------------------------------- Base
  {
    slug: 'base',
    name: 'Base',
    symbol: 'ETH',
    nativeDecimals: 18,
    derivationPath: EVM_DERIVATION_PATH,
    tokenStandard: 'ERC20',
    isEvmCompatible: true,
    isL2: true, // OP Stack optimistic rollup settling on Ethereum.
    logoUrl: TRUST_WALLET_LOGO('base'),
    networks: {
      mainnet: {
        chainId: 8453,
        label: 'Base Mainnet',
        // Sequencer-ordered L2 with 2 s blocks. An unsafe-head reorg needs a
        // sequencer fault or an L1 reorg, so ~20 s of blocks is a small but
        // real buffer. For L1-backed safety, read at the 'safe'/'finalized' tags.
        confirmations: 10,
        multicall3: MULTICALL3,
        sanctionsOracle: SANCTIONS_ORACLE_BASE,
        explorerUrl: 'https://basescan.org',
        // USDC: Circle's native USDC. The older bridged "USDbC"
        // (0xd9aAEc86B65D86f6A7B5B1b0c42FFA531710b6CA) exists and is NOT listed.
        // USDT: Tether does not issue on Base. The "USDT" token seen there
        // (0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2) is an OP Standard
        // Bridge copy of Ethereum USDT, not a Tether deployment, so USDT is
        // left out.
        assets: [
          { symbol: 'USDC', name: 'USD Coin', address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', decimals: 6, blacklist: 'circle' },
        ],
        priceFeeds: { USDC: chainlinkUsd('0x7e860098F58bBFC8648a4311b374B1D669a2bc6B') },
      },
      testnet: {
        chainId: 84532,
        label: 'Base Sepolia',
        confirmations: 3,
        multicall3: MULTICALL3,
        explorerUrl: 'https://sepolia.basescan.org',
        assets: [
          {
            symbol: 'USDC',
            name: 'USD Coin (testnet)',
            address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
            decimals: 6,
            blacklist: 'circle',
          },
        ],
      },
    },
  },

  // ------------------------------------------------------------ Arbitrum One
  {
    slug: 'arbitrum',
    name: 'Arbitrum One',
    symbol: 'ETH',
    nativeDecimals: 18,
    derivationPath: EVM_DERIVATION_PATH,
    tokenStandard: 'ERC20',
    isEvmCompatible: true,
    isL2: true, // Arbitrum Nitro optimistic rollup settling on Ethereum.
    logoUrl: TRUST_WALLET_LOGO('arbitrum'),
    networks: {
      mainnet: {
        chainId: 42161,
        label: 'Arbitrum One',
        // Blocks are ~250 ms, so 40 blocks is ~10 s of sequencer soft-confirmation.
        // Same reasoning as the other rollups.
        confirmations: 40,
        multicall3: MULTICALL3,
        sanctionsOracle: SANCTIONS_ORACLE,
        explorerUrl: 'https://arbiscan.io',
        // USDT: the Tether contract at 0xFd08...bb9, upgraded in place to USDT0.
        // USDC: Circle's native USDC. The bridged "USDC.e"
        // (0xFF970A61A04b1cA14834A43f5dE4533eBDDB5CC8) exists and is NOT listed.
        assets: [
          {
            symbol: 'USDT',
            name: 'Tether USD (USDT0)',
            address: '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9',
            decimals: 6,
            blacklist: 'tether-v2',
          },
          { symbol: 'USDC', name: 'USD Coin', address: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831', decimals: 6, blacklist: 'circle' },
        ],
        priceFeeds: {
          USDT: chainlinkUsd('0x3f3f5dF88dC9F13eac63DF89EC16ef6e7E25DdE7'),
          USDC: chainlinkUsd('0x50834F3163758fcC1Df9973b6e91f0F0F0434aD3'),
        },
      },
      testnet: {
        chainId: 421614,
        label: 'Arbitrum Sepolia',
        confirmations: 10,
        multicall3: MULTICALL3,
        explorerUrl: 'https://sepolia.arbiscan.io',
        assets: [
          {
            symbol: 'USDC',
            name: 'USD Coin (testnet)',
            address: '0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d',
            decimals: 6,
            blacklist: 'circle',
          },
        ],
      },
    },
  },

  // ---------------------------------------------------------------- Optimism
  {
    slug: 'optimism',
    name: 'Optimism',
    symbol: 'ETH',
    nativeDecimals: 18,
    derivationPath: EVM_DERIVATION_PATH,
    tokenStandard: 'ERC20',
    isEvmCompatible: true,
    isL2: true, // OP Stack optimistic rollup settling on Ethereum.
    logoUrl: TRUST_WALLET_LOGO('optimism'),
    networks: {
      mainnet: {
        chainId: 10,
        label: 'OP Mainnet',
        confirmations: 10, // 2 s blocks, same reasoning as Base.
        multicall3: MULTICALL3,
        sanctionsOracle: SANCTIONS_ORACLE,
        explorerUrl: 'https://optimistic.etherscan.io',
        // USDT: USDT0 (Tether's LayerZero OFT deployment) is now the canonical
        // USDT on OP Mainnet. The legacy Standard Bridge "USDT"
        // (0x94b008aA00579c1307B0EF2c499aD98a8ce58e58) still exists and still
        // holds balances. It is a different contract, so deposits of it will
        // NOT be credited unless an operator adds it through the chains file.
        // USDC: Circle's native USDC. The bridged "USDC.e"
        // (0x7F5c764cBc14f9669B88837ca1490cCa17c31607) exists and is NOT listed.
        assets: [
          {
            symbol: 'USDT',
            name: 'Tether USD (USDT0)',
            address: '0x01bFF41798a0BcF287b996046Ca68b395DbC1071',
            decimals: 6,
            blacklist: 'tether-v2',
          },
          { symbol: 'USDC', name: 'USD Coin', address: '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85', decimals: 6, blacklist: 'circle' },
        ],
        priceFeeds: {
          USDT: chainlinkUsd('0xECef79E109e997bCA29c1c0897ec9d7b03647F5E'),
          USDC: chainlinkUsd('0x16a9FA2FDa030272Ce99B29CF780dFA30361E0f3'),
        },
      },
      testnet: {
        chainId: 11155420,
        label: 'OP Sepolia',
        confirmations: 3,
        multicall3: MULTICALL3,
        explorerUrl: 'https://optimism-sepolia.blockscout.com',
        assets: [
          {
            symbol: 'USDC',
            name: 'USD Coin (testnet)',
            address: '0x5fd84259d66Cd46123540766Be93DFE6D43130D7',
            decimals: 6,
            blacklist: 'circle',
          },
        ],
      },
    },
  },

  // ------------------------------------------------------- Avalanche C-Chain
  {
    slug: 'avalanche',
    name: 'Avalanche C-Chain',
    symbol: 'AVAX',
    nativeDecimals: 18,
    derivationPath: EVM_DERIVATION_PATH,
    tokenStandard: 'ERC20',
    isEvmCompatible: true,
    isL2: false,
    logoUrl: TRUST_WALLET_LOGO('avalanchec'),
    networks: {
      mainnet: {
        chainId: 43114,
        label: 'Avalanche C-Chain',
        // Snowman consensus: a block is final once accepted (~1-2 s), and
        // nodes serve only accepted blocks by default. The small depth is a
        // margin against a misbehaving or lagging RPC node, not against reorgs.
        confirmations: 3,
        multicall3: MULTICALL3,
        sanctionsOracle: SANCTIONS_ORACLE,
        explorerUrl: 'https://snowtrace.io',
        // Tether- and Circle-native tokens. The Avalanche Bridge copies
        // "USDT.e" (0xc7198437980c041c805A1EDcbA50c1Ce5db95118) and "USDC.e"
        // (0xA7D7079b0FEaD91F3e65f86E8915Cb59c1a4C664) exist and are NOT listed.
        assets: [
          {
            symbol: 'USDT',
            name: 'Tether USD',
            address: '0x9702230A8Ea53601f5cD2dc00fDBc13d4dF4A8c7',
            decimals: 6,
            blacklist: 'tether-v2',
          },
          { symbol: 'USDC', name: 'USD Coin', address: '0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E', decimals: 6, blacklist: 'circle' },
        ],
        priceFeeds: {
          USDT: chainlinkUsd('0xEBE676ee90Fe1112671f19b6B7459bC678B67e8a'),
          USDC: chainlinkUsd('0xF096872672F44d6EBA71458D74fe67F9a77a23B9'),
        },
      },
      testnet: {
        chainId: 43113,
        label: 'Avalanche Fuji',
        confirmations: 1,
        multicall3: MULTICALL3,
        explorerUrl: 'https://testnet.snowtrace.io',
        assets: [
          {
            symbol: 'USDC',
            name: 'USD Coin (testnet)',
            address: '0x5425890298aed601595a70AB815c96711a31Bc65',
            decimals: 6,
            blacklist: 'circle',
          },
        ],
      },
    },
  },

  // -------------------------------------------------------------------- Celo
  {
    slug: 'celo',
    name: 'Celo',
    symbol: 'CELO',
    nativeDecimals: 18,
    derivationPath: EVM_DERIVATION_PATH,
    tokenStandard: 'ERC20',
    isEvmCompatible: true,
    // Celo stopped being an independent L1 on 26 March 2025 (block 31056500).
    // It is now an OP Stack L2 settling on Ethereum, so we mark it as an L2.
    isL2: true,
    logoUrl: TRUST_WALLET_LOGO('celo'),
    networks: {
      mainnet: {
        chainId: 42220,
        label: 'Celo Mainnet',
        // Celo's old L1 had instant BFT finality, and that is where the common
        // "1-3 confirmations" advice comes from. As an OP Stack L2 with 1 s
        // blocks it now has the same sequencer soft-confirmation model as Base
        // and OP, so we use a similar ~10 s buffer.
        confirmations: 10,
        multicall3: MULTICALL3,
        sanctionsOracle: SANCTIONS_ORACLE,
        explorerUrl: 'https://celoscan.io',
        // Both are issuer-native (Tether's USD₮ and Circle's USDC), as listed
        // on the Celo docs' stablecoin contracts page. Both have 6 decimals:
        // Celo's fee-currency allowlist reaches them through 18-decimal adapter
        // contracts, so do not confuse an adapter with the token itself.
        assets: [
          { symbol: 'USDT', name: 'Tether USD', address: '0x48065fbBE25f71C9282ddf5e1cD6D6A887483D5e', decimals: 6 },
          { symbol: 'USDC', name: 'USD Coin', address: '0xcebA9300f2b948710d2653dD7B07f33A8B32118C', decimals: 6, blacklist: 'circle' },
        ],
        priceFeeds: {
          USDT: chainlinkUsd('0x5e37AF40A7A344ec9b03CCD34a250F3dA9a20B02'),
          USDC: chainlinkUsd('0xc7A353BaE210aed958a1A2928b654938EC59DaB2'),
        },
      },
      testnet: {
        // Celo Sepolia replaced Alfajores (chain 44787), which was deprecated
        // in 2025 alongside the Holesky sunset. Chain id 11142220, the Blockscout
        // explorer and the token addresses below come from the Celo docs
        // (network overview and the stablecoin and fee-currency contract
        // tables).
        chainId: 11142220,
        label: 'Celo Sepolia',
        confirmations: 3,
        multicall3: MULTICALL3,
        explorerUrl: 'https://celo-sepolia.blockscout.com',
        // USDC: Circle's test USDC on Celo Sepolia.
        // USDT: the only testnet USDT in this catalogue. The Celo docs list it
        // with Tether as issuer, and it is in the fee-currency allowlist behind
        // a non-18-decimal adapter (so 6 decimals). We could not confirm it on
        // a Tether-published list. Drop it in the chains file if you only
        // want issuer-confirmed test tokens.
        assets: [
          { symbol: 'USDT', name: 'Tether USD (testnet)', address: '0xd077A400968890Eacc75cdc901F0356c943e4fDb', decimals: 6 },
          {
            symbol: 'USDC',
            name: 'USD Coin (testnet)',
            address: '0x01C5C0122039549AD1493B8220cABEdD739BC44E',
            decimals: 6,
            blacklist: 'circle',
          },
        ],
      },
    },
  },
];

/** A network with its default swap router, where swap-routers.ts lists one. */
const withRouter = (slug: string, network: NetworkName, data: CatalogueChain['networks'][NetworkName]) => {
  const router = SWAP_ROUTERS[slug]?.[network];
  return router ? { ...data, swapRouter: router } : data;
};

/** The EVM chains of the catalogue, deep-frozen. */
export const EVM_CATALOGUE: readonly CatalogueChain[] = deepFreeze(
  CATALOGUE_CHAINS.map((chain) => ({
    ...chain,
    family: 'evm',
    networks: {
      mainnet: withRouter(chain.slug, 'mainnet', chain.networks.mainnet),
      testnet: withRouter(chain.slug, 'testnet', chain.networks.testnet),
    },
  })),
);
