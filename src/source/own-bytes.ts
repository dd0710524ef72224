// Frames leave the source as Uint8Arrays that own their whole ArrayBuffer, so a channel may transfer
// (detach) frame.jpeg.buffer without taking unrelated bytes (a socket read, Node's Buffer pool) along.

export function ownBytes(bytes: Uint8Array): Uint8Array {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && !(bytes.buffer instanceof SharedArrayBuffer)) {
    return bytes;
  }
  return new Uint8Array(bytes);
}
