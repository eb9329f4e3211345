import type { RequestBody } from '../core/operations.js';
import type { RequestOptions } from '../core/transport.js';
import { Resource } from './resource.js';

type Rule = RequestBody<'POST /v1/wallets/{walletId}/auto-settlements/rules'>;
type RulePatch = RequestBody<'PATCH /v1/wallets/{walletId}/auto-settlements/rules/{id}'>;

/** Auto-settlement: the wallet's (or a child address's) switch and its rules. */
export class AutoSettlements extends Resource {
  get(walletId: string, opts?: RequestOptions) {
    return this.data('GET /v1/wallets/{walletId}/auto-settlements', { path: { walletId } }, opts);
  }

  update(walletId: string, body: RequestBody<'PATCH /v1/wallets/{walletId}/auto-settlements'>, opts?: RequestOptions) {
    return this.data('PATCH /v1/wallets/{walletId}/auto-settlements', { path: { walletId }, body }, opts);
  }

  listRules(walletId: string, opts?: RequestOptions) {
    return this.data('GET /v1/wallets/{walletId}/auto-settlements/rules', { path: { walletId } }, opts);
  }

  createRule(walletId: string, body: Rule, opts?: RequestOptions) {
    return this.data('POST /v1/wallets/{walletId}/auto-settlements/rules', { path: { walletId }, body }, opts);
  }

  getRule(walletId: string, id: string, opts?: RequestOptions) {
    return this.data('GET /v1/wallets/{walletId}/auto-settlements/rules/{id}', { path: { walletId, id } }, opts);
  }

  updateRule(walletId: string, id: string, body: RulePatch, opts?: RequestOptions) {
    return this.data('PATCH /v1/wallets/{walletId}/auto-settlements/rules/{id}', { path: { walletId, id }, body }, opts);
  }

  deleteRule(walletId: string, id: string, opts?: RequestOptions) {
    return this.data('DELETE /v1/wallets/{walletId}/auto-settlements/rules/{id}', { path: { walletId, id } }, opts);
  }

  getForAddress(walletId: string, addressId: string, opts?: RequestOptions) {
    return this.data('GET /v1/wallets/{walletId}/addresses/{addressId}/auto-settlements', { path: { walletId, addressId } }, opts);
  }

  updateForAddress(
    walletId: string,
    addressId: string,
    body: RequestBody<'PATCH /v1/wallets/{walletId}/addresses/{addressId}/auto-settlements'>,
    opts?: RequestOptions,
  ) {
    return this.data('PATCH /v1/wallets/{walletId}/addresses/{addressId}/auto-settlements', { path: { walletId, addressId }, body }, opts);
  }

  listAddressRules(walletId: string, addressId: string, opts?: RequestOptions) {
    return this.data('GET /v1/wallets/{walletId}/addresses/{addressId}/auto-settlements/rules', { path: { walletId, addressId } }, opts);
  }

  createAddressRule(walletId: string, addressId: string, body: Rule, opts?: RequestOptions) {
    return this.data(
      'POST /v1/wallets/{walletId}/addresses/{addressId}/auto-settlements/rules',
      { path: { walletId, addressId }, body },
      opts,
    );
  }

  getAddressRule(walletId: string, addressId: string, id: string, opts?: RequestOptions) {
    return this.data(
      'GET /v1/wallets/{walletId}/addresses/{addressId}/auto-settlements/rules/{id}',
      { path: { walletId, addressId, id } },
      opts,
    );
  }

  updateAddressRule(walletId: string, addressId: string, id: string, body: RulePatch, opts?: RequestOptions) {
    return this.data(
      'PATCH /v1/wallets/{walletId}/addresses/{addressId}/auto-settlements/rules/{id}',
      { path: { walletId, addressId, id }, body },
      opts,
    );
  }

  deleteAddressRule(walletId: string, addressId: string, id: string, opts?: RequestOptions) {
    return this.data(
      'DELETE /v1/wallets/{walletId}/addresses/{addressId}/auto-settlements/rules/{id}',
      { path: { walletId, addressId, id } },
      opts,
    );
  }
}
