// The HTTP API and dashboard.

export { checkHttpListen, startHttpServer, HTTP_DEFAULTS } from './http-server.js';
export type { HttpServerOptions, HttpServerHandle } from './http-server.js';
export { DASHBOARD_HTML } from './dashboard-html.js';
