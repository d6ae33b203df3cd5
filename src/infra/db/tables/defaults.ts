import type { ColumnType } from 'kysely';

/** A column with a database default: optional on insert. */
export type WithDefault<T> = ColumnType<T, T | undefined, T>;
