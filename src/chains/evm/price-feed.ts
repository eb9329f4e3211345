/**
 * Reading token metadata and price feeds on EVM chains: ERC-20 decimals() and Chainlink's
 * AggregatorV3Interface (latestRoundData(), decimals()). An address that does not answer
 * as asked (no contract, a revert, an answer that does not decode) is `null`: a fact about
 * the address, for the caller to judge. A node that cannot be reached is an error.
 */
import {
  AbiDecodingDataSizeTooSmallError,
  AbiDecodingZeroDataError,
  BaseError,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  ExecutionRevertedError,
  InvalidBytesBooleanError,
  erc20Abi,
  type Address,
  type PublicClient,
} from 'viem';
import type { PriceFeedRound } from '../types.js';

export const aggregatorV3Abi = [
  {
    type: 'function',
    name: 'decimals',
    stateMutability: 'view',
    inputs: [],
    outputs: [{ name: '', type: 'uint8' }],
  },
  {
    type: 'function',
    name: 'latestRoundData',
    stateMutability: 'view',
    inputs: [],
    outputs: [
      { name: 'roundId', type: 'uint80' },
      { name: 'answer', type: 'int256' },
      { name: 'startedAt', type: 'uint256' },
      { name: 'updatedAt', type: 'uint256' },
      { name: 'answeredInRound', type: 'uint80' },
    ],
  },
] as const;

/** The address answered, but not as a contract with this function would. */
function noAnswer(err: unknown): boolean {
  if (!(err instanceof BaseError)) return false;
  return (
    err.walk(
      (e) =>
        e instanceof ContractFunctionZeroDataError ||
        e instanceof ContractFunctionRevertedError ||
        e instanceof ExecutionRevertedError ||
        e instanceof AbiDecodingZeroDataError ||
        e instanceof AbiDecodingDataSizeTooSmallError ||
        e instanceof InvalidBytesBooleanError,
    ) !== null
  );
}

async function orNull<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (err) {
    if (noAnswer(err)) return null;
    throw err;
  }
}

/** decimals() of an ERC-20; null when the address does not answer it, or answers a word no uint8 holds (as Tron's adapter). */
export function readTokenDecimals(client: PublicClient, token: string): Promise<number | null> {
  return orNull(async () => {
    const decimals = Number(await client.readContract({ address: token as Address, abi: erc20Abi, functionName: 'decimals' }));
    return Number.isInteger(decimals) && decimals >= 0 && decimals <= 255 ? decimals : null;
  });
}

export async function readPriceFeed(client: PublicClient, feed: string): Promise<PriceFeedRound | null> {
  const address = feed as Address;
  let decimals: number | null;
  let round: readonly [bigint, bigint, bigint, bigint, bigint] | null;
  if (client.chain?.contracts?.multicall3) {
    // One round trip, and both answers from the same block (the answer with its own decimals).
    const [d, r] = await client.multicall({
      contracts: [
        { address, abi: aggregatorV3Abi, functionName: 'decimals' },
        { address, abi: aggregatorV3Abi, functionName: 'latestRoundData' },
      ],
      allowFailure: true,
    });
    // viem reports a failed multicall as failed calls too: only the feed's own failures are "no answer".
    for (const failed of [d, r]) if (failed.status === 'failure' && !noAnswer(failed.error)) throw failed.error;
    decimals = d.status === 'success' ? d.result : null;
    round = r.status === 'success' ? r.result : null;
  } else {
    [decimals, round] = await Promise.all([
      orNull(() => client.readContract({ address, abi: aggregatorV3Abi, functionName: 'decimals' })),
      orNull(() => client.readContract({ address, abi: aggregatorV3Abi, functionName: 'latestRoundData' })),
    ]);
  }
  if (decimals === null || round === null) return null;
  const [roundId, answer, startedAt, updatedAt, answeredInRound] = round;
  return { roundId, answer, decimals, startedAt: seconds(startedAt), updatedAt: seconds(updatedAt), answeredInRound };
}

/** Timestamps past any plausible date are capped; the rate checks refuse them as future rounds. */
function seconds(value: bigint): number {
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
}
