/**
 * The built-in catalogue's Tron entry: mainnet and the Nile testnet (family `tron`, TRC-20
 * tokens, TRX with 6 decimals). Addresses are base58check `T…` (the Tron codec checks their
 * checksums in config.test.ts); see config/catalogue.ts for the shape.
 */
import { deepFreeze, type CatalogueChain } from '../../config/catalogue.js';

/** SLIP-44 coin type 195 (TRX), as TronLink and tronweb derive: m/44'/195'/0'/0/i. */
const TRON_DERIVATION_PATH = "m/44'/195'/0'/0";

export const TRON_CATALOGUE: readonly CatalogueChain[] = deepFreeze([
  {
    slug: 'tron',
    name: 'Tron',
    symbol: 'TRX',
    family: 'tron',
    nativeDecimals: 6,
    derivationPath: TRON_DERIVATION_PATH,
    tokenStandard: 'TRC20',
    isEvmCompatible: false,
    isL2: false,
    logoUrl: 'https://raw.githubusercontent.com/trustwallet/assets/master/blockchains/tron/info/logo.png',
    networks: {
      mainnet: {
        // The TVM's CHAINID on mainnet (0x2b6653dc): Tron transactions carry no chain id,
        // this one only names the chain in the API's records.
        chainId: 728_126_428,
        label: 'Tron Mainnet',
        // A Tron block is final once solidified, 19 blocks behind the head (2/3 of the 27
        // super representatives built on it): depth 20 with the head's block counting 1.
        // Deposits are confirmed at the node's solidified block whatever this says; the
        // outbound pipeline (withdrawals, sweeps) waits for this depth.
        confirmations: 20,
        // No Multicall3 is published for Tron: balances are read one constant call each.
        multicall3: null,
        explorerUrl: 'https://tronscan.org',
        assets: [
          // Tether's USDT on TRON (Tether's supported-protocols list; the most used stablecoin contract on any chain).
          // The same TetherToken code as Ethereum's: its blacklist answers isBlackListed (AML screening).
          { symbol: 'USDT', name: 'Tether USD', address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', decimals: 6, blacklist: 'tether' },
          // Circle's USDC on TRON. Circle stopped minting it in 2024 and supports redemptions only;
          // the contract is still Circle's, so deposits of it are credited as USDC (and its
          // FiatToken blacklist is read by AML screening).
          { symbol: 'USDC', name: 'USD Coin', address: 'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8', decimals: 6, blacklist: 'circle' },
        ],
      },
      testnet: {
        // Nile's CHAINID (0xcd8690dc).
        chainId: 3_448_148_188,
        label: 'Nile',
        confirmations: 20,
        multicall3: null,
        explorerUrl: 'https://nile.tronscan.org',
        // The test USDT the Nile faucet (nileex.io) hands out. Circle publishes no Nile USDC.
        assets: [{ symbol: 'USDT', name: 'Tether USD (Nile)', address: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf', decimals: 6 }],
      },
    },
  },
]);
