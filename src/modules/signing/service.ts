/**
 * EIP-712 typed-data signing with a wallet's master key (index 0). The input is validated
 * completely (types, domain, message, primary type) before the key is touched; the
 * signature is recorded as a SIGNED Transaction with its `signed.success` event in one
 * database transaction, and returned only once recorded.
 */
import type { ModuleDeps } from '../deps.js';

import type { TypedDataPayload } from '../../chains/types.js';
import { BusinessRuleError } from '../../lib/errors.js';
import { shortReference, uuidv7 } from '../../lib/ids.js';
import type { AuthContext } from '../apikeys/service.js';

import type { TransactionView } from '../transactions/service.js';
import { insertTransaction } from '../transactions/service.js';

import type { TypedDataRequest } from './schemas.js';

export type SigningServiceDeps = ModuleDeps;

export class SigningService {
  constructor(readonly deps: SigningServiceDeps) {}

  async signTypedData(auth: AuthContext, walletId: string, body: TypedDataRequest): Promise<TransactionView> {
    const { wallets, signer, db, webhooks, transactions } = this.deps;
    const wallet = await wallets.require(auth, walletId);
    if (!wallet.is_active) throw new BusinessRuleError('WALLET_INACTIVE', 'This wallet is deactivated');
    const chain = wallets.chainOf(wallet);
    const payload = chain.adapter.prepareTypedData(body);
    const signature = await signer.signTypedData(wallet.id, 0, payload, wallet.address);
    const id = uuidv7();
    await db.transaction().execute(async (tx) => {
      await insertTransaction(tx, {
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
        reason: describe(payload),
        // What was signed, for the audit trail: the digest binds domain, types and message.
        response: JSON.stringify({ kind: 'EIP-712', primaryType: payload.primaryType, domain: payload.domain, digest: payload.digest }),
      });
      await webhooks.emitForTransaction(tx, id, 'signed.success');
    });
    return transactions.load(id);
  }
}

function describe(p: TypedDataPayload): string {
  const d = p.domain;
  return `EIP-712 ${p.primaryType} for ${JSON.stringify(d.name).slice(0, 80)} v${JSON.stringify(d.version).slice(0, 20)} on chain ${d.chainId} at ${d.verifyingContract}`;
}
