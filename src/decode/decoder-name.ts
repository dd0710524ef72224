// The decoders' names, in a module of its own so that config validation and message types can use them
// without loading any decoder.

/** The portable default first; the others are optional packages with native code. */
export const DECODERS = ['jpeg-js', 'sharp', 'jpeg-turbo'] as const;
export type DecoderName = (typeof DECODERS)[number];

export function isDecoderName(v: unknown): v is DecoderName {
  return (DECODERS as readonly unknown[]).includes(v);
}
