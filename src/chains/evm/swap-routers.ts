/**
 * Well-known Uniswap V2 Router02 deployments, the default swap router of catalogue chains
 * (override or switch off with `swapRouter` in the chains file). Source: Uniswap's "V2
 * Deployment Addresses" page (docs.uniswap.org/contracts/v2/reference/smart-contracts/
 * v2-deployments). Each router exposes `WETH()`, which the service reads for routes through
 * the wrapped native coin. On BNB Smart Chain most liquidity sits in PancakeSwap V2
 * (Router 0x10ED43C718714eb63d5aA57B78B54704E256024E, same interface): set it in the chains
 * file to use it. Celo has no V2 deployment listed. Pure data (the EVM catalogue, catalogue.ts, takes each network's); checksums are
 * checked by test/autosettlements/swap-contract.test.ts.
 */
import type { NetworkName } from '../../config/catalogue.js';

const UNISWAP_V2_ROUTER02: Record<string, Partial<Record<NetworkName, `0x${string}`>>> = {
  ethereum: { mainnet: '0x7a250d5630B4cF539739dF2C5dAcb4c659F2488D', testnet: '0xeE567Fe1712Faf6149d80dA1E6934E354124CfE3' },
  arbitrum: { mainnet: '0x4752ba5DBc23f44D87826276BF6Fd6b1C372aD24' },
  avalanche: { mainnet: '0x4752ba5DBc23f44D87826276BF6Fd6b1C372aD24' },
  bsc: { mainnet: '0x4752ba5DBc23f44D87826276BF6Fd6b1C372aD24' },
  base: { mainnet: '0x4752ba5DBc23f44D87826276BF6Fd6b1C372aD24' },
  optimism: { mainnet: '0x4A7b5Da61326A6379179b40d00F57E5bbDC962c2' },
  polygon: { mainnet: '0xedf6066a2b290C185783862C7F4776A2C8077AD1' },
};

export const SWAP_ROUTERS: Readonly<typeof UNISWAP_V2_ROUTER02> = Object.freeze(UNISWAP_V2_ROUTER02);
