// Analyzer tunables: defaults, validation messages that name the key, and frozen results.
import { describe, expect, it } from 'vitest';
import { ANALYZER_DEFAULTS, resolveAnalyzerOptions } from '../dist/src/analyze/analyzer-options.js';

describe('resolveAnalyzerOptions', () => {
  it('returns the defaults, frozen, for an empty object', () => {
    const o = resolveAnalyzerOptions({}, 'cameras[0].analyzer');
    expect(o).toEqual(ANALYZER_DEFAULTS);
    expect(Object.isFrozen(o)).toBe(true);
  });

  it('merges given keys over the defaults', () => {
    const o = resolveAnalyzerOptions({ downscale: 2, shadowSuppression: false }, 'cameras[0].analyzer');
    expect(o.downscale).toBe(2);
    expect(o.shadowSuppression).toBe(false);
    expect(o.noiseK).toBe(ANALYZER_DEFAULTS.noiseK);
  });

  it('rejects an unknown key, naming it and listing the allowed keys', () => {
    expect(() => resolveAnalyzerOptions({ minArea: 5 }, 'cameras[1].analyzer')).toThrow(/cameras\[1\]\.analyzer\.minArea: unknown.*minAreaPx/);
  });

  it('rejects out-of-range and mistyped values with the range in the message', () => {
    expect(() => resolveAnalyzerOptions({ downscale: 0 }, 'c.analyzer')).toThrow(/c\.analyzer\.downscale: must be an integer from 1 to 16/);
    expect(() => resolveAnalyzerOptions({ downscale: 2.5 }, 'c.analyzer')).toThrow(/downscale/);
    expect(() => resolveAnalyzerOptions({ shadowSuppression: 1 }, 'c.analyzer')).toThrow(/shadowSuppression: must be true or false/);
    expect(() => resolveAnalyzerOptions({ noiseK: true }, 'c.analyzer')).toThrow(/noiseK/);
    expect(() => resolveAnalyzerOptions({ shadowMinRatio: 0.95 }, 'c.analyzer')).toThrow(/shadowMinRatio: must be below shadowMaxRatio/);
    expect(() => resolveAnalyzerOptions({ heldCrossingMaxSec: -1 }, 'c.analyzer')).toThrow(/c\.analyzer\.heldCrossingMaxSec: must be .*from 0 to 600/);
    expect(() => resolveAnalyzerOptions({ shadowLearnMinRatio: 0 }, 'c.analyzer')).toThrow(/c\.analyzer\.shadowLearnMinRatio: must be .*from 0\.05 to 1/);
  });

  it('gives a frame-size key\'s default as the 1280x720 one that the frame size replaces when unset', () => {
    expect(() => resolveAnalyzerOptions({ downscale: 3.5 }, 'c.analyzer')).toThrow('c.analyzer.downscale: must be an integer from 1 to 16 (default 4 at 1280x720; unset, it follows the frame size), got 3.5');
    expect(() => resolveAnalyzerOptions({ minAreaPx: -1 }, 'c.analyzer')).toThrow('(default 80 at 1280x720; unset, it follows the frame size), got -1');
    expect(() => resolveAnalyzerOptions({ lineMinMarginPx: -1 }, 'c.analyzer')).toThrow('(default 4 at 1280x720; unset, it follows the frame size), got -1');
    expect(() => resolveAnalyzerOptions({ noiseK: -1 }, 'c.analyzer')).toThrow('(default 4.5), got -1');
  });

  it('names the key the camera set where two keys are out of order, not the other one it left at its default', () => {
    expect(() => resolveAnalyzerOptions({ bootstrapMaxFrames: 5 }, 'c.analyzer')).toThrow(
      'c.analyzer.bootstrapMaxFrames: must be at least bootstrapMinFrames (20, the default), got 5; raise it, or lower bootstrapMinFrames too',
    );
    expect(() => resolveAnalyzerOptions({ shadowMaxRatio: 0.1 }, 'c.analyzer')).toThrow(
      'c.analyzer.shadowMaxRatio: must be above shadowMinRatio (0.4, the default), got 0.1; raise it, or lower shadowMinRatio too',
    );
    expect(() => resolveAnalyzerOptions({ bootstrapMinFrames: 50 }, 'c.analyzer')).toThrow('c.analyzer.bootstrapMinFrames: must not exceed bootstrapMaxFrames (40, the default), got 50');
    expect(() => resolveAnalyzerOptions({ bootstrapMinFrames: 50, bootstrapMaxFrames: 20 }, 'c.analyzer')).toThrow('c.analyzer.bootstrapMinFrames: must not exceed bootstrapMaxFrames (20), got 50');
  });

  it('throws a ConfigError with the stable code', () => {
    try {
      resolveAnalyzerOptions({ nope: 1 }, 'x');
      expect.unreachable();
    } catch (err) {
      expect((err as { code: string }).code).toBe('TC_ERR_CONFIG');
    }
  });
});
