/**
 * The built-in catalogue's Solana entry: mainnet-beta and devnet (family `solana`, SPL tokens,
 * SOL with 9 decimals: lamports). Addresses are base58 mints (the Solana codec checks them
 * in test/config/catalogue.test.ts); see config/catalogue.ts for the shape.
 */
import { deepFreeze, type CatalogueChain } from '../../config/catalogue.js';

/** SLIP-44 coin type 501 (SOL), hardened to the end as Phantom and solana-keygen derive: m/44'/501'/i'/0'. */
const SOLANA_DERIVATION_PATH = "m/44'/501'";

export const SOLANA_CATALOGUE: readonly CatalogueChain[] = deepFreeze([
  {
    slug: 'solana',
    name: 'Solana',
    symbol: 'SOL',
    family: 'solana',
    nativeDecimals: 9,
    derivationPath: SOLANA_DERIVATION_PATH,
    tokenStandard: 'SPL',
    isEvmCompatible: false,
    isL2: false,
    logoUrl: 'https://raw.githubusercontent.com/trustwallet/assets/master/blockchains/solana/info/logo.png',
    networks: {
      mainnet: {
        // Solana transactions carry no chain id. 101 (mainnet-beta) and 103 (devnet) are the
        // numbers the Solana token list gave its clusters; they only name the chain in the
        // API's records.
        chainId: 101,
        label: 'Solana Mainnet Beta',
        // A Solana block is final once rooted, 32 slots behind the newest (the lockout):
        // deposits are confirmed at the node's `finalized` slot whatever this says (the
        // chains file's `finality` can accept `confirmed`); the outbound pipeline waits
        // this many slots.
        confirmations: 32,
        // Balances are read in one getMultipleAccounts round trip; there is no Multicall3.
        multicall3: null,
        explorerUrl: 'https://explorer.solana.com',
        // Both mints keep a freeze authority (Circle's, Tether's): an issuer's blacklist on
        // Solana is a frozen token account, which AML screening reads (`blacklist`).
        assets: [
          // Circle's USDC on Solana (Circle's USDC contract addresses page).
          { symbol: 'USDC', name: 'USD Coin', address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', decimals: 6, blacklist: 'circle' },
          // Tether's USDT on Solana (Tether's supported-protocols list).
          { symbol: 'USDT', name: 'Tether USD', address: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', decimals: 6, blacklist: 'tether' },
        ],
      },
      testnet: {
        chainId: 103,
        label: 'Solana Devnet',
        confirmations: 32,
        multicall3: null,
        explorerUrl: 'https://explorer.solana.com/?cluster=devnet',
        // The USDC Circle's faucet (faucet.circle.com) hands out on devnet. Tether publishes no
        // devnet USDT, so none is listed.
        assets: [
          {
            symbol: 'USDC',
            name: 'USD Coin (devnet)',
            address: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
            decimals: 6,
            blacklist: 'circle',
          },
        ],
      },
    },
  },
]);
