/**
 * SQL for comparing a stored address with given ones, by chains/address-key.ts's rule: hex
 * addresses case-insensitively, base58 ones exactly. The `lower(column)` term stays in every
 * form so the functional indexes on lower(address) still find the rows.
 */
import { sql, type RawBuilder } from 'kysely';
import { isHexAddress } from '../chains/address-key.js';

/** `column` names `address` (one address). */
export function sameAddress(column: string, address: string): RawBuilder<boolean> {
  const col = sql.ref(column);
  const lower = address.toLowerCase();
  return isHexAddress(address) ? sql<boolean>`lower(${col}) = ${lower}` : sql<boolean>`(lower(${col}) = ${lower} AND ${col} = ${address})`;
}

/** `column` names one of `addresses`. */
export function anyAddress(column: string, addresses: string[]): RawBuilder<boolean> {
  const col = sql.ref(column);
  const lower = addresses.map((a) => a.toLowerCase());
  return sql<boolean>`(lower(${col}) = ANY(${lower}::text[]) AND (${col} ILIKE '0x%' OR ${col} = ANY(${addresses}::text[])))`;
}
