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

/**
 * How much of a line's traffic the ROI lets the analyzer see on both sides of the line at the camera's frame
 * rate (see CameraAnalyzer.lineReach): counting needs a sighting before the line and one after it.
 */
export interface LineReach {
  readonly lineId: string;
  /** Points sampled along the line inside the ROI, and how many of them have a learnt usual motion. */
  readonly samples: number;
  readonly known: number;
  /** The median interval between recent frames, s; null before two frames were analysed. */
  readonly frameIntervalSec: number | null;
  /** Medians over the known points (null where none is known), full-resolution px: how far a vehicle moves
   * in one frame interval at the usual motion from the line on (stepPx) and up to it (stepBackPx; perspective
   * makes them differ), and how far the ROI reaches along that motion before the line and after it (each up to
   * its step). */
  readonly stepPx: number | null;
  readonly stepBackPx: number | null;
  readonly beforePx: number | null;
  readonly afterPx: number | null;
  /**
   * Share of the vehicles seen at least once within one step of the line either way, whatever the phase of
   * the frames: min(1, (before + after) / step), median over the known points; null where none is known. Below
   * 1 some vehicles cross the ROI's reach between two frames and cannot be counted.
   */
  readonly seenNear: number | null;
  /**
   * Share of the vehicles that can be seen on both sides of the line, whatever the phase of the frames:
   * max(0, before + after − step) / step, median over the known points; null where none is known.
   */
  readonly bothSides: number | null;
  /** The ROI's depth across the line (along its normal, both sides together), full-resolution px: the median
   * over the points sampled along the line inside the ROI; null where none is. */
  readonly depthPx: number | null;
  /** The same depth on each side of the line: the side an 'in' vehicle moves to, and the other; null where none is. */
  readonly depthInSidePx: number | null;
  readonly depthOutSidePx: number | null;
  /**
   * Vehicles (tracks) seen on the line, their blob across it, since the start, counted when their track ends;
   * and how many of them were seen in that frame only, on no other frame, so on neither side of the line: those
   * cannot be counted. Many of them mean the ROI around the line is shorter than a frame interval of travel,
   * whatever motion was learnt from the few seen twice (see lineReachWarning).
   */
  readonly vehiclesOnLine: number;
  readonly seenOnlyOnLine: number;
  /** Of vehiclesOnLine, those the line counted (see lineShortfallWarning: the rest were never seen stably on both sides). */
  readonly countedOnLine: number;
}
