// The simulator's named scenarios: traffic volume and mix, lighting, shadows and disturbances.
// Every scenario is deterministic for a seed; only these parameters differ.

import type { VehicleType } from './vehicle-model.js';

export const SCENARIOS = ['default', 'light', 'dense', 'side-by-side', 'occlusion', 'hard-shadows', 'illumination-step', 'empty'] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export interface SignalParams {
  /** Stop line position along the road (front bumper Z at which queued vehicles stop), m. */
  readonly stopZ: number;
  readonly greenSec: number;
  readonly redSec: number;
  /** Phase offset into the cycle at t = 0, s. */
  readonly offsetSec: number;
}

export interface ScenarioParams {
  readonly name: ScenarioName;
  /** Mean arrivals per second per carriageway (Poisson); 0 = no traffic. */
  readonly arrivalsPerSec: number;
  /** Smallest gap between two arrivals on one carriageway, s. */
  readonly minHeadwaySec: number;
  readonly typeMix: Readonly<Record<VehicleType, number>>;
  /** Probability that a heavy vehicle uses the kerb lane (otherwise the median lane). */
  readonly heavyKerbLane: number;
  /** Probability that an arrival brings a second vehicle abreast in the other lane. */
  readonly abreastProb: number;
  /** Heavy vehicles go to the lane nearer the camera and are shadowed by a car in the far lane. */
  readonly occlusion: boolean;
  /** Traffic signal per carriageway (stop-and-go); null = free flow. */
  readonly signals: { readonly in: SignalParams | null; readonly out: SignalParams | null };
  /** Desired speed range, km/h (urban). */
  readonly speedKmh: readonly [number, number];
  /** Sun elevation above the horizon, degrees (lower = longer shadows). */
  readonly sunElevationDeg: number;
  /** Direction the shadows fall, degrees: 0 = along +Z (away from the camera), 90 = toward -X (left). */
  readonly shadowAzimuthDeg: number;
  /** Brightness factor inside a cast shadow (lower = harder shadow). */
  readonly shadowFactor: number;
  /** Slow global brightness drift amplitude (0.15 = ±15%). */
  readonly driftAmplitude: number;
  /** Sudden brightness steps (cloud, auto-exposure) a few times per minute. */
  readonly illuminationSteps: boolean;
  /** Sensor noise standard deviation, grey levels. */
  readonly noiseSigma: number;
}

const BASE: ScenarioParams = {
  name: 'default',
  arrivalsPerSec: 0.3, // ~1,100 vehicles/h per direction
  minHeadwaySec: 1.2,
  typeMix: { car: 0.72, van: 0.11, heavy: 0.09, 'two-wheeler': 0.08 },
  heavyKerbLane: 0.85,
  abreastProb: 0.08,
  occlusion: false,
  signals: { in: null, out: null },
  speedKmh: [32, 56],
  sunElevationDeg: 42,
  shadowAzimuthDeg: 60,
  shadowFactor: 0.58,
  driftAmplitude: 0.15,
  illuminationSteps: false,
  noiseSigma: 3.2,
};

export const SCENARIO_PARAMS: Readonly<Record<ScenarioName, ScenarioParams>> = {
  default: BASE,
  light: { ...BASE, name: 'light', arrivalsPerSec: 0.07, minHeadwaySec: 3 },
  dense: {
    ...BASE,
    name: 'dense',
    arrivalsPerSec: 0.5,
    minHeadwaySec: 1.0,
    // Signals just beyond the view (inbound) and in the upper part of the view (outbound) build queues
    // that reach across the counting lines.
    signals: {
      in: { stopZ: 9, greenSec: 22, redSec: 14, offsetSec: 6 },
      out: { stopZ: 52, greenSec: 24, redSec: 12, offsetSec: 20 },
    },
  },
  'side-by-side': { ...BASE, name: 'side-by-side', arrivalsPerSec: 0.3, abreastProb: 0.65, minHeadwaySec: 1.6 },
  occlusion: {
    ...BASE,
    name: 'occlusion',
    arrivalsPerSec: 0.26,
    typeMix: { car: 0.6, van: 0.08, heavy: 0.28, 'two-wheeler': 0.04 },
    occlusion: true,
  },
  'hard-shadows': { ...BASE, name: 'hard-shadows', sunElevationDeg: 17, shadowAzimuthDeg: 75, shadowFactor: 0.36 },
  'illumination-step': { ...BASE, name: 'illumination-step', illuminationSteps: true },
  empty: { ...BASE, name: 'empty', arrivalsPerSec: 0, illuminationSteps: true },
};

export function isScenarioName(v: unknown): v is ScenarioName {
  return typeof v === 'string' && (SCENARIOS as readonly string[]).includes(v);
}
