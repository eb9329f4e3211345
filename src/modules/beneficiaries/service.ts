/**
 * Beneficiaries: external destinations of a wallet, optionally whitelisted (withdrawals are
 * then restricted to whitelisted ones, see the withdrawals service) and optionally the
 * wallet's settlement destination (src/modules/settlements).
 *
 * Rules (docs/settlement.md): the address must be valid for the wallet's chain (EIP-55
 * checksum when mixed case), not the zero address and not one of the wallet's own (master
 * or child) addresses; one live beneficiary per address and wallet (409);
 * `settlementFrequency` is required whenever the result is a settlement beneficiary (400),
 * on POST and on PATCH, where the stored frequency counts; deleted beneficiaries are 404 to
 * PATCH and DELETE. Every write is audited in the transaction that makes it.
 */
import { addressFormOf, isZeroAddress } from '../../chains/registry.js';
import type { Db, DbConn } from '../../db/pool.js';
import type { Clock } from '../../lib/clock.js';
import { BusinessRuleError, ConflictError, NotFoundError, ValidationError } from '../../lib/errors.js';
import { uuidv7 } from '../../lib/ids.js';
import { pageMeta, type PageMeta } from '../../lib/schema.js';
import type { AuthContext } from '../apikeys/service.js';
import type { AddressService } from '../addresses/service.js';
import type { AuditService } from '../audit/service.js';
import type { WalletRow, WalletService } from '../wallets/service.js';
import type { BeneficiaryView, CreateBeneficiaryBody, Frequency, ListBeneficiariesQuery, UpdateBeneficiaryBody } from './schemas.js';
import * as store from './store.js';
import type { AmlService } from '../aml/service.js';
import type { PolicyService } from '../policies/service.js';
import { addressKey } from '../../chains/address-key.js';

export type BeneficiaryRow = store.BeneficiaryRow;

export class BeneficiaryService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly wallets: WalletService,
    private readonly addresses: AddressService,
    private readonly audit: AuditService,
    /** AML screening: a beneficiary is screened when saved (and its payouts when paid, by the withdrawals). */
    private readonly aml?: AmlService,
    /** Transaction policies: their destination rules read the beneficiaries (who may change them, reclassify). */
    private readonly policies?: PolicyService,
  ) {}

  async create(auth: AuthContext, walletId: string, input: CreateBeneficiaryBody, requestId?: string): Promise<BeneficiaryView> {
    const wallet = await this.wallets.require(auth, walletId);
    const name = checkName(input.name);
    const address = this.#address(wallet, input.address);
    // Settling to one of the wallet's own child addresses would loop: deposit, sweep to the
    // master, settle to the child again, each round paying gas.
    const own = await this.addresses.findByAddress(wallet.id, address);
    if (own && own.type === 'INTERNAL') {
      throw new BusinessRuleError('OWN_ADDRESS', "address is one of this wallet's own child addresses", [
        { field: 'address', message: 'is a child address of this wallet' },
      ]);
    }
    // The spec's POST has no isSettlement: giving a frequency asks for settlement.
    const isSettlement = input.isSettlement ?? input.settlementFrequency !== undefined;
    if (isSettlement && !input.settlementFrequency) throw frequencyRequired();
    await this.#screen(auth, wallet, address, requestId);
    const row = await this.db.transaction().execute(async (tx) => {
      await store.lockWallet(tx, wallet.id);
      if (await store.liveByAddress(tx, wallet.id, address)) throw duplicate(address);
      await this.policies?.assertMayReclassify(tx, auth, wallet);
      const id = uuidv7();
      if (input.isDefault) await store.clearDefault(tx, wallet.id, id);
      const created = await store.insert(tx, {
        id,
        walletId: wallet.id,
        name,
        address,
        isDefault: input.isDefault ?? false,
        isSettlement,
        isWhitelisted: input.isWhitelisted ?? false,
        frequency: input.settlementFrequency ?? null,
        settlementSince: isSettlement ? this.clock.now() : null,
      });
      await this.#audit(tx, auth, wallet, 'beneficiary.created', created, { ...input, address }, requestId);
      return created;
    });
    return present(row);
  }

  async update(
    auth: AuthContext,
    walletId: string,
    id: string,
    input: UpdateBeneficiaryBody,
    requestId?: string,
  ): Promise<BeneficiaryView> {
    const wallet = await this.wallets.require(auth, walletId);
    const name = input.name === undefined ? undefined : checkName(input.name);
    // Lists change: a beneficiary saved again is screened again (its payouts are, each time).
    const before = await store.find(this.db, wallet.id, id, true);
    if (before && !before.deleted_at) await this.#screen(auth, wallet, before.address, requestId);
    const row = await this.db.transaction().execute(async (tx) => {
      await store.lockWallet(tx, wallet.id);
      const current = await store.find(tx, wallet.id, id, true);
      if (!current || current.deleted_at) throw new NotFoundError('Beneficiary');
      const isSettlement = input.isSettlement ?? current.is_settlement;
      const frequency = input.settlementFrequency ?? current.settlement_frequency;
      if (isSettlement && !frequency) throw frequencyRequired();
      // The schedule restarts when settlement is switched on or its frequency changes, so
      // the first run after the change settles a period that ends after it.
      const restarts =
        isSettlement &&
        (!current.is_settlement || (input.settlementFrequency !== undefined && input.settlementFrequency !== current.settlement_frequency));
      const patch: store.Patch = {
        ...(name !== undefined ? { name } : {}),
        ...(input.isActive !== undefined ? { isActive: input.isActive } : {}),
        ...(input.isDefault !== undefined ? { isDefault: input.isDefault } : {}),
        ...(input.isSettlement !== undefined ? { isSettlement: input.isSettlement } : {}),
        ...(input.isWhitelisted !== undefined ? { isWhitelisted: input.isWhitelisted } : {}),
        ...(input.settlementFrequency !== undefined ? { frequency: input.settlementFrequency } : {}),
        ...(restarts ? { settlementSince: this.clock.now() } : {}),
      };
      if (Object.keys(patch).length === 0) return current;
      const after = { is_active: patch.isActive ?? current.is_active, is_whitelisted: patch.isWhitelisted ?? current.is_whitelisted };
      if (kindOf(after) !== kindOf(current)) await this.policies?.assertMayReclassify(tx, auth, wallet);
      if (input.isDefault) await store.clearDefault(tx, wallet.id, id);
      const updated = await store.update(tx, id, patch);
      await this.#audit(tx, auth, wallet, 'beneficiary.updated', updated, input, requestId);
      return updated;
    });
    return present(row);
  }

  async remove(auth: AuthContext, walletId: string, id: string, requestId?: string): Promise<BeneficiaryView> {
    const wallet = await this.wallets.require(auth, walletId);
    const row = await this.db.transaction().execute(async (tx) => {
      await store.lockWallet(tx, wallet.id);
      const current = await store.find(tx, wallet.id, id, true);
      if (!current || current.deleted_at) throw new NotFoundError('Beneficiary');
      if (kindOf(current) !== 'NONE') await this.policies?.assertMayReclassify(tx, auth, wallet);
      const deleted = await store.softDelete(tx, id);
      await this.#audit(tx, auth, wallet, 'beneficiary.deleted', deleted, {}, requestId);
      return deleted;
    });
    return present(row);
  }

  /** GET (extension): a deleted beneficiary is still readable, with its deletedAt. */
  async get(auth: AuthContext, walletId: string, id: string): Promise<BeneficiaryView> {
    const wallet = await this.wallets.require(auth, walletId);
    const row = await store.find(this.db, wallet.id, id);
    if (!row) throw new NotFoundError('Beneficiary');
    return present(row);
  }

  async list(auth: AuthContext, walletId: string, q: ListBeneficiariesQuery): Promise<{ items: BeneficiaryView[]; meta: PageMeta }> {
    const wallet = await this.wallets.require(auth, walletId);
    const page = q.page ?? 1;
    const limit = q.limit ?? 100;
    const { rows, total } = await store.list(
      this.db,
      {
        walletId: wallet.id,
        includeDeleted: q.includeDeleted ?? false,
        ...(q.isActive !== undefined ? { isActive: q.isActive } : {}),
        ...(q.isWhitelisted !== undefined ? { isWhitelisted: q.isWhitelisted } : {}),
        ...(q.isSettlement !== undefined ? { isSettlement: q.isSettlement } : {}),
      },
      (page - 1) * limit,
      limit,
    );
    return { items: rows.map(present), meta: pageMeta(page, limit, rows.length, total) };
  }

  /** The wallet's settlement beneficiary (active, live, marked for settlement): the default, else the oldest. */
  settlementOf(walletId: string, db: DbConn = this.db): Promise<BeneficiaryRow | undefined> {
    return store.settlementBeneficiary(db, walletId);
  }

  /** Every wallet's settlement beneficiary, for the scheduler. */
  settlementBeneficiaries(db: DbConn = this.db): Promise<BeneficiaryRow[]> {
    return store.settlementBeneficiaries(db);
  }

  /** 422 AML_BLOCKED (audited) when the address is listed; 503 AML_UNAVAILABLE when screening failed and the wallet fails closed. */
  async #screen(auth: AuthContext, wallet: WalletRow, address: string, requestId: string | undefined): Promise<void> {
    await this.aml?.checkPayout({
      wallet,
      chain: this.wallets.chainOf(wallet),
      recipients: [{ address, field: 'address' }],
      operation: 'beneficiary',
      actor: `api-key:${auth.keyId}`,
      requestId,
    });
  }

  #address(wallet: WalletRow, input: string): string {
    const chain = this.wallets.chainOf(wallet);
    const address = chain.adapter.normalizeAddress(input.trim());
    if (!address) {
      throw new ValidationError(`address is not a valid ${chain.config.blockchain.name} address (${addressFormOf(chain.config)})`, [
        { field: 'address', message: 'invalid address or EIP-55 checksum' },
      ]);
    }
    if (isZeroAddress(chain.config, address)) {
      throw new ValidationError('address is the zero address; funds sent there are lost', [
        { field: 'address', message: 'is the zero address' },
      ]);
    }
    if (addressKey(address) === addressKey(wallet.address)) {
      throw new BusinessRuleError('SAME_ADDRESS', "address is the wallet's own master address", [
        { field: 'address', message: 'is the master address' },
      ]);
    }
    return address;
  }

  async #audit(
    tx: DbConn,
    auth: AuthContext,
    wallet: WalletRow,
    action: string,
    row: BeneficiaryRow,
    change: Record<string, unknown>,
    requestId: string | undefined,
  ): Promise<void> {
    await this.audit.record(
      {
        businessId: wallet.business_id,
        walletId: wallet.id,
        actor: `api-key:${auth.keyId}`,
        action,
        targetType: 'beneficiary',
        targetId: row.id,
        details: { address: row.address, change },
        ...(requestId ? { requestId } : {}),
      },
      tx,
    );
  }
}

export function present(row: BeneficiaryRow): BeneficiaryView {
  return {
    id: row.id,
    name: row.name,
    address: row.address,
    isActive: row.is_active,
    isDefault: row.is_default,
    isSettlement: row.is_settlement,
    isWhitelisted: row.is_whitelisted,
    settlementFrequency: row.settlement_frequency as Frequency | null,
    deletedAt: row.deleted_at ? row.deleted_at.toISOString() : null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** What a live beneficiary makes its address to the wallet's destination rules (policies' beneficiary kinds). */
function kindOf(b: Pick<BeneficiaryRow, 'is_active' | 'is_whitelisted'>): 'NONE' | 'BENEFICIARY' | 'WHITELISTED' {
  return !b.is_active ? 'NONE' : b.is_whitelisted ? 'WHITELISTED' : 'BENEFICIARY';
}

function checkName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw new ValidationError('name must not be blank', [{ field: 'name', message: 'must not be blank' }]);
  return trimmed;
}

const frequencyRequired = () =>
  new ValidationError('settlementFrequency is required when isSettlement is true', [
    { field: 'settlementFrequency', message: 'required when isSettlement is true' },
  ]);

const duplicate = (address: string) =>
  new ConflictError('BENEFICIARY_EXISTS', `${address} is already a beneficiary of this wallet (update it, or delete it first)`);
