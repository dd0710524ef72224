// Optional libjpeg-turbo decoder through sharp (an optional dependency). Placeholder until the channel work lands.

import { ConfigError } from '../errors.js';
import type { JpegDecoder } from './decode-jpeg.js';

export async function createSharpDecoder(): Promise<JpegDecoder> {
  throw new ConfigError('decoder: "sharp" is not available in this build; use "jpeg-js"');
}
