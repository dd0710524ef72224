// Word indexes of the small control SharedArrayBuffer shared by the shared-memory probe and its worker.

export const CTL = {
  CMD: 0, // command sequence number (bumped per command)
  OP: 1, // the command
  ARG: 2, // its argument (frame or message count)
  CREDIT: 3, // frames the decoder may still hand over (stream)
  PING: 4, // ping sequence (small messages)
  PONG: 5, // echoed ping sequence
  HEAD: 6, // small-message ring: messages written
  TAIL: 7, // small-message ring: messages read
  WAKE: 8, // bumped with every command or ping; the worker sleeps on it
  CONSUMER_WAITING: 9, // 1 while the analyzer side awaits HEAD (so the producer notifies only then)
} as const;
export const CTL_WORDS = 16;

export const OP_GO = 1;
export const OP_STREAM = 2;
export const OP_BURST = 3;
export const OP_STOP = 4;

/** Entries in the small-message ring (8 bytes each). */
export const SMALL_RING = 4096;
