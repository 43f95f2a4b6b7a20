/** The local dashboard (`baton ui`): pages from the store and the event stream, served with the hooks. */

export { type Dashboard, dashboard, type RouteHandler } from "./dashboard-server.js";
export { readBoard, readTaskPage } from "./data.js";
