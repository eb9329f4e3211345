import type { DbConn } from '../../db/pool.js';

export async function insertBusiness(db: DbConn, id: string, name: string): Promise<void> {
  await db.insertInto('businesses').values({ id, name }).execute();
}

export function findBusiness(db: DbConn, id: string) {
  return db.selectFrom('businesses').selectAll().where('id', '=', id).executeTakeFirst();
}

export function listBusinesses(db: DbConn) {
  return db.selectFrom('businesses').selectAll().orderBy('created_at').execute();
}

export function findBusinessByName(db: DbConn, name: string) {
  return db.selectFrom('businesses').selectAll().where('name', '=', name).orderBy('created_at').executeTakeFirst();
}

export function findBusinessesByName(db: DbConn, name: string) {
  return db.selectFrom('businesses').selectAll().where('name', '=', name).orderBy('created_at').execute();
}
