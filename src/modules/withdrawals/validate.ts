/**
 * Turning a withdrawal request into checked items, before anything is read from the chain
 * or written: the request's shape (single or batch), amounts, destinations and assets.
 * Every item is checked; the first problem rejects the whole request.
 */
import { addressFormOf, lostDestination } from '../../chains/registry.js';
import { BusinessRuleError, NotFoundError, ValidationError } from '../../lib/errors.js';
import { parseAmount } from '../../lib/money.js';
import type { EnabledAsset, WalletAssetService } from '../assets/service.js';
import { tokenAt, type ChainHandle } from '../catalogue/service.js';
import type { WalletRow } from '../wallets/service.js';
import type { WithdrawBody } from './schemas.js';
import { addressKey } from '../../chains/address-key.js';

export interface Item {
  asset: EnabledAsset;
  /** Canonical destination (EIP-55 on EVM). */
  to: string;
  /** Base units, > 0. */
  amount: bigint;
  reference: string | null;
  note: string | null;
  metadata: Record<string, unknown> | null;
  /** Where the item sits in the request body, for error details ("amount", "assets.2.amount"). */
  field: string;
  /** The destination's AML screening (modules/aml), once screened: stored as the Transaction's amlScreening. */
  aml?: Record<string, unknown>;
}

interface RawItem {
  assetId: string;
  amount: string;
  address: string;
  reference: string | null;
  note: string | null;
  metadata: Record<string, unknown> | null;
  field: string;
}

const at = (prefix: string, name: string) => (prefix ? `${prefix}.${name}` : name);
const bad = (field: string, message: string) => new ValidationError(`${field} ${message}`, [{ field, message }]);

/**
 * A withdrawal amount: a plain decimal string (no sign, exponent or spaces), at most the
 * asset's decimals, greater than 0 and at most a uint256. Exported for the property test.
 */
export function parseWithdrawalAmount(input: string, decimals: number, field = 'amount'): bigint {
  const units = parseAmount(input, decimals, field);
  if (units === 0n) throw bad(field, 'must be greater than 0');
  return units;
}

/** The request's items in order: the top-level fields, or `assets`; never a mix of the two. */
export function rawItems(body: WithdrawBody): RawItem[] {
  const single = (['assetId', 'address', 'amount'] as const).filter((k) => body[k] !== undefined);
  if (body.assets) {
    if (single.length > 0) throw bad(single[0]!, 'cannot be combined with assets (a batch gives them per item)');
    if (body.reference !== undefined) throw bad('reference', 'cannot be used with assets: give each item its own reference');
    const items = body.assets.map((a, i) => ({
      assetId: a.id,
      amount: a.amount,
      address: a.address,
      reference: a.reference ?? null,
      note: a.note ?? body.note ?? null,
      metadata: a.metadata ?? body.metadata ?? null,
      field: `assets.${i}`,
    }));
    const seen = new Map<string, number>();
    for (const [i, item] of items.entries()) {
      if (item.reference === null) continue;
      if (seen.has(item.reference)) throw bad(`assets.${i}.reference`, `repeats the reference of assets.${seen.get(item.reference)}`);
      seen.set(item.reference, i);
    }
    return items;
  }
  const missing = (['assetId', 'address', 'amount'] as const).find((k) => body[k] === undefined);
  if (missing) throw bad(missing, 'is required (or send a batch in assets)');
  return [
    {
      assetId: body.assetId!,
      amount: body.amount!,
      address: body.address!,
      reference: body.reference ?? null,
      note: body.note ?? null,
      metadata: body.metadata ?? null,
      field: '',
    },
  ];
}

/** Resolves assets and checks amounts and destinations of every item. */
export async function checkItems(
  walletAssets: WalletAssetService,
  wallet: WalletRow,
  chain: ChainHandle,
  sender: string,
  body: WithdrawBody,
): Promise<Item[]> {
  const raw = rawItems(body);
  // From memory when recently read: enabling or disabling an asset invalidates the cached
  // list in every process at its COMMIT (assets/service.ts), so a request can only see the
  // state a request arriving a moment earlier would have seen.
  const enabled = await walletAssets.enabledCached(wallet);
  const items: Item[] = [];
  for (const r of raw) {
    // Compared as text: the schema's Uuid handed the id on in lower case, as the database writes it (lib/ajv.ts).
    const asset = enabled.find((e) => e.walletAsset.id === r.assetId || e.asset.row.id === r.assetId);
    const assetField = at(r.field, r.field ? 'id' : 'assetId');
    if (!asset) {
      // Unknown or of another chain: as unknown as a made-up id (404). An asset of this
      // wallet's chain that is not enabled on it is a business rule (422), as for balances.
      if (!(await walletAssets.belongsToChain(wallet, r.assetId))) throw new NotFoundError(`Asset ${r.assetId}`);
      throw new BusinessRuleError('ASSET_NOT_ENABLED', `${assetField}: this asset is not enabled on the wallet`, [
        { field: assetField, message: 'not enabled on the wallet' },
      ]);
    }
    const amount = parseWithdrawalAmount(r.amount, asset.asset.row.decimals, at(r.field, 'amount'));
    const addressField = at(r.field, 'address');
    const to = chain.adapter.normalizeAddress(r.address);
    if (!to) throw bad(addressField, `is not a valid ${chain.config.blockchain.name} address (${addressFormOf(chain.config)})`);
    const lost = lostDestination(chain.config, to);
    if (lost) throw bad(addressField, lost);
    // A token's contract (or mint) takes what is sent to it and has no way to give it back.
    const token = tokenAt(chain, to);
    if (token) throw bad(addressField, `is the contract of ${token.symbol}; funds sent there are lost`);
    if (addressKey(to) === addressKey(sender)) {
      throw new BusinessRuleError('SAME_ADDRESS', `${addressField}: the destination is the sending address itself`, [
        { field: addressField, message: 'is the sender' },
      ]);
    }
    items.push({ asset, to, amount, reference: r.reference, note: r.note, metadata: r.metadata, field: r.field });
  }
  return items;
}
