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
}

/** Splits and filters components; `labels` is the label image the components came from. */
export function componentsToDetections(
  comps: readonly Component[],
  labels: Int32Array,
  cur: Planes,
  geom: RoiGeometry,
  persp: PerspectiveModel,
  p: BlobFilterParams,
): Detection[] {
  const groupOf = new Int32Array(comps.length + 2);
  const out: Detection[] = [];
  const s = geom.scale;
  for (const c of mergeFragments(comps, geom, persp, groupOf)) {
    if (c.area * s * s < p.minAreaPx) continue;
    const cy = geom.y0 + (c.sumY / c.area + 0.5) * s;
    const expW = persp.width(cy);
    const wFull = (c.maxX - c.minX + 1) * s;
    if (!Number.isNaN(expW) && wFull > p.splitWidthFactor * expW && c.label > 0) {
      for (const part of splitColumns(c, labels, cur, geom, Math.round(wFull / expW))) push(part, part.minX, part.maxX, false);
    } else {
      push(c, c.minX, c.maxX, c.label > 0);
    }
  }
  return out;

  // xFrom..xTo: the columns of the label that belong to this part (a split part owns a column range).
  function push(c: Component, xFrom: number, xTo: number, whole: boolean): void {
    if (c.area === 0) return;
    const area = c.area * s * s;
    const thumb = thumbnail(c, labels, cur, geom.width, xFrom, xTo, groupOf);
    if (area < p.minAreaPx) return;
    const w = (c.maxX - c.minX + 1) * s;
    const h = (c.maxY - c.minY + 1) * s;
    if (w > p.maxAspect * h || h > p.maxAspect * w) return;
    const y = geom.y0 + (c.sumY / c.area + 0.5) * s;
    const size = Math.sqrt(area);
    const exp = persp.size(y);
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
    });
  }
}

// Cuts a blob into k parts at the emptiest columns near the evenly spaced cut positions: the gap between
// two cars side by side is where the fewest foreground pixels are stacked.
function splitColumns(c: Component, labels: Int32Array, cur: Planes, geom: RoiGeometry, k: number): Component[] {
  const w = geom.width;
  const bw = c.maxX - c.minX + 1;
  k = Math.max(2, Math.min(k, Math.floor(bw / 2)));
  if (bw < 4) return [c];
  const colCount = new Int32Array(bw);
  for (let y = c.minY; y <= c.maxY; y++) {
    for (let x = c.minX; x <= c.maxX; x++) if (labels[y * w + x] === c.label) colCount[x - c.minX]!++;
  }
  const cuts: number[] = [];
  const part = bw / k;
  for (let j = 1; j < k; j++) {
    const centre = Math.round(j * part);
    const lo = Math.max(1, Math.round(centre - part * 0.3));
    const hi = Math.min(bw - 1, Math.round(centre + part * 0.3));
    let best = centre, bestCount = Infinity;
    for (let x = lo; x <= hi; x++) {
      const v = colCount[x]! + 0.01 * Math.abs(x - centre);
      if (v < bestCount) { bestCount = v; best = x; }
    }
    cuts.push(best);
  }
  const parts: Component[] = [];
  let start = 0;
  for (const end of [...cuts, bw]) {
    const pc: Component = { label: c.label, area: 0, minX: w, minY: geom.height, maxX: -1, maxY: -1, sumX: 0, sumY: 0, sumR: 0, sumG: 0, sumB: 0 };
    for (let y = c.minY; y <= c.maxY; y++) {
      for (let x = c.minX + start; x < c.minX + end; x++) {
        const i = y * w + x;
        if (labels[i] !== c.label) continue;
        pc.area++; pc.sumX += x; pc.sumY += y;
        pc.sumR += cur.r[i]!; pc.sumG += cur.g[i]!; pc.sumB += cur.b[i]!;
        if (x < pc.minX) pc.minX = x;
        if (x > pc.maxX) pc.maxX = x;
        if (y < pc.minY) pc.minY = y;
        if (y > pc.maxY) pc.maxY = y;
      }
    }
    parts.push(pc);
    start = end;
  }
  return parts;
}

// A merged group has label −g (see mergeFragments): its pixels are those whose label maps to g.
function thumbnail(c: Component, labels: Int32Array, cur: Planes, w: number, xFrom: number, xTo: number, groupOf: Int32Array): Float32Array {
  const t = new Float32Array(THUMB * THUMB * 4);
  const counts = new Float32Array(THUMB * THUMB);
  const bw = c.maxX - c.minX + 1, bh = c.maxY - c.minY + 1;
  for (let y = c.minY; y <= c.maxY; y++) {
    const gy = Math.min(THUMB - 1, Math.floor(((y - c.minY) * THUMB) / bh));
    for (let x = Math.max(c.minX, xFrom); x <= Math.min(c.maxX, xTo); x++) {
      const gx = Math.min(THUMB - 1, Math.floor(((x - c.minX) * THUMB) / bw));
      const k = gy * THUMB + gx;
      counts[k]!++;
      const i = y * w + x;
      const l = labels[i]!;
      if (c.label > 0 ? l !== c.label : l === 0 || groupOf[l] !== -c.label) continue;
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
      if ((maxX - minX + 1) * s <= MERGE_SLACK * w && (maxY - minY + 1) * s <= MERGE_SLACK * h) {
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
