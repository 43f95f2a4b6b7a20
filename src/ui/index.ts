/** The local dashboard (`baton ui`): pages from the store and the event stream, served with the hooks. */

export { readBoard, readTaskPage } from "./data.js";
export { type Dashboard, dashboard, type RouteHandler } from "./server.js";
