// Picks the sandbox's store: PostgreSQL when a database URL is given (several instances sharing state),
// node:sqlite otherwise (on `file`, or in memory). Call `migrate()` before the first transaction.
import { createPostgresStore } from './postgres.ts';
import { createSqliteStore } from './sqlite.ts';
import type { Store } from './types.ts';

export * from './types.ts';
export { createPostgresStore, type PostgresStoreOptions } from './postgres.ts';
export { createSqliteStore, type SqliteStoreOptions } from './sqlite.ts';

export interface StoreOptions {
  /** `postgres://…` (e.g. $DATABASE_URL): the PostgreSQL store. An empty string counts as not given. */
  databaseUrl?: string | undefined;
  /** The SQLite database file when there is no database URL; in memory when omitted. */
  file?: string | undefined;
}

export function createStore(options: StoreOptions = {}): Store {
  if (options.databaseUrl) return createPostgresStore({ url: options.databaseUrl });
  return createSqliteStore({ file: options.file });
}
