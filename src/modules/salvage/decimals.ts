/**
 * An unlisted token's decimals, read on chain (service.ts on a configured chain, foreign.ts on
 * one named by rpcUrl). The contract is anyone's and, on a foreign chain, the node is the
 * client's: decimals() is a uint8 in the ABI but any word on the wire, and the decoder passes
 * it through. More than 77 is no amount this service can count (a uint256 holds 78 digits;
 * transactions.amount_decimals is 0 to 77): a billion made the amount parser build a
 * billion-character string, a hundred broke the Transaction's insert. Such a contract is
 * answered as no token.
 */
import type { ChainAdapter } from '../../chains/types.js';

const MAX_DECIMALS = 77;

/** The token's decimals, or null when it answers none this service can count. */
export async function tokenDecimals(adapter: ChainAdapter, token: string): Promise<number | null> {
  const decimals = await adapter.readTokenDecimals(token);
  return decimals !== null && Number.isInteger(decimals) && decimals >= 0 && decimals <= MAX_DECIMALS ? decimals : null;
}
