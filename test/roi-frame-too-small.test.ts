// A frame smaller than the ROI is refused naming both fixes: redraw, or drawnOn when the ROI was drawn on a
// larger frame of the same view (a camera's main stream, counted on its substream).
import { expect, it } from 'vitest';
import { buildRoiGeometry, checkFrameContainsRoi } from '../dist/src/analyze/roi-mask.js';

it('names drawnOn as the fix for an ROI drawn on a larger frame of the same shape', () => {
  const geom = buildRoiGeometry([[180, 200], [980, 200], [980, 600], [180, 600]], 4);
  // Before: only "redraw them on a frame of this camera", though setting drawnOn to [1280, 720] scales them to fit.
  expect(() => checkFrameContainsRoi(geom, 640, 360, 1, 'cameras[0]')).toThrow(
    'cameras[0].roi: reaches (980, 600) but the decoded frame is only 640x360; ROI and line coordinates are pixels of the full-size frame: ' +
      'redraw them on a frame of this camera, or, when they were drawn on a frame of the same shape at another size (a camera\'s other stream), ' +
      'set cameras[0].drawnOn to that frame\'s [width, height]; they are then scaled to fit (README, "Frame size")',
  );
  expect(() => checkFrameContainsRoi(geom, 1280, 720, 1, 'cameras[0]')).not.toThrow();
});
