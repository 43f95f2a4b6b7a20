/** What is running and what it cost: `baton status` and the dashboard, read from open checkpoints and the event stream. */
export { type EventIndex, foldEvent, readEventIndex, type Spend } from "./event-index.js";
export { type CostRow, type RunningOperation, readStatus, type StatusView } from "./read-status.js";
