/**
 * Asset recovery, "salvage" (issue 27, 2): funds the withdrawal flows cannot move, sent out
 * of an address whose key this wallet holds.
 *
 * - a token that is not an enabled asset of the wallet (a listed one is withdrawn instead:
 *   422 SALVAGE_NOT_NEEDED), on any family: an unlisted ERC-20, a TRC-20 the catalogue does
 *   not list, an unknown SPL token (the whole balance moved closes its token account, the
 *   rent going back to the master, who pays Solana fees);
 * - native coin left at a child address (the master's own is withdrawn);
 * - funds sent to one of our addresses on another chain of the wallet's family (same key):
 *   `blockchainId` names a configured chain (its pipeline sends), or `rpcUrl` an EVM chain
 *   this installation does not configure (foreign.ts: one request, never stored).
 *
 * The sender is the master or an address of the wallet ("master-wallet keys only": no key is
 * asked of anyone else). A child's fee is funded as a sweep's is (the family's
 * planChildFunding: a top-up of the child's native coin, a resource lent and taken back, or
 * the master paying as fee payer, as the family does it), so recovery never needs the client to fund the address first. The recipient
 * follows the wallet's whitelist; the zero address is refused; transaction policies decide it
 * (SALVAGE, policy.ts: anything but ALLOW refuses it). A Transaction of type SALVAGE
 * follows the transfer (steps.ts) and ends with `salvage.success` or `salvage.failed`.
 */
import type { ChildFeeFunding, FeeQuote, NetworkData, TxIntent } from '../../chains/types.js';
import type { DbConn } from '../../db/pool.js';
import { ChainRejectedError, rejectionReason } from '../../chains/errors.js';
import { nativeValueOf } from '../../chains/intents.js';
import { familyOfChain, isZeroAddress, offers, sharesKeys } from '../../chains/registry.js';
import { BusinessRuleError, ConflictError, ValidationError } from '../../lib/errors.js';
import { shortReference } from '../../lib/ids.js';
import { formatAmount, parseAmount } from '../../lib/money.js';
import type { AuthContext } from '../apikeys/service.js';
import type { AmlScreening } from '../aml/service.js';
import { tokenAt, type ChainHandle } from '../catalogue/service.js';
import type { ModuleDeps } from '../deps.js';
import type { Counted, TransactionView } from '../transactions/service.js';
import type { WalletRow } from '../wallets/service.js';
import type { MoveRead, MoveStanding, WithdrawalService } from '../withdrawals/service.js';
import { tokenDecimals } from './decimals.js';
import { foreignFee, foreignRecover, openForeign, type ForeignDeps } from './foreign.js';
import { requirePolicies } from './policy.js';
import type { SalvageBody, SalvageFeeBody } from './schemas.js';
import { SalvageSteps } from './steps.js';
import * as store from './store.js';
import type { Salvager, SalvagePlan } from './types.js';

export type { Salvager, SalvagePlan } from './types.js';

/** What the recovery's steps from the master burn beyond the top-up's value, and its top-up's and lend's parts of it. */
export interface MasterFee {
  total: bigint;
  topup: bigint;
  lend: bigint;
}

export class SalvageService {
  readonly steps: SalvageSteps;

  constructor(
    private readonly deps: ModuleDeps & ForeignDeps,
    private readonly withdrawals: WithdrawalService,
  ) {
    this.steps = new SalvageSteps(deps);
  }

  /** POST .../salvage/network-fee: the sender's native balance and the recovery's fee. */
  async networkFee(
    auth: AuthContext,
    walletId: string,
    body: SalvageFeeBody,
  ): Promise<{ balance: string; fee: string; tokenBalance: string | null }> {
    const wallet = await this.#wallet(auth, walletId, false);
    let blockchainId = body.blockchainId;
    if (body.rpcUrl !== undefined) {
      const chain = await openForeign(this.deps, wallet, body);
      if (chain.kind === 'foreign') return foreignFee(chain, body, (a) => this.#sender(wallet, a));
      blockchainId = chain.chain.row.blockchain_id;
    }
    const p = await this.plan(wallet, { ...body, blockchainId, rpcUrl: undefined });
    const native = p.chain.config.blockchain.nativeDecimals;
    return {
      balance: formatAmount(p.nativeBalance, native),
      fee: formatAmount(p.quote.fee, native),
      tokenBalance: p.tokenBalance === null ? null : formatAmount(p.tokenBalance, p.decimals),
    };
  }

  /** POST .../salvage: a PENDING SALVAGE Transaction; the funding step (or the transfer) is queued with it. */
  async salvage(auth: AuthContext, walletId: string, body: SalvageBody): Promise<TransactionView> {
    const wallet = await this.#wallet(auth, walletId, true);
    // A reference the wallet holds is a 409 before any chain is read or, on a chain named by
    // rpcUrl, the transfer is signed (a signature made for a row that cannot be written).
    await this.deps.transactions.requireReferenceFree(this.deps.db, wallet.id, body.reference);
    let blockchainId = body.blockchainId;
    if (body.rpcUrl !== undefined) {
      const chain = await openForeign(this.deps, wallet, body);
      if (chain.kind === 'foreign') {
        // An address before it is screened: text that is none made the providers fail, which
        // their runner remembers for every payout on the wallet's chain (503s for all wallets).
        const recipient = chain.adapter.normalizeAddress(body.recipientAddress);
        if (!recipient || isZeroAddress(chain.adapter.config, recipient)) {
          chain.adapter.close();
          throw new ValidationError('recipientAddress is not an address funds can be sent to', [
            { field: 'recipientAddress', message: 'is not an address funds can be sent to' },
          ]);
        }
        await this.withdrawals.checkWhitelistOf(wallet.id, recipient, 'recipientAddress');
        const amlScreening = await this.withdrawals.screenRecipient(auth, wallet, chain.own, recipient, 'salvage');
        return this.deps.transactions.load(
          await foreignRecover(
            this.deps,
            wallet,
            chain,
            body,
            (a) => this.#sender(wallet, a),
            amlScreening,
            async (tx, r) => {
              // Active and whitelisted still, under the standing's lock held to the COMMIT
              // (withdrawals/standing.ts); then the policies. A refusal drops the signed bytes.
              await this.withdrawals.requireStanding(tx, {
                walletId: wallet.id,
                beneficiaries: { items: [{ to: r.recipient, field: '' }], name: 'recipientAddress' },
                screenings: [amlScreening],
              });
              return requirePolicies(this.deps, tx, auth, wallet, r);
            },
          ),
        );
      }
      blockchainId = chain.chain.row.blockchain_id;
    }
    const p = await this.plan(wallet, { ...body, blockchainId, rpcUrl: undefined });
    await this.withdrawals.checkWhitelistOf(wallet.id, p.recipient, 'recipientAddress');
    const amlScreening = await this.withdrawals.screenRecipient(auth, wallet, p.chain, p.recipient, 'salvage');
    if (p.assetId) await this.deps.rates?.prefetch([p.assetId]); // its USD value, for the policies
    const reference = body.reference ?? shortReference();
    // Held like a withdrawal whoever pays the fee (a listed asset or the native coin, and the
    // fee the sender pays itself); a top-up from the master, and what the master's own steps
    // burn (the top-up's fee, a lend's and give-back's), held at the master too. What that
    // and the sends need of the chain is read here, before the transaction: no connection or
    // lock waits on the node.
    const [read, masterFee] = await Promise.all([this.#read(p, [wallet.address]), this.#masterFee(p)]);
    if (!read) await this.deps.outbound.ready(p.chain, [p.sender.address, wallet.address]);
    const id = await this.deps.db.transaction().execute(async (tx) => {
      await store.lockSender(tx, p.chain.id, p.sender.address);
      // A twin with the same reference waited here for the first to commit: it answers
      // REFERENCE_IN_USE, not SALVAGE_IN_PROGRESS (another sender's twin is caught by create).
      await this.deps.transactions.requireReferenceFree(tx, wallet.id, reference);
      if (await store.senderBusy(tx, p.chain.id, p.sender.address)) {
        throw new ConflictError('SALVAGE_IN_PROGRESS', 'Another recovery from this address is in flight; send this one once it ends');
      }
      // Its key still held, under the address row's lock: a removal of an imported key that
      // committed since #sender read it leaves nothing to sign the transfer with; one that
      // comes after finds this recovery in flight (409 KEY_IN_USE) and keeps the key.
      if (p.sender.index === null && p.sender.addressId && !(await this.deps.addresses.lockKeyHolder(tx, p.sender.addressId))) {
        throw new BusinessRuleError('SENDER_NOT_IN_WALLET', 'senderAddress is not an address whose key this wallet holds', [
          { field: 'senderAddress', message: 'not an address of this wallet' },
        ]);
      }
      // Transaction policies (SALVAGE, policy.ts), before anything is reserved or written.
      let counted: Counted | undefined;
      const policies = async () => {
        counted = await requirePolicies(this.deps, tx, auth, wallet, p);
      };
      // The policies are decided under the sender's withdrawal lock (and the master's, when it
      // tops the sender up), which comes before their velocity windows' locks as in a
      // withdrawal (one lock order: deciding first deadlocked with a withdrawal of the sender
      // queued on that lock).
      if (read) await this.#reserve(tx, p, amlScreening, read, masterFee, policies);
      else {
        await this.withdrawals.requireStanding(tx, this.#standing(p, amlScreening));
        await policies();
      }
      return this.steps.start(tx, p, { reference, metadata: body.metadata ?? null, amlScreening }, counted!, masterFee);
    });
    return this.deps.transactions.load(id);
  }

  /** The recovery's plan on a configured chain: the rules, the chain's balances and the family's quote and funding. */
  async plan(wallet: WalletRow, body: SalvageFeeBody): Promise<SalvagePlan> {
    const chain = this.#chainOf(wallet, body.blockchainId);
    const adapter = chain.adapter;
    const field = (name: string, message: string) => new ValidationError(`${name} ${message}`, [{ field: name, message }]);
    const senderAddress = adapter.normalizeAddress(body.senderAddress);
    if (!senderAddress) throw field('senderAddress', `is not ${familyOfChain(chain.config).addressForm}`);
    const recipient = adapter.normalizeAddress(body.recipientAddress);
    if (!recipient) throw field('recipientAddress', `is not ${familyOfChain(chain.config).addressForm}`);
    if (isZeroAddress(chain.config, recipient)) throw field('recipientAddress', 'is the zero address: funds sent there are lost');
    const listedToken = tokenAt(chain, recipient);
    if (listedToken) throw field('recipientAddress', `is the contract of ${listedToken.symbol}: funds sent there are lost`);
    const sender = await this.#sender(wallet, senderAddress);
    if (sender.address === recipient) throw field('recipientAddress', 'is the sender itself');

    let token = body.tokenAddress === undefined ? null : adapter.normalizeAddress(body.tokenAddress);
    if (body.tokenAddress !== undefined && token === null) throw field('tokenAddress', `is not ${familyOfChain(chain.config).addressForm}`);
    if (token !== null && isZeroAddress(chain.config, token)) token = null; // the zero address stands for the native coin
    // As the catalogue compares addresses (addressKey): a chains file may write a token's hex
    // address in any case, and an enabled asset written in lower case is still one.
    const listed = token === null ? chain.assets.find((a) => a.is_native) : tokenAt(chain, token);
    await this.#recoverable(wallet, chain, sender, token, listed?.id ?? null);

    const decimals = token === null ? chain.config.blockchain.nativeDecimals : await this.#decimalsOf(chain, token);
    const amount = parseAmount(body.amount, decimals, 'amount');
    if (amount <= 0n) throw field('amount', 'must be greater than 0');
    const [held, nativeBalance] = await adapter
      .getBalances([
        { owner: sender.address, token },
        { owner: sender.address, token: null },
      ])
      .catch((err: unknown) => {
        // decimals() answered, balanceOf does not: the client named something that is no token.
        if (token !== null && rejectionReason(err) === 'reverted') throw notAToken(chain, token);
        throw err;
      });
    const tokenBalance = token === null ? null : held!;
    if (amount > held!) {
      throw new BusinessRuleError('INSUFFICIENT_BALANCE', `The sender holds ${formatAmount(held!, decimals)}, less than ${body.amount}`, [
        { field: 'amount', message: 'more than the sender holds' },
      ]);
    }
    // Where the family lets the master pay a child's fee (Solana), it pays and signs as fee payer.
    const sponsored = offers(adapter, 'feeSponsorship') && sender.index !== 0;
    const payer = sponsored ? { feePayer: wallet.address } : {};
    const intent: TxIntent =
      token === null
        ? { kind: 'native', from: sender.address, to: recipient, amount, ...payer }
        : { kind: 'token', from: sender.address, token, to: recipient, amount, ...payer };
    const wholeBalance = token !== null && amount === held;
    const quote = await adapter.sender
      .quote(intent, {}, { fresh: true, ...(wholeBalance ? { wholeBalance, reclaim: true } : {}) })
      .catch((err: unknown) => {
        if (err instanceof ChainRejectedError && !err.retryable) {
          throw new BusinessRuleError('TRANSFER_WOULD_FAIL', `The chain refuses this transfer: ${err.message}`, [
            { field: 'amount', message: 'the transfer would fail on chain' },
          ]);
        }
        throw err;
      });
    const funding = await this.#funding(chain, wallet, sender, intent, quote, nativeBalance!, sponsored);
    return {
      wallet,
      chain,
      sender,
      recipient,
      token,
      assetId: listed?.id ?? null,
      currency: listed?.symbol ?? null,
      decimals,
      amount,
      tokenBalance,
      nativeBalance: nativeBalance!,
      intent,
      quote,
      funding,
      wholeBalance,
    };
  }

  /** outbound.settled of the salvage purposes (src/subscriptions.ts): steps.ts. */

  async #wallet(auth: AuthContext, walletId: string, writes: boolean): Promise<WalletRow> {
    const wallet = await this.deps.wallets.require(auth, walletId);
    if (writes && !wallet.is_active) throw new BusinessRuleError('WALLET_INACTIVE', 'This wallet is deactivated');
    return wallet;
  }

  /** The chain `blockchainId` names at the wallet's network; another than the wallet's must share its keys (its family and path). */
  #chainOf(wallet: WalletRow, blockchainId: string): ChainHandle {
    const own = this.deps.wallets.chainOf(wallet);
    const chain = this.deps.catalogue
      .chains()
      .find((c: ChainHandle) => c.row.blockchain_id === blockchainId && c.row.network === own.row.network);
    if (!chain) {
      throw new BusinessRuleError('CHAIN_NOT_AVAILABLE', `No configured chain of this blockchain on ${own.row.network}`, [
        { field: 'blockchainId', message: 'not configured at the wallet network' },
      ]);
    }
    if (chain.id !== own.id && !sharesKeys(own.config, chain.config)) {
      throw new BusinessRuleError(
        'SALVAGE_CHAIN_MISMATCH',
        `The wallet's keys hold no address on ${chain.config.blockchain.name}: its addresses are ${familyOfChain(own.config).name} addresses`,
        [{ field: 'blockchainId', message: "not a chain of the wallet's family" }],
      );
    }
    return chain;
  }

  /** The master, or an address of the wallet whose key it holds (derived or imported). */
  async #sender(wallet: WalletRow, address: string): Promise<Salvager> {
    if (address === wallet.address) return { address, index: 0, addressId: null };
    const row = await this.deps.addresses.findByAddress(wallet.id, address);
    if (row && (row.derivation_index !== null || row.key_imported))
      return { address: row.address, index: row.derivation_index, addressId: row.id };
    throw new BusinessRuleError('SENDER_NOT_IN_WALLET', 'senderAddress is not an address whose key this wallet holds', [
      { field: 'senderAddress', message: 'not an address of this wallet' },
    ]);
  }

  /** Refuses what the withdrawal flows move: an enabled asset of the wallet, the master's own native coin. */
  async #recoverable(wallet: WalletRow, chain: ChainHandle, sender: Salvager, token: string | null, assetId: string | null): Promise<void> {
    const home = chain.id === wallet.chain_id;
    if (home && assetId !== null && (await this.deps.walletAssets.findEnabled(wallet, assetId))) {
      const what = token === null ? 'The native coin' : 'This token';
      if (token !== null || sender.index === 0) {
        throw new BusinessRuleError('SALVAGE_NOT_NEEDED', `${what} is an enabled asset of the wallet: withdraw it instead`);
      }
    }
    if (home && token === null && sender.index === 0) {
      throw new BusinessRuleError('SALVAGE_NOT_NEEDED', "The master's native coin is withdrawn, not recovered");
    }
  }

  async #decimalsOf(chain: ChainHandle, token: string): Promise<number> {
    const decimals = await tokenDecimals(chain.adapter, token);
    if (decimals === null) throw notAToken(chain, token);
    return decimals;
  }

  /**
   * How the fee is paid: the master pays its own (checked now), a child as a sweep's is funded
   * (planChildFunding); the master must hold what it sends or pays on that chain.
   */
  async #funding(
    chain: ChainHandle,
    wallet: WalletRow,
    sender: Salvager,
    intent: TxIntent,
    quote: FeeQuote,
    nativeBalance: bigint,
    sponsored: boolean,
  ): Promise<ChildFeeFunding> {
    const sym = chain.config.blockchain.symbol;
    const fmt = (v: bigint) => `${formatAmount(v, chain.config.blockchain.nativeDecimals)} ${sym}`;
    const value = nativeValueOf(intent);
    if (sender.index === 0) {
      if (nativeBalance < value + quote.fee) {
        throw new BusinessRuleError(
          'INSUFFICIENT_BALANCE',
          `The master holds ${fmt(nativeBalance)}, the transfer and its fee need ${fmt(value + quote.fee)}`,
        );
      }
      return { kind: 'none' };
    }
    // What the child's own spends in flight hold of its native coin (a payout, their fees) is
    // not there for this transfer: the top-up makes up for it, as for a sweep, or the
    // reservation under the child's lock would refuse a recovery a larger top-up lets through.
    const nativeId = chain.assets.find((a) => a.is_native)?.id;
    const inFlight = sponsored || !nativeId ? null : await this.withdrawals.inFlight(chain, sender.address, nativeId);
    // Native coin AML screening holds there is not the child's to pay with either (standingNative).
    const held = inFlight ? inFlight.native + inFlight.standingNative : 0n;
    const funding = sponsored
      ? ({ kind: 'none' } as const)
      : await chain.adapter.sender.planChildFunding({
          child: sender.address,
          master: wallet.address,
          nativeBalance: nativeBalance > held ? nativeBalance - held : 0n,
          value,
          network: quote.network,
          spendsInFlight: (inFlight?.pending ?? '') !== '',
        });
    const masterPays =
      funding.kind === 'transfer' ? funding.amount : funding.kind === 'lend' ? funding.transfer : sponsored ? quote.fee : 0n;
    if (masterPays > 0n) {
      const [held] = await chain.adapter.getBalances([{ owner: wallet.address, token: null }]);
      // The master funds the child (or pays its fee) on this chain: it must hold that there.
      // A first answer (the fee quote shows it too); a top-up is held against the master's
      // own pending spends under its lock (#reserve), where a fee payer's fee is not (funds.ts checkPayer).
      if (held! < masterPays + (funding.kind === 'none' ? 0n : quote.fee)) {
        throw new BusinessRuleError(
          'INSUFFICIENT_BALANCE',
          `The master address pays this recovery's network fee on ${chain.config.blockchain.name}: it holds ${fmt(held!)}, ${fmt(masterPays)} needed`,
        );
      }
    }
    return funding;
  }

  /** The asset a recovery is held in: its own when listed, else the native coin (its fee). */
  #held(p: SalvagePlan) {
    const listed = p.assetId ?? p.chain.assets.find((a) => a.is_native)?.id;
    return listed ? this.deps.catalogue.asset(listed)! : null;
  }

  /**
   * What the recovery's own steps from the master cost it beyond the top-up's value, each
   * quoted as the master sends it: the top-up's own fee (more when it activates the sender,
   * where the family charges for that), and the fees of a lend and give-back of the master's
   * staked resources. Checked against the master's pending spends with the top-up (#reserve,
   * also when there is none) and held at the master while the recovery is pending
   * (salvages.master_fee, withdrawals/store.ts heldBack), as a sweep's are. Not a fee payer's
   * fee (a sponsored sender's): funds.ts checkPayer answers for it.
   */
  async #masterFee(p: SalvagePlan): Promise<MasterFee> {
    const { funding } = p;
    const topup = topupOf(funding);
    const fromMaster = (amount: bigint, network?: NetworkData) =>
      p.chain.adapter.sender.quote({ kind: 'native', from: p.wallet.address, to: p.sender.address, amount }, network).then((q) => q.fee);
    const [topupFee, lendFee] = await Promise.all([
      topup > 0n ? fromMaster(topup) : 0n,
      funding.kind === 'lend' ? Promise.all([fromMaster(0n, funding.lend), fromMaster(0n, funding.giveBack)]) : ([0n, 0n] as const),
    ]);
    return { total: topupFee + lendFee[0] + lendFee[1], topup: topupFee, lend: lendFee[0] };
  }

  /** readForMove for the recovery (null: nothing to hold it in; its sends made ready all the same). */
  async #read(p: SalvagePlan, also: string[]): Promise<MoveRead | null> {
    const asset = this.#held(p);
    // The master's balance too when it sends the sender anything: a top-up, or a lend and give-back.
    const funder = topupOf(p.funding) > 0n || p.funding.kind === 'lend' ? { funder: p.wallet.address } : {};
    return asset ? this.withdrawals.readForMove({ chain: p.chain, sender: p.sender.address, asset, ...funder }, also) : null;
  }

  /**
   * What salvage() checked before the chain was read (the wallet active, the recipient
   * whitelisted, screened or a fail-closed wallet's providers answering), read again in the
   * accepting transaction under the standing's lock, held to its COMMIT (withdrawals/standing.ts).
   */
  #standing(p: SalvagePlan, amlScreening: AmlScreening | null): MoveStanding {
    return {
      walletId: p.wallet.id,
      beneficiaries: { items: [{ to: p.recipient, field: '' }], name: 'recipientAddress' },
      screenings: [amlScreening],
    };
  }

  /** The recovery held like a withdrawal, `policies` decided under the sender's withdrawal lock (reserveForMove). */
  async #reserve(
    tx: DbConn,
    p: SalvagePlan,
    amlScreening: AmlScreening | null,
    read: MoveRead,
    { total: masterFee }: MasterFee,
    policies: () => Promise<void>,
  ): Promise<void> {
    const { funding, quote } = p;
    const topup = topupOf(funding);
    // Of the fee, the sender holds what nobody else pays: all of it when it pays its own way;
    // nothing under a master fee payer, or with resources lent (their TRX transfer was planned
    // on what the sender's spends leave it); less the top-up where the master sends the rest.
    const fee = p.intent.feePayer || funding.kind === 'lend' ? 0n : quote.fee > topup ? quote.fee - topup : 0n;
    await this.withdrawals.reserveForMove(
      tx,
      {
        chain: p.chain,
        sender: p.sender.address,
        asset: this.#held(p)!,
        amount: p.assetId ? p.amount : 0n,
        to: p.recipient,
        fee,
        // The top-up, and what the master's own steps burn (#masterFee), beside the master's
        // pending spends, under its lock: also a lend and give-back with no top-up to send.
        ...(topup > 0n || masterFee > 0n ? { funder: { address: p.wallet.address, value: topup, fee: masterFee } } : {}),
        standing: this.#standing(p, amlScreening),
      },
      read,
      policies,
    );
  }
}

/** The native coin the master sends the sender before its transfer. */
function topupOf(funding: ChildFeeFunding): bigint {
  return funding.kind === 'transfer' ? funding.amount : funding.kind === 'lend' ? funding.transfer : 0n;
}

const notAToken = (chain: ChainHandle, token: string) =>
  new BusinessRuleError('NOT_A_TOKEN', `${token} does not answer as a token on ${chain.config.blockchain.name}`, [
    { field: 'tokenAddress', message: 'no token there' },
  ]);
