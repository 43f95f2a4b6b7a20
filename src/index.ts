/** The library surface of Baton: configuration and the task store. */
export * from "./config/index.js";
export * from "./shared/index.js";
export * from "./state/index.js";
