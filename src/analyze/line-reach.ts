// Telling a user when a camera's ROI is too short around a line for its frame rate (a line that cannot count).
import type { LineReach } from './analyzer-types.js';

/** Tracks the analyzer must have made before a line with no usual motion learnt is reported. */
export const REACH_MIN_TRACKS = 50;
/** A line with no usual motion is reported only while fewer than this share of the tracks were seen twice. */
export const REACH_MIN_LINKED = 0.5;
/** Below this share of its vehicles seen near the line, a line is reported: the others are never seen there. */
export const REACH_MIN_SEEN_NEAR = 0.9;
/**
 * Below this share of its vehicles seen on both sides, a line is reported: the others can be counted only by
 * carrying them on at the usual motion, which needs that motion learnt well where they are. (The shared
 * boulevard clip at 1 fps: 0.45 with its ROI, 34 of 34 counted from its first frame; 0.16 with the ROI's top
 * 50 px lower, 25 of 34. docs/accuracy.md has the ROI variants.)
 */
export const REACH_MIN_BOTH_SIDES = 0.25;
/**
 * A line is reported when, of at least REACH_MIN_ON_LINE vehicles seen on it, REACH_MIN_ONLY_ON_LINE or more and
 * over this share were seen in that frame only (LineReach.seenOnlyOnLine). Such a vehicle cannot be counted, and
 * the usual motion, learnt from the vehicles seen twice inside a short ROI, is too short to tell (ROIs 80 and 100
 * px deep across the simulator's lines at 2 fps, seed 7: 13 of 26 and 5 of 25 on the inbound line, 57% and 83%
 * of the crossings counted; with the scenes' own ROIs, seeds 1, 7 and 9, every scene and placement of the
 * suite, and the shared real clips: at most 2 of 30 and 2 of 48).
 */
export const REACH_MAX_ONLY_ON_LINE = 0.15;
export const REACH_MIN_ON_LINE = 15;
export const REACH_MIN_ONLY_ON_LINE = 4;

/** How a warning names the camera and line, and the frame rate where known. */
function naming(cameraId: string, r: LineReach): { at: string; fps: string } {
  const fps = r.frameIntervalSec ? ` at ${(1 / r.frameIntervalSec).toFixed(r.frameIntervalSec > 0.5 ? 1 : 0)} fps` : '';
  return { at: `camera ${cameraId}, line ${JSON.stringify(r.lineId)}`, fps };
}

/**
 * A warning for one line of camera `cameraId` (what is wrong, and the fix), or undefined when the ROI's reach
 * around it suits the frame rate or too little is known yet. `tracks`: tracks the analyzer made so far, and how
 * many of them were seen in two frames at least (Tracker.created, Tracker.linked).
 */
export function lineReachWarning(cameraId: string, r: LineReach, tracks: { made: number; linked: number }): string | undefined {
  const { at, fps } = naming(cameraId, r);
  // The config refuses a line wholly outside the ROI, but takes one along its edge, or crossing only a sliver of it.
  if (r.samples === 0) return `${at}: none of the nine points measured along the line lies inside the ROI: it runs along the ROI's edge, or crosses only a sliver of it, where vehicles are hardly seen on both sides of it; draw the ROI over the line, reaching past it on both sides`;
  const once = r.seenOnlyOnLine, on = r.vehiclesOnLine;
  if (on >= REACH_MIN_ON_LINE && once >= REACH_MIN_ONLY_ON_LINE && once > REACH_MAX_ONLY_ON_LINE * on) {
    return (
      `${at}${fps}: ${once} of the ${on} vehicles seen on the line were seen in that frame only, on neither side ` +
      `of it, and cannot be counted: the ROI is only about ${Math.round(r.depthPx ?? 0)} px deep across the line, ` +
      `shorter than what a vehicle travels between frames there; extend the ROI along the road on both sides of ` +
      `the line (by what a vehicle travels in a second or two), or raise the frame rate`
    );
  }
  if (r.known === 0) {
    // Not learnt yet is not the ROI's fault while most tracks are seen in two frames (the votes may still be
    // split, e.g. between vehicles and their shadows early on): only when most vehicles are seen once.
    if (tracks.made < REACH_MIN_TRACKS || tracks.linked >= REACH_MIN_LINKED * tracks.made) return undefined;
    return (
      `${at}${fps}: no usual motion learnt at the line: only ${tracks.linked} of ${tracks.made} tracks were seen in ` +
      `two frames, so vehicles cross the ROI between frames and the line cannot count them; extend the ROI along ` +
      `the road on both sides of the line (by what a vehicle travels in a second or two) or raise the frame rate`
    );
  }
  if (r.seenNear === null || r.bothSides === null || r.stepPx === null || r.stepBackPx === null) return undefined;
  let what: string;
  if (r.seenNear < REACH_MIN_SEEN_NEAR) what = `about ${Math.round(100 * (1 - r.seenNear))}% of its vehicles are never seen near it`;
  else if (r.bothSides < REACH_MIN_BOTH_SIDES) what = `only about ${Math.round(100 * r.bothSides)}% of its vehicles can be seen on both sides of it, and many of the others will be missed`;
  else return undefined;
  return (
    `${at}${fps}: ${what}: vehicles move about ${Math.round(r.stepBackPx)} px between frames up to the line and ` +
    `${Math.round(r.stepPx)} px past it, but the ROI reaches ${Math.round(r.beforePx ?? 0)} px before it and ` +
    `${Math.round(r.afterPx ?? 0)} px after it; extend the ROI along the road on either side, or raise the frame rate`
  );
}

/**
 * At the end of a clip (eval, replay): a warning for a line that lost more of the vehicles seen on it than it
 * counted in all, or undefined. A line counts a vehicle whose track is seen stably on each side of it; one seen
 * on the line and never counted there was not (seen in that frame only, or on one side and on the line). The
 * limits above wait for enough traffic to judge a live camera by rates; at the end of a clip the whole of its
 * traffic is known, so a short clip whose line lost REACH_MIN_ONLY_ON_LINE or more vehicles, more than it
 * counted, is told too, with the evidence and the fix. `counted`: the line's in + out.
 */
export function lineShortfallWarning(cameraId: string, r: LineReach, counted: number): string | undefined {
  const lost = r.vehiclesOnLine - r.countedOnLine;
  if (r.samples === 0 || lost < REACH_MIN_ONLY_ON_LINE || lost <= counted) return undefined;
  const { at, fps } = naming(cameraId, r);
  const once = r.seenOnlyOnLine, oneSide = lost - once;
  const why = [
    ...(once ? [`${once} seen in that frame only, on neither side of it`] : []),
    ...(oneSide ? [`${oneSide} seen in other frames too but never stably on both sides`] : []),
  ].join(', and ');
  const depth = r.depthPx ?? 0, inSide = Math.round(r.depthInSidePx ?? 0), outSide = Math.round(r.depthOutSidePx ?? 0);
  // Each side must hold one frame interval of travel: the usual motion's step where one was learnt, and more than
  // the ROI's whole depth across the line where vehicles were seen in one frame only (they crossed it between two
  // frames). Without a learnt step that depth is only a lower bound, and is said as one (helper 49: following a
  // figure given as enough led to the same warning again).
  const step = r.stepPx !== null && r.stepBackPx !== null ? Math.max(r.stepPx, r.stepBackPx) : null;
  const reach = `Across the line, the ROI reaches about ${inSide} px on the side its arrow points to and ${outSide} px on the other`;
  const shorter = inSide <= outSide ? { side: "the arrow's side", px: inSide } : { side: 'the other side', px: outSide };
  let fix: string;
  const need = step === null ? 0 : 10 * Math.ceil(Math.max(step, once ? depth : 0) / 10);
  if (step !== null && shorter.px < need) {
    fix = `vehicles move about ${Math.round(step)} px between frames there: extend the ROI to at least ${need} px on each side (${shorter.side} by ${need - shorter.px} px or more)`;
  } else if (step !== null) {
    // Each side already holds the step: "at least 40 px on each side (the other side by 0 px or more)" asked for
    // what the ROI had (150 px and 100 px).
    fix = `vehicles move about ${Math.round(step)} px between frames there, which each side already holds: extend the ROI on each side (${shorter.side} first)`;
  } else if (once) {
    fix = `vehicles seen in that frame only crossed more than the ROI's whole depth (${Math.round(depth)} px) between two frames: extend the ROI on each side by more than that`;
  } else {
    fix = `extend the ROI on each side (${shorter.side} first)`;
  }
  return (
    `${at}${fps}: counted ${counted} crossing(s) in all, while ${lost} of the ${r.vehiclesOnLine} vehicles seen on the line were not counted (${why}); ` +
    `a vehicle is counted only when seen on each side of the line. ${reach}; ${fix}, or move the line to where the ROI is deeper, or raise the frame rate`
  );
}
