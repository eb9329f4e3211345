/**
 * USD price feeds on a devnet chain (contracts/DevnetPriceFeed.sol, Chainlink's
 * AggregatorV3Interface), so the service's rates come from a real contract read through
 * the same calls as on mainnet. Each feed sits at a fixed address derived from its asset's
 * symbol (installed with anvil_setCode, like Multicall3), owned by a devnet-only admin key
 * that tests use to move the price or post unhealthy rounds. Safe to run on every start.
 */
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  getAddress,
  http,
  keccak256,
  parseEther,
  parseUnits,
  toHex,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { loadArtifact } from './compile.js';
import { devnetChain } from './chain.js';

/** Devnet only: a key anyone can derive, so never fund it anywhere else. */
export const FEED_ADMIN_KEY: Hex = keccak256(toHex('stablecoin-wallet-service devnet price feed admin'));
/** Chainlink's USD feeds answer with 8 decimals; the devnet's do too. */
export const DEVNET_FEED_DECIMALS = 8;
/**
 * The devnet's staleness limit (the `heartbeat` in the chain's configuration). Nothing moves
 * a devnet price, so a long one keeps a long-running demo quoting; the check itself is the
 * same as on mainnet (tests post rounds older than this).
 */
export const DEVNET_FEED_HEARTBEAT = 30 * 86_400;

// Explicit, so a round can be sent before the `initialize` ahead of it is mined.
const FEED_GAS = 300_000n;

export interface DevnetFeedSpec {
  symbol: string;
  /** The first answer, a decimal string such as "1" or "0.9997". */
  price: string;
}

export interface DevnetFeed {
  symbol: string;
  address: Address;
}

export interface FeedRound {
  roundId: bigint;
  answer: bigint;
  startedAt: bigint;
  updatedAt: bigint;
  answeredInRound: bigint;
}

/** Where the devnet feed of `symbol` lives on any devnet chain. */
export function devnetFeedAddress(symbol: string): Address {
  return getAddress(keccak256(toHex(`stablecoin-wallet-service devnet price feed ${symbol} / USD`)).slice(0, 42));
}

function clients(rpcUrl: string, chainId: number) {
  const chain = devnetChain(chainId, rpcUrl);
  const transport = http(rpcUrl);
  const pollingInterval = 100;
  const account = privateKeyToAccount(FEED_ADMIN_KEY);
  return {
    pub: createPublicClient({ chain, transport, pollingInterval }) as PublicClient,
    test: createTestClient({ chain, transport, mode: 'anvil', pollingInterval }),
    admin: createWalletClient({ chain, transport, account, pollingInterval }),
    account,
  };
}

export async function provisionDevnetFeeds(opts: { rpcUrl: string; chainId: number; feeds: DevnetFeedSpec[] }): Promise<DevnetFeed[]> {
  if (opts.feeds.length === 0) return [];
  const { pub, test, admin, account } = clients(opts.rpcUrl, opts.chainId);
  const { abi, deployedBytecode } = await loadArtifact('DevnetPriceFeed');
  if ((await pub.getBalance({ address: account.address })) < parseEther('1')) {
    await test.setBalance({ address: account.address, value: parseEther('100') });
  }
  const now = (await pub.getBlock({ blockTag: 'latest' })).timestamp;
  let nonce = await pub.getTransactionCount({ address: account.address, blockTag: 'pending' });
  const sent: Hex[] = [];
  const send = async (functionName: string, args: unknown[], address: Address) => {
    sent.push(await admin.writeContract({ address, abi, functionName, args, nonce: nonce++, gas: FEED_GAS } as never));
  };
  const out: DevnetFeed[] = [];
  for (const spec of opts.feeds) {
    const address = devnetFeedAddress(spec.symbol);
    out.push({ symbol: spec.symbol, address });
    // Reinstalled when the code differs (a newer build); storage, and so the rounds, stay.
    if ((await pub.getCode({ address })) !== deployedBytecode) await test.setCode({ address, bytecode: deployedBytecode });
    const owner = (await pub.readContract({ address, abi, functionName: 'owner' })) as Address;
    if (owner === '0x0000000000000000000000000000000000000000') {
      await send('initialize', [account.address, DEVNET_FEED_DECIMALS, `${spec.symbol} / USD`], address);
      await send('setAnswer', [parseUnits(spec.price, DEVNET_FEED_DECIMALS)], address);
      continue;
    }
    // A chain state kept from an earlier run: the price stays what it was, but a round
    // older than half the heartbeat is posted again, as a live feed's heartbeat would.
    const latest = await latestRound(pub, address);
    if (!latest) await send('setAnswer', [parseUnits(spec.price, DEVNET_FEED_DECIMALS)], address);
    else if (now - latest.updatedAt > BigInt(DEVNET_FEED_HEARTBEAT / 2)) await send('setAnswer', [latest.answer], address);
  }
  for (const hash of sent) {
    const receipt = await pub.waitForTransactionReceipt({ hash, timeout: 60_000 });
    if (receipt.status !== 'success') throw new Error(`devnet feeds: transaction ${hash} reverted`);
  }
  return out;
}

async function latestRound(pub: PublicClient, address: Address): Promise<FeedRound | null> {
  const { abi } = await loadArtifact('DevnetPriceFeed');
  try {
    const [roundId, answer, startedAt, updatedAt, answeredInRound] = (await pub.readContract({
      address,
      abi,
      functionName: 'latestRoundData',
    })) as [bigint, bigint, bigint, bigint, bigint];
    return { roundId, answer, startedAt, updatedAt, answeredInRound };
  } catch {
    return null; // no round yet (the contract reverts NoDataPresent)
  }
}

/** The feed's latest round, as the chain holds it; null before the first one. */
export async function readDevnetFeed(rpcUrl: string, chainId: number, feed: string): Promise<FeedRound | null> {
  return latestRound(clients(rpcUrl, chainId).pub, feed as Address);
}

/** Posts a healthy new round with `price` (a decimal string, in USD) and waits until it is mined. */
export async function setDevnetFeedPrice(rpcUrl: string, chainId: number, feed: string, price: string): Promise<void> {
  await write(rpcUrl, chainId, feed, 'setAnswer', [parseUnits(price, DEVNET_FEED_DECIMALS)]);
}

/** Posts a round exactly as given (stale, carried over, non-positive) and waits until it is mined. */
export async function setDevnetFeedRound(rpcUrl: string, chainId: number, feed: string, round: FeedRound): Promise<void> {
  await write(rpcUrl, chainId, feed, 'setRoundData', [
    round.roundId,
    round.answer,
    round.startedAt,
    round.updatedAt,
    round.answeredInRound,
  ]);
}

async function write(rpcUrl: string, chainId: number, feed: string, functionName: string, args: unknown[]): Promise<void> {
  const { pub, admin } = clients(rpcUrl, chainId);
  const { abi } = await loadArtifact('DevnetPriceFeed');
  const hash = await admin.writeContract({ address: feed as Address, abi, functionName, args } as never);
  const receipt = await pub.waitForTransactionReceipt({ hash, timeout: 60_000, pollingInterval: 50 });
  if (receipt.status !== 'success') throw new Error(`devnet feed ${feed}: ${functionName} reverted`);
}
