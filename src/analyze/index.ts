// Public surface of the analyzer (re-exports only).

export { CameraAnalyzer } from './camera-analyzer.js';
export { ANALYZER_DEFAULTS, resolveAnalyzerOptions } from './analyzer-options.js';
export type { AnalyzerOptions } from './analyzer-options.js';
export type { AnalyzerFrame, CrossingEvent, Direction, LineReach, VehicleClass } from './analyzer-types.js';
export { lineReachWarning } from './line-reach.js';
export { BackgroundModel, allocPlanes } from './background-model.js';
export type { Planes } from './background-model.js';
export { segmentForeground } from './foreground.js';
export type { ForegroundParams } from './foreground.js';
export { LineCounter } from './line-counter.js';
