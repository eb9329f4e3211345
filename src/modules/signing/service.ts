/**
 * EIP-712 typed-data signing with a wallet's master key (index 0). The input is validated
 * completely (types, domain, message, primary type), held to the rules of a contract write
 * and decided by the transaction policies (policy.ts: a token authorisation as the approve or
 * transfer it is) before the key is touched; the signature is recorded as a SIGNED
 * Transaction with its `signed.success` event in one database transaction, decided again
 * there under the velocity windows' locks, and returned only once recorded.
 */
import type { ModuleDeps } from '../deps.js';

import type { TypedDataPayload } from '../../chains/types.js';
import { combineScreenings, type AmlScreening } from '../aml/service.js';
import { capability } from '../../chains/registry.js';
import { BusinessRuleError } from '../../lib/errors.js';
import { shortReference, uuidv7 } from '../../lib/ids.js';
import type { AuthContext } from '../apikeys/service.js';

import type { TransactionView } from '../transactions/service.js';

import { countedOf } from '../policies/service.js';
import { checkTypedData, requireContractsStanding, requirePolicies, typedDataCandidate, type OwnGrant } from './policy.js';
import type { WalletRow } from '../wallets/service.js';
import type { MoveStanding, WithdrawalService } from '../withdrawals/service.js';
import type { TypedDataRequest } from './schemas.js';

export type SigningServiceDeps = ModuleDeps;

export class SigningService {
  constructor(
    readonly deps: SigningServiceDeps,
    private readonly withdrawals: WithdrawalService,
  ) {}

  /**
   * A personal message (under the standard of the wallet's family: the adapter's prepareMessage) signed by the master or a child address:
   * recorded as a SIGNED Transaction with its `signed.success` event, like typed data.
   */
  async signMessage(auth: AuthContext, walletId: string, addressId: string | null, message: string): Promise<TransactionView> {
    const { signer, db, webhooks, transactions } = this.deps;
    const who = await signerOf(this.deps, auth, walletId, addressId);
    const payload = capability(who.chain.adapter, 'messages').prepareMessage(message, 'message');
    const signature = await signer.signMessage(who.wallet.id, who.index, payload, who.address);
    const id = uuidv7();
    await db.transaction().execute(async (tx) => {
      // Still active now that the signature is made: a deactivation answered meanwhile, by
      // this process or another, refuses it (withdrawals/standing.ts), and it is never handed out.
      await this.withdrawals.requireStanding(tx, { walletId: who.wallet.id });
      await transactions.create(
        tx,
        {
          id,
          wallet_id: who.wallet.id,
          address_id: who.addressId,
          chain_id: who.chain.id,
          reference: shortReference(),
          type: 'SIGNED',
          status: 'SUCCESS',
          stage: 'signed',
          confirmed: true,
          network: who.chain.row.network,
          created_channel: 'API',
          sender_address: who.address,
          signed_transaction: JSON.stringify(signature),
          reason: `${payload.standard} personal message (${payload.kind === 'bytes' ? `${(payload.message.length - 2) / 2} bytes` : `${payload.message.length} characters`})`,
          // What was signed, for the audit trail: the message itself and its digest.
          response: JSON.stringify({ kind: payload.standard, encoding: payload.kind, message: payload.message, digest: payload.digest }),
        },
        // No policy decides a personal message: no contract acts on one.
        null,
      );
      await webhooks.emitForTransaction(tx, id, 'signed.success');
    });
    return transactions.load(id);
  }

  async signTypedData(auth: AuthContext, walletId: string, body: TypedDataRequest): Promise<TransactionView> {
    const { wallets, signer, db, webhooks, transactions } = this.deps;
    const wallet = await wallets.require(auth, walletId);
    if (!wallet.is_active) throw new BusinessRuleError('WALLET_INACTIVE', 'This wallet is deactivated');
    const chain = wallets.chainOf(wallet);
    const payload = capability(chain.adapter, 'typedData').prepareTypedData(body);
    const { own, screenings } = await checkTypedData(this.deps, this.withdrawals, auth, wallet, chain, payload);
    const candidate = await typedDataCandidate(this.deps, auth, wallet, payload, own);
    await requirePolicies(this.deps, db, wallet, candidate, false);
    const signature = await signer.signTypedData(wallet.id, 0, payload, wallet.address);
    const id = uuidv7();
    await db.transaction().execute(async (tx) => {
      // A refusal here rolls back, and the signature made is never handed out: the wallet still
      // active and an authorisation's spender or recipient still whitelisted, as read under the
      // standing's lock (a change answered meanwhile by any API process is seen), then the policies.
      await this.withdrawals.requireStanding(tx, standingOf(wallet, own, screenings));
      await requireContractsStanding(this.deps, tx, wallet, payload);
      await requirePolicies(this.deps, tx, wallet, candidate, true);
      await transactions.create(
        tx,
        {
          id,
          wallet_id: wallet.id,
          chain_id: chain.id,
          reference: shortReference(),
          type: 'SIGNED',
          status: 'SUCCESS',
          stage: 'signed',
          confirmed: true,
          network: chain.row.network,
          created_channel: 'API',
          sender_address: wallet.address,
          recipient_address: payload.domain.verifyingContract,
          signed_transaction: JSON.stringify(signature),
          // The authorisation's addresses as screened (NOT_SCREENED when a provider did not
          // answer and the wallet lets it through), as a contract write keeps its call's.
          aml_screening: combineScreenings(screenings) ?? {},
          reason: describe(payload),
          // What was signed, for the audit trail: the digest binds domain, types and message.
          response: JSON.stringify({ kind: 'EIP-712', primaryType: payload.primaryType, domain: payload.domain, digest: payload.digest }),
        },
        countedOf(candidate),
      );
      await webhooks.emitForTransaction(tx, id, 'signed.success');
    });
    return transactions.load(id);
  }
}

/**
 * What a typed-data signature needs of the wallet's standing: checkTypedData's whitelist rule
 * and its AML screenings (a fail-closed switch answered while they ran refuses), read again.
 */
function standingOf(wallet: WalletRow, own: OwnGrant | null, screenings: AmlScreening[]): MoveStanding {
  if (!own?.asset || own.grant.amount === 0n) return { walletId: wallet.id, screenings };
  return { walletId: wallet.id, beneficiaries: { items: [{ to: own.grant.to, field: '' }], name: own.grant.field }, screenings };
}

/** The signer of a message: the master address (index 0) or a child address the service holds the key of. */
async function signerOf(deps: SigningServiceDeps, auth: AuthContext, walletId: string, addressId: string | null) {
  const wallet = await deps.wallets.require(auth, walletId);
  if (!wallet.is_active) throw new BusinessRuleError('WALLET_INACTIVE', 'This wallet is deactivated');
  const chain = deps.wallets.chainOf(wallet);
  if (addressId === null) return { wallet, chain, address: wallet.address, index: 0, addressId: null };
  const { address } = await deps.addresses.require(auth, walletId, addressId);
  if (address.type !== 'INTERNAL' || address.derivation_index === null) {
    throw new BusinessRuleError('NO_PRIVATE_KEY', 'The service holds no key for an external address: it cannot sign for it');
  }
  return { wallet, chain, address: address.address, index: address.derivation_index, addressId };
}

function describe(p: TypedDataPayload): string {
  const d = p.domain;
  return `EIP-712 ${p.primaryType} for ${JSON.stringify(d.name).slice(0, 80)} v${JSON.stringify(d.version).slice(0, 20)} on chain ${d.chainId} at ${d.verifyingContract}`;
}
