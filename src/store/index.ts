export { type Backend, backendOf, compiledOnce, insertAll, insertRows, isPostgresUrl, ROWS_PER_STATEMENT } from './backend.js';
export type { ChainReport } from './chain.js';
export { Claims } from './claims.js';
export { inWriteTransaction, readHead, type DeferredReply } from './commit.js';
export { isHeaderOnly, rowToEvent } from './rows.js';
export { LOG_FILE, openDatabase, openLocation, withSchemaLock, type OpenedDatabase, type OpenedLocation } from './database.js';
export { type FileStore, migrateFileTable, openFileStore, readWhole } from './files.js';
export { fold, handleCommand, type Decider } from './decider.js';
export { ExpectedVersionConflictError, isUniqueViolation } from './errors.js';
export { StaleControlError } from './fence.js';
export { EventStore, type InlineProjector } from './event-store.js';
export { openSecrets, type Secrets, type SharedSecret } from './secrets.js';
export { StorageHealth, storageFailureCode, type StorageProblem } from './storage-health.js';
export { ThreadWriter, WriterPort } from './thread-writer.js';
export { InlineWriter, type Writer } from './writer.js';
export { migrateStore, type StoreTables } from './schema.js';
export type {
  AppendObserver,
  AppendOptions,
  AppendResult,
  EventMetadata,
  ExpectedVersion,
  NewEvent,
  ReadAllOptions,
  StoredEvent,
  StoredOf,
  StreamWrite,
  Subscriber,
} from './types.js';
export { Upcasters, type Upcaster } from './upcasters.js';
export { decodeNumbered, encodeNumbered, keyTable, numberedWith, type KeyTable, type Numbered } from './numbered-keys.js';
