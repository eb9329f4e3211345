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

  async get(id: string): Promise<BusinessView> {
    const row = await store.findBusiness(this.db, id);
    if (!row) throw new NotFoundError('Business');
    return { id: row.id, name: row.name, createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString() };
  }
}
