// Bytes as they arrive over process IPC: a Uint8Array/Buffer with 'advanced' serialization, or
// {type: 'Buffer', data: number[]} with 'json' serialization (the historical, slow path); and bytes as they
// leave: a Buffer (process.send's 'json' mode keeps only Buffers, and zeromq sends them without a copy).

export function toUint8Array(v: unknown): Uint8Array {
  if (v instanceof Uint8Array) return v;
  if (typeof v === 'object' && v !== null && (v as { type?: unknown }).type === 'Buffer' && Array.isArray((v as { data?: unknown }).data)) {
    return Buffer.from((v as { data: number[] }).data);
  }
  throw new TypeError(`expected bytes over IPC, got ${typeof v}`);
}

/** The same bytes as a Buffer, without copying. */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
