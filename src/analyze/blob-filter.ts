// Turns connected components into vehicle detections in full-resolution pixels: splits blobs of vehicles
// touching side by side, and drops blobs too small, too thin or too elongated for a vehicle at their row.

import type { Component } from './connected-components.js';
import type { Planes } from './background-model.js';
import type { RoiGeometry } from './roi-mask.js';
import type { PerspectiveModel } from './perspective-model.js';

export interface Detection {
  /** Centroid, full-resolution px. */
  x: number;
  y: number;
  /** Area in full-resolution px². */
  area: number;
  /** sqrt(area), the scale used for gates and margins. */
  size: number;
  /** Bounding box, full-resolution px. */
  bx: number;
  by: number;
  bw: number;
  bh: number;
  /** Mean colour, 0-255. */
  r: number;
  g: number;
  b: number;
  /** THUMB×THUMB grid over the bbox: per cell mean R, G, B of the blob's pixels and their fraction of the cell. */
  thumb: Float32Array;
  /** False when split from a wider blob or merged from fragments: such a blob must not teach perspective. */
  whole: boolean;
  /**
   * For each part of a blob cut across the lanes (see splitAcross): the blob's label in its frame, the same for
   * all its parts, which the cut found to be vehicles side by side.
   */
  splitOf?: number;
  /** For each part of a blob cut across the lanes: that blob's size, px (see splitOf). */
  splitSize?: number;
}

/** Thumbnail grid side: coarse enough for a 6-px-wide far car, fine enough to tell a windscreen from a roof. */
export const THUMB = 4;

/**
 * Appearance distance of two thumbnails, in grey levels: mean colour difference where both blobs have
 * pixels plus a shape term where one has pixels and the other not. Bboxes are normalised, so perspective
 * growth between frames does not count.
 */
export function thumbDistance(a: Float32Array, b: Float32Array): number {
  let sum = 0, cells = 0;
  for (let k = 0; k < THUMB * THUMB; k++) {
    const o = k * 4;
    const fa = a[o + 3]!, fb = b[o + 3]!;
    if (fa === 0 && fb === 0) continue;
    cells++;
    if (fa > 0 && fb > 0) {
      sum += (Math.abs(a[o]! - b[o]!) + Math.abs(a[o + 1]! - b[o + 1]!) + Math.abs(a[o + 2]! - b[o + 2]!)) / 3;
    }
    sum += 80 * Math.abs(fa - fb);
  }
  return cells ? sum / cells : 0;
}

export interface BlobFilterParams {
  readonly minAreaPx: number;
  readonly minSizeFrac: number;
  readonly maxAspect: number;
  readonly splitWidthFactor: number;
  readonly colourSplitWidthFactor: number;
}

/** Splits and filters components; `labels` is the label image the components came from. */
export function componentsToDetections(
  comps: readonly Component[],
  labels: Int32Array,
  cur: Planes,
  geom: RoiGeometry,
  persp: PerspectiveModel,
  p: BlobFilterParams,
  direction?: MotionDirection,
): Detection[] {
  const groupOf = new Int32Array(comps.length + 2);
  const out: Detection[] = [];
  const s = geom.scale;
  for (const c of mergeFragments(comps, geom, persp, groupOf)) {
    if (c.area * s * s < p.minAreaPx) continue;
    const cy = geom.y0 + (c.sumY / c.area + 0.5) * s;
    const expW = persp.width(cy);
    const wFull = (c.maxX - c.minX + 1) * s;
    // Cuts at a valley need the wider blob: a single vehicle's profile can dip, where a colour edge across the
    // lanes is seldom inside one vehicle (see colourSplitWidthFactor). Both are false while no typical width
    // is learnt (expW NaN).
    const byValley = wFull > p.splitWidthFactor * expW;
    const byColour = wFull > p.colourSplitWidthFactor * expW && persp.size(cy) >= CHROMA_MIN_SIZE * s;
    if ((byValley || byColour) && c.label > 0) {
      const cx = geom.x0 + (c.sumX / c.area + 0.5) * s;
      const parts = splitAcross(c, labels, cur, geom, Math.round(wFull / expW), direction?.(cx, cy), byValley, byColour);
      const cut = parts.length > 1 ? { label: c.label, size: Math.sqrt(c.area) * s } : undefined;
      for (const part of parts) push(part.c, parts.length === 1, part.owns, cut);
    } else {
      push(c, c.label > 0);
    }
  }
  return out;

  // `owns`: which of the label's pixels belong to this part (a split part owns a range of offsets across the motion).
  function push(c: Component, whole: boolean, owns?: (x: number, y: number) => boolean, cut?: { label: number; size: number }): void {
    if (c.area === 0) return;
    const area = c.area * s * s;
    const thumb = thumbnail(c, labels, cur, geom.width, groupOf, owns);
    if (area < p.minAreaPx) return;
    const w = (c.maxX - c.minX + 1) * s;
    const h = (c.maxY - c.minY + 1) * s;
    if (w > p.maxAspect * h || h > p.maxAspect * w) return;
    const y = geom.y0 + (c.sumY / c.area + 0.5) * s;
    const size = Math.sqrt(area);
    const exp = persp.size(y);
    // No upper bound: a blob larger than any vehicle is vehicles merged (a queue, a car beside a lorry), and
    // dropping it would lose them all (see README, "The analyzer").
    if (!Number.isNaN(exp) && size < p.minSizeFrac * exp) return;
    out.push({
      x: geom.x0 + (c.sumX / c.area + 0.5) * s,
      y,
      area,
      size,
      bx: geom.x0 + c.minX * s,
      by: geom.y0 + c.minY * s,
      bw: w,
      bh: h,
      r: c.sumR / c.area,
      g: c.sumG / c.area,
      b: c.sumB / c.area,
      thumb,
      whole,
      ...(cut ? { splitOf: cut.label, splitSize: cut.size } : {}),
    });
  }
}

const VALLEY = 2 / 3;
// Vehicles abreast whose blobs touch with no valley between them (one's roof over the other's side, at a
// slant) are still cut where their colours differ: the chromaticity (the red and green shares of r + g + b)
// of one vehicle's width on either side of the cut differs by at least CHROMA_CUT. Shading changes
// brightness, not chromaticity, so the lit and the shaded side of one vehicle stay one; grey, white and black
// vehicles side by side have no such edge and stay merged.
const CHROMA_CUT = 0.08;
// ... only where the typical vehicle spans CHROMA_MIN_SIZE working px or more: farther off a vehicle is a few
// pixels whose colour mixes with the road's and its neighbours', and blobs of several far vehicles were cut
// into parts that started tracks of their own (placements at 1 and 2.5 fps, seeds 1-4: 165 vehicles wrong
// with colour cuts everywhere, 149 with this limit, 171 without colour cuts).
const CHROMA_MIN_SIZE = 8;

/** Image direction of usual motion at (x, y) in full px (any length), or undefined where none is known. */
export type MotionDirection = (x: number, y: number) => readonly [number, number] | undefined;

// Cuts a blob into k parts across the lanes: pixels are ordered by their offset u across the direction of
// motion (image columns when it is unknown), and cuts go at the emptiest offsets near evenly spaced
// positions. Vehicles abreast on a road running diagonally through the image overlap in columns, but the
// gap between their lanes runs along the motion, so it shows as a valley in u. Cuts go at a valley with
// `byValley`, and with `byColour` where the colour changes (see CHROMA_CUT) when there is no valley to cut at.
function splitAcross(
  c: Component, labels: Int32Array, cur: Planes, geom: RoiGeometry, k: number, dir: readonly [number, number] | undefined,
  byValley: boolean, byColour: boolean,
): Part[] {
  const w = geom.width;
  const len = dir ? Math.hypot(dir[0], dir[1]) : 0;
  // Unit vector across the motion; columns when the motion is unknown or vertical.
  const px = len > 0 ? dir![1] / len : 1, py = len > 0 ? -dir![0] / len : 0;
  let umin = Infinity, umax = -Infinity;
  for (const [x, y] of [[c.minX, c.minY], [c.maxX, c.minY], [c.minX, c.maxY], [c.maxX, c.maxY]] as const) {
    const u = x * px + y * py;
    if (u < umin) umin = u;
    if (u > umax) umax = u;
  }
  /** Offset of pixel (x, y) across the motion, 0 at the blob's first. */
  const offset = (x: number, y: number): number => Math.floor(x * px + y * py - umin);
  const span = Math.floor(umax - umin) + 1;
  k = Math.max(2, Math.min(k, Math.floor(span / 2)));
  if (span < 4) return [{ c }];
  const count = new Int32Array(span);
  // Per offset, the summed colour of its pixels (only for cuts by colour).
  const rgb = byColour ? new Float64Array(3 * span) : undefined;
  for (let y = c.minY; y <= c.maxY; y++) {
    for (let x = c.minX; x <= c.maxX; x++) {
      const i = y * w + x;
      if (labels[i] !== c.label) continue;
      const u = offset(x, y);
      count[u]!++;
      if (rgb) { rgb[3 * u]! += cur.r[i]!; rgb[3 * u + 1]! += cur.g[i]!; rgb[3 * u + 2]! += cur.b[i]!; }
    }
  }
  // The occupied range, not the bbox corners, is what is split evenly.
  let lo0 = 0, hi0 = span - 1;
  while (lo0 < hi0 && count[lo0] === 0) lo0++;
  while (hi0 > lo0 && count[hi0] === 0) hi0--;
  const occupied = hi0 - lo0 + 1;
  const part = occupied / k;
  const cuts: number[] = [];
  for (let j = 1; j < k; j++) {
    const centre = lo0 + Math.round(j * part);
    const lo = Math.max(lo0 + 1, Math.round(centre - part * 0.3));
    const hi = Math.min(hi0 - 1, Math.round(centre + part * 0.3));
    let best = centre, bestCount = Infinity;
    for (let u = lo; u <= hi; u++) {
      const v = count[u]! + 0.01 * Math.abs(u - centre);
      if (v < bestCount) { bestCount = v; best = u; }
    }
    // A cut must fall in a valley: between two vehicles the offsets hold at most VALLEY × the pixels of
    // the fuller ones on either side. A single vehicle's profile is one hump, so a blob wider than the
    // typical vehicle because the model is still too small (or because it is a lorry) is not cut into slivers.
    let left = 0, right = 0;
    for (let u = Math.max(lo0, best - Math.round(part)); u < best; u++) left = Math.max(left, count[u]!);
    for (let u = best + 1; u <= Math.min(hi0, best + Math.round(part)); u++) right = Math.max(right, count[u]!);
    if (byValley && count[best]! <= VALLEY * Math.min(left, right)) cuts.push(best);
    else if (rgb) {
      const u = colourEdge(count, rgb, lo, hi, lo0, hi0, Math.round(part));
      if (u >= 0) cuts.push(u);
    }
  }
  if (cuts.length === 0) return [{ c }];
  const parts: Component[] = [...cuts, span].map(() => ({ label: c.label, area: 0, minX: w, minY: geom.height, maxX: -1, maxY: -1, sumX: 0, sumY: 0, sumR: 0, sumG: 0, sumB: 0 }));
  for (let y = c.minY; y <= c.maxY; y++) {
    for (let x = c.minX; x <= c.maxX; x++) {
      const i = y * w + x;
      if (labels[i] !== c.label) continue;
      const u = offset(x, y);
      let j = 0;
      while (j < cuts.length && u >= cuts[j]!) j++;
      const pc = parts[j]!;
      pc.area++; pc.sumX += x; pc.sumY += y;
      pc.sumR += cur.r[i]!; pc.sumG += cur.g[i]!; pc.sumB += cur.b[i]!;
      if (x < pc.minX) pc.minX = x;
      if (x > pc.maxX) pc.maxX = x;
      if (y < pc.minY) pc.minY = y;
      if (y > pc.maxY) pc.maxY = y;
    }
  }
  return parts.map((pc, j) => {
    const lo = j > 0 ? cuts[j - 1]! : -Infinity, hi = j < cuts.length ? cuts[j]! : Infinity;
    return { c: pc, owns: (x: number, y: number) => { const u = offset(x, y); return u >= lo && u < hi; } };
  });
}

/**
 * The offset in [lo, hi] where the chromaticity of the `width` offsets before it (from lo0) and of those from it
 * on (to hi0) differs most, if by CHROMA_CUT or more; −1 if nowhere. `count` and `rgb` are per offset.
 */
function colourEdge(count: Int32Array, rgb: Float64Array, lo: number, hi: number, lo0: number, hi0: number, width: number): number {
  let best = -1, bestD = 0;
  for (let u = lo; u <= hi; u++) {
    const a = chromaticity(count, rgb, Math.max(lo0, u - width), u);
    const b = chromaticity(count, rgb, u, Math.min(hi0 + 1, u + width));
    if (!a || !b) continue;
    const d = Math.hypot(a[0] - b[0], a[1] - b[1]);
    if (d > bestD) { bestD = d; best = u; }
  }
  return bestD >= CHROMA_CUT ? best : -1;
}

/** Red and green shares of the summed colour of offsets [from, to); undefined for too few or black pixels. */
function chromaticity(count: Int32Array, rgb: Float64Array, from: number, to: number): [number, number] | undefined {
  let n = 0, r = 0, g = 0, b = 0;
  for (let u = from; u < to; u++) { n += count[u]!; r += rgb[3 * u]!; g += rgb[3 * u + 1]!; b += rgb[3 * u + 2]!; }
  const sum = r + g + b;
  return n >= 4 && sum > 0 ? [r / sum, g / sum] : undefined;
}

/** A blob, or one part of a split blob: `owns` tells which of the label's pixels are the part's. */
interface Part {
  c: Component;
  owns?: (x: number, y: number) => boolean;
}

// A merged group has label −g (see mergeFragments): its pixels are those whose label maps to g.
function thumbnail(c: Component, labels: Int32Array, cur: Planes, w: number, groupOf: Int32Array, owns?: (x: number, y: number) => boolean): Float32Array {
  const t = new Float32Array(THUMB * THUMB * 4);
  const counts = new Float32Array(THUMB * THUMB);
  const bw = c.maxX - c.minX + 1, bh = c.maxY - c.minY + 1;
  for (let y = c.minY; y <= c.maxY; y++) {
    const gy = Math.min(THUMB - 1, Math.floor(((y - c.minY) * THUMB) / bh));
    for (let x = c.minX; x <= c.maxX; x++) {
      const gx = Math.min(THUMB - 1, Math.floor(((x - c.minX) * THUMB) / bw));
      const k = gy * THUMB + gx;
      counts[k]!++;
      const i = y * w + x;
      const l = labels[i]!;
      if (c.label > 0 ? l !== c.label || (owns && !owns(x, y)) : l === 0 || groupOf[l] !== -c.label) continue;
      const o = k * 4;
      t[o]! += cur.r[i]!; t[o + 1]! += cur.g[i]!; t[o + 2]! += cur.b[i]!; t[o + 3]!++;
    }
  }
  for (let k = 0; k < THUMB * THUMB; k++) {
    const o = k * 4;
    const n = t[o + 3]!;
    if (n > 0) { t[o]! /= n; t[o + 1]! /= n; t[o + 2]! /= n; }
    t[o + 3] = counts[k]! > 0 ? n / counts[k]! : 0;
  }
  return t;
}

// Parts of one vehicle (roof, bonnet and boot split by a windscreen the colour of the road) are separate
// blobs; blobs whose joint box still fits one typical vehicle at that row (with MERGE_SLACK) are one.
// Two vehicles, whether following or side by side, make a joint box about twice as long or wide.
const MERGE_SLACK = 1.3;
// ... and the parts of one vehicle lie next to each other: a part joins a group only within MERGE_GAP × the
// typical vehicle's size of one of its members (a windscreen's width or less). A joint box alone lets a far
// car join a lorry near the camera, or several cars one blob, whenever the typical size is overestimated
// (lorries at the start of dense traffic); the merged blobs then teach nothing, and the model stays wrong.
const MERGE_GAP = 0.25;

function mergeFragments(comps: readonly Component[], geom: RoiGeometry, persp: PerspectiveModel, groupOf: Int32Array): Component[] {
  if (!persp.ready || comps.length < 2) return comps as Component[];
  const s = geom.scale;
  const order = [...comps].sort((a, b) => b.area - a.area);
  const groups: { box: Component; members: Component[] }[] = [];
  for (const c of order) {
    let merged = false;
    for (const g of groups) {
      const minX = Math.min(g.box.minX, c.minX), maxX = Math.max(g.box.maxX, c.maxX);
      const minY = Math.min(g.box.minY, c.minY), maxY = Math.max(g.box.maxY, c.maxY);
      const cy = geom.y0 + ((minY + maxY) / 2 + 0.5) * s;
      const w = persp.width(cy), h = persp.height(cy);
      if ((maxX - minX + 1) * s <= MERGE_SLACK * w && (maxY - minY + 1) * s <= MERGE_SLACK * h && nextTo(c, g.members, (MERGE_GAP * persp.size(cy)) / s)) {
        const b = g.box;
        b.minX = minX; b.maxX = maxX; b.minY = minY; b.maxY = maxY;
        b.area += c.area; b.sumX += c.sumX; b.sumY += c.sumY; b.sumR += c.sumR; b.sumG += c.sumG; b.sumB += c.sumB;
        g.members.push(c);
        merged = true;
        break;
      }
    }
    if (!merged) groups.push({ box: { ...c }, members: [c] });
  }
  return groups.map((g, k) => {
    if (g.members.length === 1) return g.members[0]!;
    for (const m of g.members) groupOf[m.label] = k + 1;
    return { ...g.box, label: -(k + 1) };
  });
}

/** True when c's box is within maxGap working px (along x and along y) of one of the members' boxes. */
function nextTo(c: Component, members: readonly Component[], maxGap: number): boolean {
  for (const m of members) {
    const gapX = Math.max(m.minX, c.minX) - Math.min(m.maxX, c.maxX) - 1;
    const gapY = Math.max(m.minY, c.minY) - Math.min(m.maxY, c.maxY) - 1;
    if (gapX <= maxGap && gapY <= maxGap) return true;
  }
  return false;
}
