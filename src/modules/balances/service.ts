/**
 * Balances, read on chain (one Multicall3 round trip per request), never from a cache or
 * a float. An address filter must be one of the wallet's own addresses.
 *
 * What is cached is only what the read needs to know before going on chain: the wallet's
 * immutable identity and its enabled assets (invalidated at COMMIT of any change, in every
 * process; see docs/architecture.md "Caching"). The amounts themselves are always read.
 */
import type { Static } from '@sinclair/typebox';
import { formatAmount } from '../../lib/money.js';
import { BusinessRuleError, NotFoundError } from '../../lib/errors.js';
import type { AuthContext } from '../apikeys/service.js';
import type { AddressService } from '../addresses/service.js';
import type { EnabledAsset, WalletAssetService } from '../assets/service.js';
import type { WalletRef, WalletService } from '../wallets/service.js';
import type { RateService } from '../rates/service.js';
import { usdValue } from '../rates/service.js';
import type { BalanceSchema } from './schemas.js';
import { addressKey } from '../../chains/address-key.js';

export type BalanceView = Static<typeof BalanceSchema>;

export class BalanceService {
  constructor(
    private readonly wallets: WalletService,
    private readonly addresses: AddressService,
    private readonly walletAssets: WalletAssetService,
    private readonly rates?: RateService,
  ) {}

  /**
   * One entry: the asset `assetId` names, or without it the chain's native coin (enabled on
   * the wallet or not), as the described service answers `GET .../balance`.
   */
  async one(auth: AuthContext, walletId: string, assetId: string | undefined, addressId?: string): Promise<BalanceView> {
    if (assetId !== undefined) {
      const [entry] = addressId
        ? await this.ofAddress(auth, walletId, addressId, assetId)
        : await this.ofWallet(auth, walletId, { assetId });
      return entry!;
    }
    const { wallet, owner } = addressId
      ? await this.addresses.require(auth, walletId, addressId).then(({ wallet, address }) => ({ wallet, owner: address.address }))
      : await this.wallets.requireRef(auth, walletId).then((wallet) => ({ wallet, owner: wallet.address }));
    const native = await this.walletAssets.nativeEntry(wallet);
    if (!native) throw new NotFoundError('Asset');
    // convertedBalance from the same rate source as the list (null without a rate).
    const [[amount], quote] = await Promise.all([
      this.wallets.chainOf(wallet).adapter.getBalances([{ owner, token: null }]),
      this.rates?.usd(native.asset) ?? null,
    ]);
    const units = amount ?? 0n;
    const convertedBalance = quote ? usdValue(units, native.asset.row.decimals, quote) : null;
    return { asset: native.view, balance: formatAmount(units, native.asset.row.decimals), convertedBalance };
  }

  /** Balances of the master address, or of `address` when given (one of the wallet's). */
  async ofWallet(auth: AuthContext, walletId: string, filter: { address?: string; assetId?: string }): Promise<BalanceView[]> {
    const wallet = await this.wallets.requireRef(auth, walletId);
    const owner = filter.address ? await this.ownAddress(wallet, filter.address) : wallet.address;
    return this.read(wallet, owner, filter.assetId);
  }

  async ofAddress(auth: AuthContext, walletId: string, addressId: string, assetId?: string): Promise<BalanceView[]> {
    const { wallet, address } = await this.addresses.require(auth, walletId, addressId);
    return this.read(wallet, address.address, assetId);
  }

  private async read(wallet: WalletRef, owner: string, assetId: string | undefined): Promise<BalanceView[]> {
    let assets: readonly EnabledAsset[];
    if (assetId) {
      const one = await this.walletAssets.findEnabled(wallet, assetId);
      if (!one) {
        // Unknown, or of another chain: as unknown as a made-up id (404). An asset of this
        // wallet's chain that is switched off is a business rule (422).
        if (!(await this.walletAssets.belongsToChain(wallet, assetId))) throw new NotFoundError('Asset');
        throw new BusinessRuleError('ASSET_NOT_ENABLED', 'This asset is not enabled on the wallet');
      }
      assets = [one];
    } else {
      assets = await this.walletAssets.enabledCached(wallet);
    }
    const chain = this.wallets.chainOf(wallet);
    // convertedBalance: the USD value at the rate source's quote (rates/service.ts; cached
    // for a few seconds, so a balance read seldom waits on a feed); null without a rate.
    const [amounts, quotes] = await Promise.all([
      chain.adapter.getBalances(assets.map((a) => ({ owner, token: a.asset.row.is_native ? null : a.asset.row.address }))),
      Promise.all(assets.map((a) => this.rates?.usd(a.asset) ?? null)),
    ]);
    return assets.map((a, i) => {
      const units = amounts[i] ?? 0n;
      const quote = quotes[i];
      const convertedBalance = quote ? usdValue(units, a.asset.row.decimals, quote) : null;
      return { asset: a.view, balance: formatAmount(units, a.asset.row.decimals), convertedBalance };
    });
  }

  private async ownAddress(wallet: WalletRef, input: string): Promise<string> {
    // Parsed as every address a client sends is (any single letter case; mixed case must
    // carry a valid EIP-55 checksum); one that does not parse is none of the wallet's.
    const address = this.wallets.chainOf(wallet).adapter.normalizeAddress(input);
    if (!address) throw new NotFoundError('Address');
    if (addressKey(address) === addressKey(wallet.address)) return wallet.address;
    const row = await this.addresses.findByAddress(wallet.id, address);
    if (!row) throw new NotFoundError('Address');
    return row.address;
  }
}
