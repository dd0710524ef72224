// The SQLite count store: writer, read-only reader, query parameters and output formats.

export { CountStore, STORE_DEFAULTS, dbFolderProblem } from './count-store.js';
export { WriterLock } from './writer-lock.js';
export type { CountStoreOptions, CameraRegistration, FrameTickDelta, LineRedrawn, LineTotal, CountStoreStats, StoreTrouble } from './count-store.js';
export { CountReader, queryCounts, selectCountRows } from './count-reader.js';
export { parseQueryParams, parseTimeInput, BUCKETS, BUCKET_MS, COUNT_FORMATS, QUERY_BUCKETS } from './query-counts.js';
export type { Bucket, QueryBucket, CountFormat, CountRow, QueryParams, QueryOptions } from './query-counts.js';
export { formatCounts } from './format-counts.js';
export { migrate, checkNotNewer, schemaVersion, MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
