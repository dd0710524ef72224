// What the analyzer consumes and produces.

export type Direction = 'in' | 'out';
/** The analyzer's size classes ('unknown' until it has learnt the typical vehicle size), in storage order. */
export const VEHICLE_CLASSES = ['car', 'heavy', 'two-wheeler', 'unknown'] as const;
export type VehicleClass = (typeof VEHICLE_CLASSES)[number];

/** One RGBA frame as the analyzer sees it. */
export interface AnalyzerFrame {
  /** Size of this frame, in its own pixels (at scale s, about the camera's size / s). */
  readonly width: number;
  readonly height: number;
  /**
   * Full-resolution pixels per frame pixel (the decode scale; default 1). Config coordinates stay in
   * full-resolution pixels whatever the scale; it must divide analyzer.downscale.
   */
  readonly scale?: number;
  /** width * height * 4 bytes, RGBA; the analyzer must not keep a reference after process() returns. */
  readonly data: Uint8Array;
  /** Capture time, ms since the Unix epoch. */
  readonly timeMs: number;
}

/** A vehicle crossing one counting line. */
export interface CrossingEvent {
  readonly cameraId: string;
  readonly lineId: string;
  /** 'in' when cross(to - from, motion) > 0: for a line drawn left to right, motion down the image. */
  readonly direction: Direction;
  /** Time of the crossing, ms since the Unix epoch (interpolated between frames where possible). */
  readonly timeMs: number;
  readonly trackId: number;
  readonly vehicleClass: VehicleClass;
  /** Blob area in pixels of the full-resolution frame at the crossing. */
  readonly areaPx: number;
  /** Bounding box [x, y, w, h] in full-resolution pixels at the crossing. */
  readonly bbox: readonly [number, number, number, number];
  /** Speed in full-resolution pixels per second at the crossing. */
  readonly speedPxPerS: number;
  /** Frames the track was seen in before it was counted. */
  readonly framesSeen: number;
}
