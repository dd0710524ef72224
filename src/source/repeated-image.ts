// A camera's images told apart by their bytes: the same bytes again are not a new image (a frozen camera, or a
// snapshot not yet refreshed). Used by the snapshot and MJPEG sources alike.

import { createHash } from 'node:crypto';

export class RepeatedImage {
  /** SHA-1 of the latest image that was not a repeat. */
  #last: Buffer | undefined;

  /** Whether `jpeg` is byte-identical to the latest image that was not a repeat; if not, it becomes that image. */
  is(jpeg: Uint8Array): boolean {
    const hash = createHash('sha1').update(jpeg).digest();
    if (this.#last?.equals(hash)) return true;
    this.#last = hash;
    return false;
  }
}
