/**
 * The client: one object per API key, with a field per group of operations, grouped as
 * the API reference (/docs) groups them.
 *
 *   const client = new WalletClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: process.env.WALLET_API_KEY! });
 *   const address = await client.addresses.create(walletId, { name: 'customer-42' });
 *   for await (const tx of client.transactions.list(walletId, { status: 'SUCCESS' })) console.log(tx.hash);
 *   for await (const event of client.events.stream({ types: ['deposit.success'] })) console.log(event.data.amount);
 */
import { Transport, type ClientOptions } from './core/transport.js';
import { Addresses } from './resources/addresses.js';
import { Aml } from './resources/aml.js';
import { ApiKeys } from './resources/api-keys.js';
import { Approvals } from './resources/approvals.js';
import { Assets } from './resources/assets.js';
import { AutoSettlements } from './resources/auto-settlements.js';
import { Balances } from './resources/balances.js';
import { Beneficiaries } from './resources/beneficiaries.js';
import { Blockchains } from './resources/catalogue.js';
import { Contracts } from './resources/contracts.js';
import { Deposits } from './resources/deposits.js';
import { Policies } from './resources/policies.js';
import { Events } from './resources/events.js';
import { Checkouts, PaymentLinks } from './resources/payment-links.js';
import { Salvage } from './resources/salvage.js';
import { Signing } from './resources/signing.js';
import { Staking } from './resources/staking.js';
import { Swaps } from './resources/swaps.js';
import { Transactions } from './resources/transactions.js';
import { Wallets } from './resources/wallets.js';
import { Webhooks } from './resources/webhooks.js';
import { Withdrawals } from './resources/withdrawals.js';

export class WalletClient {
  /** The HTTP core (`transport.call('GET /v1/…', …)` reaches any operation by its name). */
  readonly transport: Transport;
  readonly blockchains: Blockchains;
  readonly wallets: Wallets;
  readonly addresses: Addresses;
  readonly assets: Assets;
  readonly balances: Balances;
  readonly transactions: Transactions;
  readonly deposits: Deposits;
  readonly withdrawals: Withdrawals;
  readonly signing: Signing;
  readonly contracts: Contracts;
  readonly webhooks: Webhooks;
  readonly autoSettlements: AutoSettlements;
  readonly beneficiaries: Beneficiaries;
  readonly apiKeys: ApiKeys;
  readonly events: Events;
  readonly aml: Aml;
  readonly policies: Policies;
  readonly approvals: Approvals;
  readonly paymentLinks: PaymentLinks;
  readonly checkouts: Checkouts;
  readonly swaps: Swaps;
  readonly salvage: Salvage;
  readonly staking: Staking;

  constructor(opts: ClientOptions) {
    const t = (this.transport = new Transport(opts));
    this.blockchains = new Blockchains(t);
    this.wallets = new Wallets(t);
    this.addresses = new Addresses(t);
    this.assets = new Assets(t);
    this.balances = new Balances(t);
    this.transactions = new Transactions(t);
    this.deposits = new Deposits(t);
    this.withdrawals = new Withdrawals(t);
    this.signing = new Signing(t);
    this.contracts = new Contracts(t);
    this.webhooks = new Webhooks(t);
    this.autoSettlements = new AutoSettlements(t);
    this.beneficiaries = new Beneficiaries(t);
    this.apiKeys = new ApiKeys(t);
    this.events = new Events(t);
    this.aml = new Aml(t);
    this.policies = new Policies(t);
    this.approvals = new Approvals(t);
    this.paymentLinks = new PaymentLinks(t);
    this.checkouts = new Checkouts(t);
    this.swaps = new Swaps(t);
    this.salvage = new Salvage(t);
    this.staking = new Staking(t);
  }
}
