// Frame sources: where a camera's JPEG bytes come from (HTTP snapshots, MJPEG streams, a folder of files).

export type { FrameSource, SlotEvents, SourceEvents, SourceStats } from './frame-source.js';
export { HttpSnapshotSource, type HttpSnapshotSourceOptions } from './http-snapshot-source.js';
export { MjpegStreamSource, type MjpegStreamSourceOptions } from './mjpeg-stream-source.js';
export { MjpegParser, type MjpegParserOptions, type MjpegParserStats } from './mjpeg-parser.js';
export { DirectorySource, type DirectorySourceOptions } from './directory-source.js';
export { Backoff, backoffDelay, type BackoffOptions } from './backoff.js';
export { createSource } from './create-source.js';
