/** GATE IN: the steps in order (gate-in-list.ts), then the one store write that opens the run. */

export { decideGateIn, type GateInDecision, readGateIn } from "./decide-gate-in.js";
export { GATE_IN } from "./gate-in-list.js";
export type { GateInContext, GateInRefusalCode, GateInStep, GateInStepResult } from "./gate-in-step.js";
export { type GateInVerdict, gateIn } from "./open-run.js";
export { MAX_FOCUS_BYTES } from "./refuse-long-focus.js";
