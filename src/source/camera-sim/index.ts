// Public surface of the camera simulator (re-exports only).

export { createScene } from './scene.js';
export type { Scene, SceneOptions, SimCameraConfig, TruthCounts, TruthEvent, VisibleVehicle } from './scene.js';
export { startCameraSim } from './camera-sim-server.js';
export type { CameraSim, CameraSimOptions } from './camera-sim-server.js';
export { renderClip } from './render-clip.js';
export type { RenderClipOptions, RenderedClip } from './render-clip.js';
export { SCENARIOS, isScenarioName } from './scenarios.js';
export type { ScenarioName } from './scenarios.js';
export type { VehicleType } from './vehicle-model.js';
