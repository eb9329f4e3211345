/**
 * AML lists on an EVM devnet, so every screening rule can be tried end to end: a sanctions
 * oracle (contracts/DevnetSanctionsList.sol, the SanctionsList oracle's interface) at a fixed
 * address on every devnet chain, installed with anvil_setCode like Multicall3 and owned by
 * the faucet; and the issuers' blacklists of the test tokens (contracts/TestToken.sol), which
 * the faucet, their minter, manages. Tests and users list and unlist addresses with the
 * helpers below (the faucet's key is in credentials.json). Safe to run on every start.
 */
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  getAddress,
  http,
  keccak256,
  toHex,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { BlacklistKind } from '../config/index.js';
import { loadArtifact } from './compile.js';
import { ANVIL_DEFAULT_PRIVATE_KEY, devnetChain } from './chain.js';

/** Where the devnet sanctions oracle lives on every EVM devnet chain. */
export const DEVNET_SANCTIONS_ORACLE: Address = getAddress(
  keccak256(toHex('stablecoin-wallet-service devnet sanctions oracle')).slice(0, 42),
);

/** Explicit, so a call can be sent before the one ahead of it is mined. */
const GAS = 300_000n;

function clients(rpcUrl: string, chainId: number, key: Hex = ANVIL_DEFAULT_PRIVATE_KEY) {
  const chain = devnetChain(chainId, rpcUrl);
  const transport = http(rpcUrl);
  const account = privateKeyToAccount(key);
  return {
    pub: createPublicClient({ chain, transport, pollingInterval: 50 }) as PublicClient,
    test: createTestClient({ chain, transport, mode: 'anvil', pollingInterval: 50 }),
    wallet: createWalletClient({ chain, transport, account, pollingInterval: 50 }),
    account,
  };
}

/** Installs the oracle (owned by the faucet) unless it is there; returns its address. */
export async function provisionDevnetSanctions(opts: { rpcUrl: string; chainId: number; faucetPrivateKey?: Hex }): Promise<Address> {
  const { pub, test, wallet, account } = clients(opts.rpcUrl, opts.chainId, opts.faucetPrivateKey);
  const { abi, deployedBytecode } = await loadArtifact('DevnetSanctionsList');
  // Reinstalled when the code differs (a newer build); storage, and so the list, stays.
  if ((await pub.getCode({ address: DEVNET_SANCTIONS_ORACLE })) !== deployedBytecode)
    await test.setCode({ address: DEVNET_SANCTIONS_ORACLE, bytecode: deployedBytecode });
  const owner = (await pub.readContract({ address: DEVNET_SANCTIONS_ORACLE, abi, functionName: 'owner' })) as Address;
  if (owner === '0x0000000000000000000000000000000000000000') {
    const hash = await wallet.writeContract({
      address: DEVNET_SANCTIONS_ORACLE,
      abi,
      functionName: 'initialize',
      args: [account.address],
      gas: GAS,
    } as never);
    const receipt = await pub.waitForTransactionReceipt({ hash, timeout: 60_000 });
    if (receipt.status !== 'success') throw new Error('devnet sanctions oracle: initialize reverted');
  }
  return DEVNET_SANCTIONS_ORACLE;
}

/** Whether a token answers an issuer's blacklist read (a devnet chain whose state predates them does not). */
export async function keepsBlacklist(rpcUrl: string, chainId: number, token: string): Promise<boolean> {
  const { pub } = clients(rpcUrl, chainId);
  const { abi } = await loadArtifact('TestToken');
  try {
    await pub.readContract({ address: token as Address, abi, functionName: 'isBlacklisted', args: [DEVNET_SANCTIONS_ORACLE] });
    return true;
  } catch {
    return false;
  }
}

/** The blacklist a devnet test token is configured with: USDT keeps Tether's, USDC Circle's (the token answers both). */
export function devnetBlacklistOf(symbol: string): BlacklistKind | undefined {
  return symbol === 'USDT' ? 'tether' : symbol === 'USDC' ? 'circle' : undefined;
}

/** Adds (or removes) addresses on the devnet oracle's list, as its owner (the faucet); waits until mined. */
export async function setDevnetSanctioned(rpcUrl: string, chainId: number, addresses: string[], listed = true): Promise<void> {
  const { abi } = await loadArtifact('DevnetSanctionsList');
  await write(rpcUrl, chainId, DEVNET_SANCTIONS_ORACLE, abi, listed ? 'addToSanctionsList' : 'removeFromSanctionsList', [addresses]);
}

/** Adds (or removes) an address on a devnet token's issuer blacklist, as its minter (the faucet); waits until mined. */
export async function setDevnetBlacklisted(rpcUrl: string, chainId: number, token: string, address: string, listed = true): Promise<void> {
  const { abi } = await loadArtifact('TestToken');
  await write(rpcUrl, chainId, token as Address, abi, listed ? 'addBlackList' : 'removeBlackList', [address]);
}

async function write(rpcUrl: string, chainId: number, to: Address, abi: unknown, functionName: string, args: unknown[]): Promise<void> {
  const { pub, wallet } = clients(rpcUrl, chainId);
  const hash = await wallet.writeContract({ address: to, abi, functionName, args, gas: GAS } as never);
  const receipt = await pub.waitForTransactionReceipt({ hash, timeout: 60_000 });
  if (receipt.status !== 'success') throw new Error(`devnet ${functionName} on ${to} reverted`);
}
