// One error base class for the whole service; every subclass carries a stable `code` (documented in
// docs/errors.md, checked by test/errors.test.ts) and an optional `cause`.

export class TrafficCounterError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * The exit code for an error that ends a command (the CLI, the clip tools, eval:real): 2 for what the user fixes in
 * the command or the config (TC_ERR_USAGE, TC_ERR_CONFIG, TC_ERR_QUERY), 1 for everything else (docs/errors.md).
 */
export function exitCodeFor(err: unknown): number {
  if (err instanceof TrafficCounterError && ['TC_ERR_USAGE', 'TC_ERR_CONFIG', 'TC_ERR_QUERY'].includes(err.code)) return 2;
  return 1;
}

/** Bad configuration file or option: the message names the key and how to fix it. */
export class ConfigError extends TrafficCounterError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('TC_ERR_CONFIG', message, options);
  }
}

/** Bad command-line usage (unknown flag, missing value). */
export class UsageError extends TrafficCounterError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('TC_ERR_USAGE', message, options);
  }
}

/** A camera could not be read: HTTP error, timeout, body too large, connection refused. */
export class SourceError extends TrafficCounterError {
  constructor(
    code: 'TC_ERR_SOURCE_HTTP' | 'TC_ERR_SOURCE_TIMEOUT' | 'TC_ERR_SOURCE_TOO_LARGE' | 'TC_ERR_SOURCE_NETWORK' | 'TC_ERR_SOURCE_TLS' | 'TC_ERR_SOURCE_STREAM' | 'TC_ERR_SOURCE_BOUNDARY' | 'TC_ERR_SOURCE_PART_LENGTH' | 'TC_ERR_SOURCE_DIR',
    message: string,
    options?: { cause?: unknown; status?: number },
  ) {
    super(code, message, options);
    this.status = options?.status;
  }

  /** The HTTP status the camera answered, for TC_ERR_SOURCE_HTTP errors made from one. */
  readonly status: number | undefined;
}

/** A JPEG could not be decoded: truncated, corrupt, not a JPEG, or too large. */
export class DecodeError extends TrafficCounterError {
  constructor(
    code: 'TC_ERR_DECODE_NOT_JPEG' | 'TC_ERR_DECODE_CORRUPT' | 'TC_ERR_DECODE_TOO_LARGE' | 'TC_ERR_DECODE_SIZE_MISMATCH',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

/** A frame channel failed: decoder could not start, channel closed, transport error. */
export class ChannelError extends TrafficCounterError {
  constructor(code: 'TC_ERR_CHANNEL_CLOSED' | 'TC_ERR_CHANNEL_START' | 'TC_ERR_CHANNEL_TRANSPORT', message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** Bad query parameters (CLI or HTTP). */
export class QueryError extends TrafficCounterError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('TC_ERR_QUERY', message, options);
  }
}

/**
 * The HTTP API could not answer a count query now (HTTP 503): as many queries wait as it holds, one waited or ran
 * longer than its time limit, or the server is closing.
 */
export class QueryLimitError extends TrafficCounterError {
  constructor(code: 'TC_ERR_QUERY_BUSY' | 'TC_ERR_QUERY_TIMEOUT', message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** The SQLite store could not be opened or migrated, or refused a write. */
export class StoreError extends TrafficCounterError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('TC_ERR_STORE', message, options);
  }
}

/** Every stable code, for docs and tests. */
export const ERROR_CODES = [
  'TC_ERR_CONFIG',
  'TC_ERR_USAGE',
  'TC_ERR_SOURCE_HTTP',
  'TC_ERR_SOURCE_TIMEOUT',
  'TC_ERR_SOURCE_TOO_LARGE',
  'TC_ERR_SOURCE_NETWORK',
  'TC_ERR_SOURCE_TLS',
  'TC_ERR_SOURCE_STREAM',
  'TC_ERR_SOURCE_BOUNDARY',
  'TC_ERR_SOURCE_PART_LENGTH',
  'TC_ERR_SOURCE_DIR',
  'TC_ERR_DECODE_NOT_JPEG',
  'TC_ERR_DECODE_CORRUPT',
  'TC_ERR_DECODE_TOO_LARGE',
  'TC_ERR_DECODE_SIZE_MISMATCH',
  'TC_ERR_DECODE_TIMEOUT',
  'TC_ERR_CHANNEL_CLOSED',
  'TC_ERR_CHANNEL_START',
  'TC_ERR_CHANNEL_TRANSPORT',
  'TC_ERR_QUERY',
  'TC_ERR_QUERY_BUSY',
  'TC_ERR_QUERY_TIMEOUT',
  'TC_ERR_HTTP_HOST',
  'TC_ERR_STORE',
  'TC_ERR_NO_IMAGE',
  'TC_ERR_INTERNAL',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];
