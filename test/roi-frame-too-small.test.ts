// A ROI that does not fit the frame is refused naming the corner, the frame size and the fixes (redraw, or drawnOn
// when the ROI was drawn on a larger frame of the same view: a camera's main stream, counted on its substream), with
// one rule for the four edges.
import { expect, it } from 'vitest';
import { buildRoiGeometry, checkFrameContainsRoi } from '../dist/src/analyze/roi-mask.js';

it('names drawnOn as the fix for an ROI drawn on a larger frame of the same shape', () => {
  const geom = buildRoiGeometry([[180, 200], [980, 200], [980, 600], [180, 600]], 4);
  // Before: only "redraw them on a frame of this camera", though setting drawnOn to [1280, 720] scales them to fit.
  expect(() => checkFrameContainsRoi(geom, 640, 360, 1, 'cameras[0]')).toThrow(
    'cameras[0].roi[1]: (980, 200) lies past the right edge of the camera\'s 640x360 frame; ROI and line coordinates are pixels of the ' +
      'full-size frame, from (0, 0) at its top-left corner to (640, 360): move the point onto the frame, or redraw the ROI on a frame of ' +
      'this camera, or, when they were drawn on a frame of the same shape at another size (a camera\'s other stream), ' +
      'set cameras[0].drawnOn to that frame\'s [width, height]; they are then scaled to fit (README, "Frame size")',
  );
  expect(() => checkFrameContainsRoi(geom, 1280, 720, 1, 'cameras[0]')).not.toThrow();
  // At a decode scale the frame is named at full resolution, and as decoded.
  expect(() => checkFrameContainsRoi(geom, 320, 180, 2, 'cameras[0]')).toThrow(/^cameras\[0\]\.roi\[1\]: \(980, 200\) lies past the right edge of the camera's 640x360 frame \(decoded at scale 2 as 320x180\)/);
});

it('refuses a corner past the left or top edge as one past the right or bottom edge (it was clipped away without a word)', () => {
  const frame = (roi: [number, number][]) => () => checkFrameContainsRoi(buildRoiGeometry(roi, 4), 1280, 720, 1, 'cameras[2]');
  expect(frame([[-50, 300], [700, 150], [1100, 700], [0, 700]])).toThrow(
    'cameras[2].roi[0]: (-50, 300) lies past the left edge of the camera\'s 1280x720 frame; ROI and line coordinates are pixels of the ' +
      'full-size frame, from (0, 0) at its top-left corner to (1280, 720): move the point onto the frame, or redraw the ROI on a frame of this camera',
  );
  expect(frame([[0, 300], [700, -20], [1100, 700], [0, 700]])).toThrow(/^cameras\[2\]\.roi\[1\]: \(700, -20\) lies past the top edge of the camera's 1280x720 frame; .*move the point onto the frame/);
  expect(frame([[-1, -1], [700, 0], [700, 700]])).toThrow(/^cameras\[2\]\.roi\[0\]: \(-1, -1\) lies past the left and top edge of the camera's 1280x720 frame/);
  expect(frame([[0, 300], [700, 150], [1281, 700], [0, 700]])).toThrow(/^cameras\[2\]\.roi\[2\]: \(1281, 700\) lies past the right edge .*set cameras\[2\]\.drawnOn/);
  expect(frame([[0, 300], [700, 150], [1100, 721], [0, 700]])).toThrow(/^cameras\[2\]\.roi\[2\]: \(1100, 721\) lies past the bottom edge/);
  // Corners on the edges themselves are on the frame.
  expect(frame([[0, 0], [1280, 0], [1280, 720], [0, 720]])).not.toThrow();
});
