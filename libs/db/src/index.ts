export type { AdapterOptions, Queryable } from './database';
export { createPrismaAdapter, databaseUrlFor, dropDatabase, ensureDatabase, pingDatabase } from './database';
export type { AuthoredMigration, DiffOptions } from './diff';
export { diffMigration, SNAPSHOT_FILE } from './diff';
export type { LogFn } from './engine';
export type { GenerateOptions } from './generate';
export { generateClient } from './generate';
export type { ApplyOptions } from './migrations';
export { applyMigrations, LOCKFILE_CONTENT, MigrationError, markRolledBack, readMigrations } from './migrations';
