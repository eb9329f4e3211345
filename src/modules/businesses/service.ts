import type { Db } from '../../db/pool.js';
import { uuidv7 } from '../../lib/ids.js';
import { NotFoundError } from '../../lib/errors.js';
import { OPERATOR, type ApiKeyService } from '../apikeys/service.js';
import * as store from './store.js';

export interface BusinessView {
  id: string;
  name: string;
  createdAt: string;
  updatedAt: string;
}

export class BusinessService {
  constructor(
    private readonly db: Db,
    private readonly apiKeys: ApiKeyService,
  ) {}

  /** Creates a business with its business-level API key (shown once; the operator's, so unrestricted). */
  async create(name: string): Promise<{ business: BusinessView; apiKey: string }> {
    const id = uuidv7();
    const apiKey = await this.db.transaction().execute(async (tx) => {
      await store.insertBusiness(tx, id, name);
      return (await this.apiKeys.issueBusinessKey(tx, OPERATOR, id)).apiKey;
    });
    return { business: await this.get(id), apiKey };
  }

  async findByName(name: string): Promise<BusinessView | null> {
    const row = await store.findBusinessByName(this.db, name);
    return row ? this.get(row.id) : null;
  }

  /**
   * The business an operator names on the command line (`--business <id or name>`): by id,
   * or by a name exactly one business has. Names are not unique (two customers may both be
   * "Acme Ltd"), so a name several businesses share names none of them: `ambiguous` lists
   * their ids, and the caller must refuse rather than act for one of two tenants.
   */
  async resolve(ref: string): Promise<{ business: BusinessView } | { missing: true } | { ambiguous: string[] }> {
    if (/^[0-9a-f-]{36}$/i.test(ref)) {
      const row = await store.findBusiness(this.db, ref).catch(() => undefined);
      if (row) return { business: await this.get(row.id) };
    }
    const rows = await store.findBusinessesByName(this.db, ref);
    if (rows.length === 0) return { missing: true };
    if (rows.length > 1) return { ambiguous: rows.map((r) => r.id) };
    return { business: await this.get(rows[0]!.id) };
  }

  async get(id: string): Promise<BusinessView> {
    const row = await store.findBusiness(this.db, id);
    if (!row) throw new NotFoundError('Business');
    return { id: row.id, name: row.name, createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString() };
  }
}
