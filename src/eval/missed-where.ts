// Where a vehicle the analyzer missed was, judged by the blobs of the frames just before and just after its
// crossing: a blob of its own, a blob merged with another vehicle (behind or ahead of it, abreast of it, or of the
// other direction), or no blob. It needs each vehicle's image box, so only the simulator can tell.

/** x, y, width, height in px. */
export type Box = readonly [number, number, number, number];

export interface BoxedVehicle {
  readonly id: number;
  readonly direction: 'in' | 'out';
  /** Its body's image box (occlusion ignored), clipped to the frame. */
  readonly box: Box;
}

/** A vehicle's place among one frame's blobs (see placeAmongBlobs). */
export type Place = 'own' | 'behind' | 'abreast' | 'opposite' | 'none';

// The vehicle's blob is the one covering most of its box, at least COVERS of it; another vehicle is in that blob
// when INSIDE of its box is in the blob's box.
const COVERS = 0.3;
const INSIDE = 0.5;
// Two vehicles of one direction in one blob are abreast when their boxes' centres are fewer rows apart than
// ABREAST_ROWS × the lower box's height; otherwise one is behind the other.
const ABREAST_ROWS = 0.5;

function area(b: Box): number {
  return Math.max(0, b[2]) * Math.max(0, b[3]);
}

function overlap(a: Box, b: Box): number {
  const w = Math.min(a[0] + a[2], b[0] + b[2]) - Math.max(a[0], b[0]);
  const h = Math.min(a[1] + a[3], b[1] + b[3]) - Math.max(a[1], b[1]);
  return w > 0 && h > 0 ? w * h : 0;
}

/** `b` clipped to a width × height frame (empty when it lies outside). */
export function clipBox(b: Box, width: number, height: number): Box {
  const x0 = Math.max(0, b[0]), y0 = Math.max(0, b[1]);
  const x1 = Math.min(width, b[0] + b[2]), y1 = Math.min(height, b[1] + b[3]);
  return [x0, y0, Math.max(0, x1 - x0), Math.max(0, y1 - y0)];
}

/**
 * Where `me` is among one frame's `blobs`: 'none' when no blob covers COVERS of its box; else 'own' when no other
 * vehicle (`others`, in view in that frame) has INSIDE of its box in the blob's box; else 'opposite' when one of
 * those is of the other direction, 'abreast' when one is about level with it (see ABREAST_ROWS), 'behind' otherwise.
 */
export function placeAmongBlobs(me: BoxedVehicle, others: readonly BoxedVehicle[], blobs: readonly Box[]): Place {
  const mine = area(me.box);
  if (mine === 0) return 'none';
  let blob: Box | undefined, most = 0;
  for (const b of blobs) {
    const o = overlap(me.box, b);
    if (o > most) { most = o; blob = b; }
  }
  if (!blob || most < COVERS * mine) return 'none';
  const inside = others.filter((v) => v.id !== me.id && area(v.box) > 0 && overlap(v.box, blob) >= INSIDE * area(v.box));
  if (inside.length === 0) return 'own';
  if (inside.some((v) => v.direction !== me.direction)) return 'opposite';
  const row = (b: Box): number => b[1] + b[3] / 2;
  return inside.some((v) => Math.abs(row(v.box) - row(me.box)) < ABREAST_ROWS * Math.min(v.box[3], me.box[3])) ? 'abreast' : 'behind';
}

/** What a missed vehicle's places in the frames before and after its crossing say (see missedWhere). */
export const MISSED_WHERE = {
  own: 'a blob of its own',
  ownOnce: 'a blob of its own in one of the two frames',
  behind: 'merged with a vehicle ahead or behind',
  abreast: 'merged with a vehicle abreast',
  opposite: 'merged with the other direction',
  none: 'in no blob',
  unwatched: 'a frame not analysed for counting',
} as const;
export type MissedWhere = keyof typeof MISSED_WHERE;

/**
 * A missed vehicle's places just before and just after its crossing (undefined: that frame was not analysed for
 * counting, e.g. the crossing came before counting began), as one verdict: own in both frames, or in one; else merged
 * (as in the frame before, if merged there); else in no blob; else not watched. A blob of two that counts once leaves
 * one of them missed, and the pairing in time may pick either, so "own" is an upper bound.
 */
export function missedWhere(before: Place | undefined, after: Place | undefined): MissedWhere {
  const own = [before, after].filter((p) => p === 'own').length;
  if (own === 2) return 'own';
  if (own === 1) return 'ownOnce';
  for (const p of [before, after]) if (p === 'behind' || p === 'abreast' || p === 'opposite') return p;
  return before === 'none' || after === 'none' ? 'none' : 'unwatched';
}
