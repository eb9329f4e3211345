/**
 * Hand-written column types that src/db/generated.ts refers to (see codegen.ts). numeric and
 * bigint columns are strings when read (pool.ts installs the parsers) and take a bigint or
 * its decimal string when written, so no amount passes through a JavaScript number.
 */
import type { ColumnType } from 'kysely';

/** timestamptz: a Date when read; a Date or an ISO string when written. */
export type TimestampColumn = ColumnType<Date, Date | string | undefined, Date | string>;
/** json/jsonb: `T` when read; the value itself or its JSON text when written. */
export type JsonColumn<T = unknown> = ColumnType<T, string | T, string | T>;
/** numeric(78,0) and friends: base units as a decimal string. */
export type NumericColumn = ColumnType<string, string | bigint, string | bigint>;
/** bigint (int8): a decimal string, never a number. */
export type Int8Column = ColumnType<string, string | bigint, string | bigint>;
