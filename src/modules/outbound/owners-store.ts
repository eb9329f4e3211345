/**
 * Owners of a multi-owner outbound row (migration 029, outbound_owners): a row whose call
 * carries several transfers (Sender.combine) names a group id as owner_id, and the group
 * lists its owners in order. Re-exported by store.ts.
 */
import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';

export async function insertOwnerGroups(db: DbConn, groups: { groupId: string; owners: string[] }[]): Promise<void> {
  const values = groups.flatMap((g) => g.owners.map((o, position) => sql`(${g.groupId}, ${o}, ${position})`));
  if (values.length === 0) return;
  await sql`INSERT INTO outbound_owners (group_id, owner_id, position) VALUES ${sql.join(values)}`.execute(db);
}

/** The owners of a row's owner_id, in order: the group's, or the owner itself when it is no group. */
export async function ownersOf(db: DbConn, ownerId: string): Promise<string[]> {
  const { rows } = await sql<{ owner_id: string }>`
    SELECT owner_id FROM outbound_owners WHERE group_id = ${ownerId} ORDER BY position`.execute(db);
  return rows.length > 0 ? rows.map((r) => r.owner_id) : [ownerId];
}
