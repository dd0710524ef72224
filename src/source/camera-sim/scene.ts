// A deterministic synthetic traffic camera: createScene(seed, scenario) renders the view at any time t and
// reports the exact ground-truth line crossings. Rendering at t is a pure function of (seed, scenario, t).

import jpeg from 'jpeg-js';
import { ConfigError } from '../../errors.js';
import { CameraModel, DEFAULT_POSE, type CameraPose } from './camera-model.js';
import { designCountingLines, type SimLine } from './counting-lines.js';
import { FrameRenderer, type DrawVehicle } from './frame-renderer.js';
import { Illumination } from './illumination.js';
import { JpegEncoder } from './jpeg-encoder.js';
import { hash32 } from './prng.js';
import { renderBackground } from './road-background.js';
import { SCENARIOS, SCENARIO_PARAMS, isScenarioName, type ScenarioName } from './scenarios.js';
import { TrafficSimulation, type TruthEvent } from './traffic-simulation.js';
import type { VehicleType } from './vehicle-model.js';
import { vehicleBBox } from './vehicle-placement.js';

export type { TruthEvent } from './traffic-simulation.js';

export interface SceneOptions {
  readonly seed: number;
  readonly scenario?: ScenarioName;
  /** Frame size in pixels; default 1280x720. */
  readonly width?: number;
  readonly height?: number;
  /** Fixed JPEG quality 1..100; default varies per frame between 70 and 85. */
  readonly jpegQuality?: number;
  /**
   * 'builtin' (default): 4:2:0 chroma like real cameras, ~3x faster; 'jpeg-js': jpeg-js's 4:4:4 encoder.
   */
  readonly jpegEncoder?: 'builtin' | 'jpeg-js';
  /** Camera placement, over DEFAULT_POSE (a 9 m pole at the verge): other views of the same road. */
  readonly pose?: Partial<CameraPose>;
}

export interface TruthCounts {
  readonly lines: Record<string, { in: number; out: number }>;
}

export interface SimCameraConfig {
  readonly id: 'sim';
  readonly roi: [number, number][];
  readonly lines: { id: string; from: [number, number]; to: [number, number] }[];
  /** The scene's frame size, which the ROI and lines are in. */
  readonly drawnOn: [number, number];
}

/** A vehicle in view: its body's image bounding box (the reference the truth uses; occlusion ignored). */
export interface VisibleVehicle {
  readonly vehicleId: number;
  readonly type: VehicleType;
  /** 'in' = toward the camera (down the image). */
  readonly direction: 'in' | 'out';
  /** [x, y, w, h] in pixels, not clipped to the frame. */
  readonly bbox: [number, number, number, number];
}

export interface Scene {
  readonly seed: number;
  readonly scenario: ScenarioName;
  readonly width: number;
  readonly height: number;
  /** RGBA (width * height * 4) of the view at tSec seconds after the simulation start; reuses out if given. */
  render(tSec: number, out?: Uint8Array): Uint8Array;
  /** JPEG (baseline JFIF) of render(tSec), at the frame's quality (fixed, or varying 70-85 per frame). */
  encodeJpeg(tSec: number): { jpeg: Buffer; quality: number };
  /** JPEG quality used for the frame at tSec. */
  jpegQualityAt(tSec: number): number;
  /** Ground-truth crossings with fromSec < t <= untilSec, in time order. */
  crossings(untilSec: number, fromSec?: number): TruthEvent[];
  /** Crossings per line and direction with fromSec < t <= untilSec; every line is listed, even at zero. */
  truthCounts(untilSec: number, fromSec?: number): TruthCounts;
  /** Vehicles at least partly in the frame at tSec, with their body bounding boxes. */
  vehicles(tSec: number): VisibleVehicle[];
  /**
   * For each vehicle drawn in the frame at tSec (by vehicleId): the share of its pixels in the frame that no
   * nearer vehicle covers, 0 to 1, counting only pixels where `region` (width × height, e.g. the ROI) is non-zero
   * when given: how much of it a camera, or an analyzer of that region, can see. Vehicles with no pixel in the
   * frame are not listed.
   */
  visibleShares(tSec: number, region?: Uint8Array): Map<number, number>;
  /** Camera config (without url) for src/config/validate-config.ts: ROI and counting lines of this view. */
  cameraConfig(): SimCameraConfig;
}

function checkInt(name: string, v: unknown, min: number, max: number): void {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new ConfigError(`camera-sim ${name}: must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
  }
}

// Plausible placements of a road camera (metres, radians, focal length per image width); not every
// combination keeps the road in view.
const POSE_LIMITS: Record<keyof CameraPose, [number, number]> = {
  x: [-15, 15],
  height: [3, 40],
  yaw: [-0.8, 0.8],
  pitch: [0.05, 1.2],
  focalPerWidth: [0.4, 3],
};

function checkPose(pose: Partial<CameraPose> | undefined): void {
  for (const [key, v] of Object.entries(pose ?? {})) {
    if (!Object.hasOwn(POSE_LIMITS, key)) throw new ConfigError(`camera-sim pose.${key}: unknown; use ${Object.keys(POSE_LIMITS).join(', ')}`);
    const lim = POSE_LIMITS[key as keyof CameraPose];
    if (typeof v !== 'number' || !(v >= lim[0] && v <= lim[1])) {
      throw new ConfigError(`camera-sim pose.${key}: must be a number from ${lim[0]} to ${lim[1]}, got ${JSON.stringify(v)}`);
    }
  }
}

function checkTime(name: string, t: number): void {
  if (typeof t !== 'number' || !Number.isFinite(t) || t < 0) {
    throw new ConfigError(`camera-sim ${name}: must be a time in seconds >= 0 since the simulation start, got ${String(t)}`);
  }
}

/** Builds a scene; throws ConfigError for a bad option. */
export function createScene(opts: SceneOptions): Scene {
  const seed = opts.seed;
  checkInt('seed', seed, 0, 0xffffffff);
  const scenario = opts.scenario ?? 'default';
  if (!isScenarioName(scenario)) {
    throw new ConfigError(`camera-sim scenario: unknown "${String(scenario)}"; use one of ${SCENARIOS.join(', ')}`);
  }
  const width = opts.width ?? 1280;
  const height = opts.height ?? 720;
  checkInt('width', width, 160, 4096);
  checkInt('height', height, 120, 4096);
  if (opts.jpegQuality !== undefined) checkInt('jpegQuality', opts.jpegQuality, 1, 100);
  const fixedQuality = opts.jpegQuality;
  const encoderName = opts.jpegEncoder ?? 'builtin';
  if (encoderName !== 'builtin' && encoderName !== 'jpeg-js') {
    throw new ConfigError(`camera-sim jpegEncoder: must be "builtin" or "jpeg-js", got ${JSON.stringify(encoderName)}`);
  }
  let encoder: JpegEncoder | null = null;

  const params = SCENARIO_PARAMS[scenario];
  checkPose(opts.pose);
  const camera = new CameraModel(width, height, { ...DEFAULT_POSE, ...opts.pose });
  const design = designCountingLines(camera);
  const sim = new TrafficSimulation(seed, params, camera, design.lines, design.row);
  const light = new Illumination(seed, params);
  let renderer: FrameRenderer | null = null; // built on first render: the background takes a moment
  let scratch: Uint8Array | null = null;
  const lines: readonly SimLine[] = design.lines;

  /** The vehicles in view at tSec as the renderer draws them, with their ids (same order). */
  const drawList = (tSec: number): { list: DrawVehicle[]; ids: number[] } => {
    sim.advanceTo(tSec, true);
    const list: DrawVehicle[] = [];
    const ids: number[] = [];
    sim.vehiclesAt(tSec, (veh, frontZ) => {
      list.push({ model: veh.model, direction: veh.direction, x: veh.x, frontZ });
      ids.push(veh.id);
    });
    return { list, ids };
  };
  const getRenderer = (): FrameRenderer => (renderer ??= new FrameRenderer(camera, renderBackground(camera, params, seed), params, seed));

  const visibleShares = (tSec: number, region?: Uint8Array): Map<number, number> => {
    checkTime('visibleShares(t)', tSec);
    if (region !== undefined && region.length !== width * height) {
      throw new ConfigError(`camera-sim visibleShares(t, region): region must hold ${width * height} bytes (${width}x${height}), got ${region.length}`);
    }
    const { list, ids } = drawList(tSec);
    const { drawn, visible } = getRenderer().coverage(list, region);
    const out = new Map<number, number>();
    ids.forEach((id, i) => { if (drawn[i]! > 0) out.set(id, visible[i]! / drawn[i]!); });
    return out;
  };

  const render = (tSec: number, out?: Uint8Array): Uint8Array => {
    checkTime('render(t)', tSec);
    const size = width * height * 4;
    if (out !== undefined && out.length !== size) {
      throw new ConfigError(`camera-sim render(t, out): out must hold ${size} bytes (${width}x${height} RGBA), got ${out.length}`);
    }
    const { list } = drawList(tSec);
    // Noise is keyed to the millisecond, so the same instant always gets the same noise.
    return getRenderer().render(list, light.gain(tSec), Math.round(tSec * 1000), out ?? new Uint8Array(size));
  };

  const jpegQualityAt = (tSec: number): number => fixedQuality ?? 70 + (hash32(seed, Math.round(tSec * 1000), 5150) % 16);

  const crossings = (untilSec: number, fromSec = 0): TruthEvent[] => {
    checkTime('crossings(until)', untilSec);
    sim.advanceTo(untilSec);
    return sim.eventsBetween(fromSec, untilSec);
  };

  return {
    seed,
    scenario,
    width,
    height,
    render,
    encodeJpeg(tSec) {
      scratch ??= new Uint8Array(width * height * 4);
      const data = render(tSec, scratch);
      const quality = jpegQualityAt(tSec);
      if (encoderName === 'jpeg-js') return { jpeg: jpeg.encode({ width, height, data }, quality).data, quality };
      encoder ??= new JpegEncoder();
      return { jpeg: encoder.encode(data, width, height, quality), quality };
    },
    jpegQualityAt,
    crossings,
    visibleShares,
    truthCounts(untilSec, fromSec = 0) {
      const out: Record<string, { in: number; out: number }> = {};
      for (const l of lines) out[l.id] = { in: 0, out: 0 };
      for (const e of crossings(untilSec, fromSec)) out[e.lineId]![e.direction]++;
      return { lines: out };
    },
    vehicles(tSec) {
      checkTime('vehicles(t)', tSec);
      sim.advanceTo(tSec, true);
      const out: VisibleVehicle[] = [];
      const b = new Float64Array(4);
      sim.vehiclesAt(tSec, (veh, frontZ) => {
        if (vehicleBBox(camera, veh.model, veh.direction, veh.x, frontZ, b) !== 'in-front') return;
        if (b[2]! < 0 || b[0]! >= width || b[3]! < 0 || b[1]! >= height) return;
        out.push({ vehicleId: veh.id, type: veh.model.type, direction: veh.direction, bbox: [b[0]!, b[1]!, b[2]! - b[0]!, b[3]! - b[1]!] });
      });
      return out;
    },
    cameraConfig() {
      return {
        id: 'sim',
        roi: design.roi.map((p) => [p[0], p[1]] as [number, number]),
        lines: lines.map((l) => ({ id: l.id, from: [l.from[0], l.from[1]] as [number, number], to: [l.to[0], l.to[1]] as [number, number] })),
        drawnOn: [width, height],
      };
    },
  };
}
