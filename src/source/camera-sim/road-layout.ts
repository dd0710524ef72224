// Road geometry of the simulated scene, in world metres: a straight dual carriageway with two lanes each way.
// Inbound traffic drives toward the camera (down the image), outbound away from it (up the image).

export type TravelDirection = 'in' | 'out';

export const LANE_WIDTH_M = 3.5;
/** Half-width of the painted median between the carriageways. */
export const MEDIAN_HALF_M = 0.5;
/** Outer edge of each carriageway (|X|). */
export const CARRIAGEWAY_EDGE_M = MEDIAN_HALF_M + 2 * LANE_WIDTH_M;
/** Pavement beyond each carriageway edge. */
export const PAVEMENT_M = 2.6;

export interface Lane {
  /** 0..3 from left to right in the image. */
  readonly index: number;
  readonly direction: TravelDirection;
  /** Centre line X, m. */
  readonly x: number;
  /** True for the lane nearer the kerb (heavy vehicles keep to it). */
  readonly kerbSide: boolean;
}

// Right-hand traffic seen from the pole on the right verge: inbound (toward camera) on the left.
export const LANES: readonly Lane[] = [
  { index: 0, direction: 'in', x: -(MEDIAN_HALF_M + 1.5 * LANE_WIDTH_M), kerbSide: true },
  { index: 1, direction: 'in', x: -(MEDIAN_HALF_M + 0.5 * LANE_WIDTH_M), kerbSide: false },
  { index: 2, direction: 'out', x: MEDIAN_HALF_M + 0.5 * LANE_WIDTH_M, kerbSide: false },
  { index: 3, direction: 'out', x: MEDIAN_HALF_M + 1.5 * LANE_WIDTH_M, kerbSide: true },
];

/** Lanes of one carriageway: [kerb lane, median lane]. */
export function lanesOf(direction: TravelDirection): readonly [Lane, Lane] {
  return direction === 'in' ? [LANES[0]!, LANES[1]!] : [LANES[3]!, LANES[2]!];
}

/** Where inbound vehicles appear (front bumper Z, m): far enough to be a few pixels wide. */
export const INBOUND_ENTRY_Z = 450;
/** Where outbound vehicles leave (front bumper Z, m). */
export const OUTBOUND_EXIT_Z = 450;

/** Dashed lane line: paint length and period along the road, m. */
export const DASH_LENGTH_M = 3;
export const DASH_PERIOD_M = 12;
