/** DELEGATE: who runs the routed agent (a headless runner, a live session, the queue) and what GATE OUT checks it against. */
export type { Delegation } from "./delegation.js";
export { queueHandOff } from "./queue-hand-off.js";
export { HeadlessDelegation } from "./runner-delegation.js";
export { sessionHandOff } from "./session-hand-off.js";
