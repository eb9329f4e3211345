/**
 * Checks a rule's values (after a PATCH is merged into the stored rule) against the
 * wallet's chain: assets that exist there, a valid destination address, min <= max in
 * decimals the assets have, a slippage below 100%, and a swap provider where the rule swaps.
 */
import { isZeroAddress } from '../../chains/registry.js';
import { BusinessRuleError, ValidationError, type FieldIssue } from '../../lib/errors.js';
import { parseAmount } from '../../lib/money.js';
import { tokenAt, type ChainHandle } from '../catalogue/service.js';
import { sameSymbol, type RuleDestination, type RuleSource } from './rules.js';
import type { RuleValues } from './store.js';

type AssetRow = ChainHandle['assets'][number];

export function assetBySymbol(chain: ChainHandle, symbol: string): AssetRow | undefined {
  return chain.assets.find((a) => a.is_active !== false && sameSymbol(a.symbol, symbol));
}

/** Returns the values with the destination address in canonical form. */
export function checkRule(chain: ChainHandle, v: RuleValues, canSwap: boolean): RuleValues {
  const issues: FieldIssue[] = [];
  const slug = chain.config.blockchain.slug;
  const { source, destination } = v;
  if (source.blockchain !== slug) issues.push({ field: 'source.blockchain', message: `must be "${slug}", the wallet's blockchain` });
  if (destination.blockchain !== slug)
    issues.push({ field: 'destination.blockchain', message: `must be "${slug}": cross-chain settlement is not supported` });

  const sourceAssets: AssetRow[] = [];
  source.assets.forEach((symbol, i) => {
    const a = assetBySymbol(chain, symbol);
    if (a) sourceAssets.push(a);
    else issues.push({ field: `source.assets.${i}`, message: `no asset "${symbol}" on ${slug}` });
  });
  const out = assetBySymbol(chain, destination.asset);
  if (!out) issues.push({ field: 'destination.asset', message: `no asset "${destination.asset}" on ${slug}` });
  const address = chain.adapter.normalizeAddress(destination.address);
  if (!address) issues.push({ field: 'destination.address', message: `not a valid ${slug} address` });
  // The family's all-zero (burn, system) address: what is settled there is lost.
  else if (isZeroAddress(chain.config, address))
    issues.push({ field: 'destination.address', message: 'is the zero address; funds sent there are lost' });
  else {
    const token = tokenAt(chain, address);
    if (token) issues.push({ field: 'destination.address', message: `is the contract of ${token.symbol}; funds sent there are lost` });
  }
  if (Number(v.slippageTolerance) >= 100) issues.push({ field: 'slippageTolerance', message: 'must be below 100 (percent)' });
  issues.push(...boundIssues(source, sourceAssets));
  if (issues.length) throw new ValidationError(`${issues[0]!.field}: ${issues[0]!.message}`, issues);

  const swaps = sourceAssets.filter((a) => a.id !== out!.id);
  if (swaps.length > 0) {
    if (out!.is_native || swaps.some((a) => a.is_native))
      throw new ValidationError('swaps between the native coin and tokens are not supported; use token assets only', [
        { field: 'destination.asset', message: 'a swap needs token assets on both sides' },
      ]);
    if (!canSwap)
      throw new BusinessRuleError(
        'SWAP_NOT_AVAILABLE',
        `No swap router is configured for ${slug}; the rule's assets must equal its destination asset`,
      );
  }
  return { ...v, destination: { ...destination, address: address! } satisfies RuleDestination };
}

/** min and max in every source asset's decimals, and min <= max. */
function boundIssues(source: RuleSource, assets: AssetRow[]): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const decimals = assets.length ? Math.min(...assets.map((a) => a.decimals)) : 36;
  const parse = (text: string, field: string): bigint | null => {
    try {
      return parseAmount(text, decimals, field);
    } catch (err) {
      issues.push({ field, message: (err as ValidationError).details?.[0]?.message ?? 'invalid amount' });
      return null;
    }
  };
  const min = parse(source.minAmount, 'source.minAmount');
  const max = source.maxAmount === null ? null : parse(source.maxAmount, 'source.maxAmount');
  if (min !== null && max !== null && min > max) issues.push({ field: 'source.maxAmount', message: 'must not be below source.minAmount' });
  return issues;
}
