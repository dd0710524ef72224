// Analyzer tunables: one commented defaults object (units stated) and the validator that merges a
// camera's `analyzer` object over it. Every default is derived from a physical or statistical principle,
// not from a particular clip, so a new camera should need no tuning.

import { ConfigError } from '../errors.js';

// The three keys marked "frame size" are in full-resolution pixels; their defaults here are those of a 1280x720
// camera, and for another frame size they follow the frame (see FRAME_SIZE_KEYS and resolveAnalyzerOptions):
// what they stand for (a vehicle part, a working pixel) covers the same share of any camera's picture.
export const ANALYZER_DEFAULTS = {
  downscale: 4, // frame size: working resolution = decoded frame / downscale (integer); 1280x720 → 320x180
  // The median is right where a pixel is clear of traffic for over half the span; a slow lorry near the
  // camera covers a pixel for 2-3 s, so the span must be well above twice that.
  bootstrapSec: 8, // background starts as the per-pixel median of the frames of the first seconds
  // The start-up frames also teach perspective and the usual motion before counting; at 1 fps 8 s hold
  // too few vehicles per lane for that, so the span is also at least 20 frames.
  bootstrapMinFrames: 20, // ... and of at least this many frames (frames are replayed afterwards, none lost)
  bootstrapMaxFrames: 40, // ... and at most this many (bounds start-up memory, ~0.5 MB each, and latency)
  bgTimeConstantSec: 15, // background pixels follow slow light change with this time constant (s)
  fgTimeConstantSec: 240, // a pixel covered by foreground is absorbed this slowly (s): parked cars fade
  noiseK: 4.5, // foreground threshold = noiseK × robust noise sigma, estimated every frame
  minDiff: 14, // foreground threshold floor, 0-255 grey levels (clean synthetic images have ~0 noise)
  shadowSuppression: true, // pixels darker than background with unchanged chromaticity are not foreground
  shadowMinRatio: 0.4, // darkest shadow accepted: frame / background brightness
  // A cast shadow dims the road by one ratio everywhere, so the scene's shadows show as a sharp peak in the
  // ratios of darker, same-chromaticity pixels; a low sun's may lie below shadowMinRatio.
  shadowLearnMinRatio: 0.3, // darkest shadow the scene's own shadows can teach (a peak below shadowMinRatio); ≥ shadowMinRatio: off
  shadowMaxRatio: 0.93, // lightest shadow: above this a darker pixel is just noise
  shadowChromaTol: 0.07, // max difference of per-channel ratios for a shadow (chromaticity preserved), plus 3 × noise sigma / background value
  minAreaPx: 80, // frame size: smallest blob considered a vehicle part, full-resolution px²
  minSizeFrac: 0.35, // once perspective is learned: reject blobs smaller than this × typical vehicle size at that row
  maxAspect: 5, // reject blobs longer than this × their width (or wider than this × their height)
  splitWidthFactor: 1.75, // a blob wider than this × typical vehicle width at its row is split (side by side), at a valley or where the colour changes
  // A colour edge is evidence of two vehicles by itself, so it needs less width than a valley does: enough for
  // a second vehicle to show half its width beside the first (a car half hidden by a lorry).
  colourSplitWidthFactor: 1.5, // ... and a blob wider than this × that width only where the colour changes
  maxSpeedSizesPerSec: 20, // plausible speed gate, in vehicle sizes per second (~150 km/h for a car)
  maxGapSec: 5, // frames further apart than this (camera outage) end all tracks instead of linking them
  trackMaxMissedSec: 2.5, // a track unseen for longer than this (and for 2+ frames) is dropped
  lineMarginFrac: 0.2, // hysteresis: a position counts as one side of a line only beyond this × blob size
  lineMinMarginPx: 4, // frame size: ... and beyond at least this many full-resolution px
  // A place where both directions mix never learns a usual motion, so a held crossing must count at some point;
  // its count reaches the store and the API that much later. 0: counted at once, unjudged (as before holding).
  heldCrossingMaxSec: 30, // a crossing where no usual motion is known yet waits this long (s) for one to judge it
  heavyAreaRatio: 2.4, // class 'heavy' when the blob area exceeds this × the typical vehicle area at its row
  twoWheelerAreaRatio: 0.4, // class 'two-wheeler' when below this × the typical area (and taller than wide)
} as const;

export type AnalyzerOptions = { readonly [K in keyof typeof ANALYZER_DEFAULTS]: (typeof ANALYZER_DEFAULTS)[K] extends boolean ? boolean : number };

/** Allowed range per numeric key: [min, max, integer]. */
const RANGES: { readonly [K in keyof typeof ANALYZER_DEFAULTS]?: readonly [number, number, boolean] } = {
  downscale: [1, 16, true],
  bootstrapSec: [0, 600, false],
  bootstrapMinFrames: [1, 200, true],
  bootstrapMaxFrames: [1, 200, true],
  bgTimeConstantSec: [0.5, 86_400, false],
  fgTimeConstantSec: [1, 86_400, false],
  noiseK: [1, 20, false],
  minDiff: [1, 128, false],
  shadowMinRatio: [0.05, 1, false],
  shadowLearnMinRatio: [0.05, 1, false],
  shadowMaxRatio: [0.05, 1, false],
  shadowChromaTol: [0, 1, false],
  minAreaPx: [1, 1_000_000, false],
  minSizeFrac: [0, 1, false],
  maxAspect: [1, 50, false],
  splitWidthFactor: [1.2, 10, false],
  colourSplitWidthFactor: [1.2, 10, false],
  maxSpeedSizesPerSec: [1, 200, false],
  maxGapSec: [0.1, 3_600, false],
  trackMaxMissedSec: [0.1, 60, false],
  lineMarginFrac: [0, 2, false],
  lineMinMarginPx: [0, 500, false],
  heldCrossingMaxSec: [0, 600, false],
  heavyAreaRatio: [1, 20, false],
  twoWheelerAreaRatio: [0, 1, false],
};

/** The frame size ANALYZER_DEFAULTS are given for, full-resolution px. */
export const REFERENCE_FRAME = { width: 1280, height: 720 } as const;

/**
 * Keys whose default follows the frame size when a camera leaves them unset. The analyzer's other pixel
 * constants (flow cells, morphology, the tracker's edge-of-view margin, the line habit's bins) are in working
 * pixels, and its vehicle-size rules in multiples of the vehicles it measures, so with these three the whole
 * pipeline sees a 640x360, a 1280x720 and a 1920x1080 picture of one road alike: the working picture has about
 * the same number of pixels, and the smallest vehicle part and the line margin cover the same share of it. (At the 1280x720 values, the shared
 * freeway clip resized to 1920x1080 counted wrong-way phantoms at 1 fps, and resized to 640x360 missed a third
 * of its vehicles: README, "Frame size".)
 */
export const FRAME_SIZE_KEYS = ['downscale', 'minAreaPx', 'lineMinMarginPx'] as const;

/** The frame-size options (FRAME_SIZE_KEYS) of a set of options. */
export type FrameSizeOptions = Pick<AnalyzerOptions, (typeof FRAME_SIZE_KEYS)[number]>;

/** The frame-size options in use, as /api/health and `eval --json` report them. */
export function frameSizeOptions(o: AnalyzerOptions): FrameSizeOptions {
  return { downscale: o.downscale, minAreaPx: o.minAreaPx, lineMinMarginPx: o.lineMinMarginPx };
}

/** The frame-size options in words, as the daemon's log and `eval` print them: "analysed at 1/4 (minAreaPx 80, lineMinMarginPx 4)". */
export function describeFrameSizeOptions(o: FrameSizeOptions): string {
  return `analysed at 1/${o.downscale} (minAreaPx ${Math.round(o.minAreaPx)}, lineMinMarginPx ${Math.round(o.lineMinMarginPx * 10) / 10})`;
}

/** A decoded frame's size in full-resolution px, and the scale it was decoded at (see AnalyzerFrame.scale). */
export interface FrameSize {
  readonly width: number;
  readonly height: number;
  readonly scale: number;
}

/**
 * The frame-size defaults for a frame of `size` (see FRAME_SIZE_KEYS): with k = √(area / 1280·720),
 * downscale ≈ 4k (a multiple of the decode scale, which must divide it), minAreaPx 80k², lineMinMarginPx 4k.
 */
export function frameSizeDefaults(size: FrameSize): FrameSizeOptions {
  const k = Math.sqrt((size.width * size.height) / (REFERENCE_FRAME.width * REFERENCE_FRAME.height));
  const s = size.scale;
  return {
    downscale: Math.max(1, Math.round((ANALYZER_DEFAULTS.downscale * k) / s)) * s,
    minAreaPx: ANALYZER_DEFAULTS.minAreaPx * k * k,
    lineMinMarginPx: ANALYZER_DEFAULTS.lineMinMarginPx * k,
  };
}

/**
 * Merges a camera's raw `analyzer` object over ANALYZER_DEFAULTS; throws ConfigError naming `${path}.${key}`.
 * With `frame` (the camera's first decoded frame), the frame-size keys left unset follow it (frameSizeDefaults).
 */
export function resolveAnalyzerOptions(raw: Readonly<Record<string, number | boolean>>, path: string, frame?: FrameSize): AnalyzerOptions {
  const allowed = Object.keys(ANALYZER_DEFAULTS);
  const out: Record<string, number | boolean> = { ...ANALYZER_DEFAULTS, ...(frame ? frameSizeDefaults(frame) : {}) };
  for (const [key, value] of Object.entries(raw ?? {})) {
    if (!Object.hasOwn(ANALYZER_DEFAULTS, key)) {
      throw new ConfigError(`${path}.${key}: unknown analyzer option; allowed keys are ${allowed.join(', ')}`);
    }
    const def = ANALYZER_DEFAULTS[key as keyof typeof ANALYZER_DEFAULTS];
    if (typeof def === 'boolean') {
      if (typeof value !== 'boolean') throw new ConfigError(`${path}.${key}: must be true or false, got ${JSON.stringify(value)}`);
    } else {
      const [min, max, integer] = RANGES[key as keyof typeof ANALYZER_DEFAULTS]!;
      if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
        // A frame-size key's default is the 1280x720 one only: unset, it follows the camera's frames.
        const defText = (FRAME_SIZE_KEYS as readonly string[]).includes(key) ? `default ${def} at 1280x720; unset, it follows the frame size` : `default ${def}`;
        throw new ConfigError(`${path}.${key}: must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max} (${defText}), got ${JSON.stringify(value)}`);
      }
    }
    out[key] = value;
  }
  // Two keys that must be in order: the message names the one the camera set (the lower one where it set both
  // or neither), with the other's value and whether that is the default, so that setting bootstrapMaxFrames 5
  // alone is not answered about a bootstrapMinFrames the config does not have.
  const given = (key: string): string => (Object.hasOwn(raw ?? {}, key) ? '' : ', the default');
  const setHigherOnly = (low: string, high: string): boolean => Object.hasOwn(raw ?? {}, high) && !Object.hasOwn(raw ?? {}, low);
  if ((out.shadowMinRatio as number) >= (out.shadowMaxRatio as number)) {
    throw new ConfigError(
      setHigherOnly('shadowMinRatio', 'shadowMaxRatio')
        ? `${path}.shadowMaxRatio: must be above shadowMinRatio (${out.shadowMinRatio}${given('shadowMinRatio')}), got ${out.shadowMaxRatio}; raise it, or lower shadowMinRatio too`
        : `${path}.shadowMinRatio: must be below shadowMaxRatio (${out.shadowMaxRatio}${given('shadowMaxRatio')}), got ${out.shadowMinRatio}`,
    );
  }
  if ((out.bootstrapMinFrames as number) > (out.bootstrapMaxFrames as number)) {
    throw new ConfigError(
      setHigherOnly('bootstrapMinFrames', 'bootstrapMaxFrames')
        ? `${path}.bootstrapMaxFrames: must be at least bootstrapMinFrames (${out.bootstrapMinFrames}${given('bootstrapMinFrames')}), got ${out.bootstrapMaxFrames}; raise it, or lower bootstrapMinFrames too`
        : `${path}.bootstrapMinFrames: must not exceed bootstrapMaxFrames (${out.bootstrapMaxFrames}${given('bootstrapMaxFrames')}), got ${out.bootstrapMinFrames}`,
    );
  }
  return Object.freeze(out) as AnalyzerOptions;
}
