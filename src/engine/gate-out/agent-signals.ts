import type { AgentSignal, Gate } from "./gate-types.js";
import { refuse } from "./gate-types.js";

const SIGNAL_LINE = /^\s*(TASK_ERROR|ERROR_CONTEXT):\s*(.*)$/;

/** `TASK_ERROR: …` / `ERROR_CONTEXT: …` lines an agent prints to say it could not do the work. */
export function parseAgentSignals(output: string): AgentSignal[] {
  const signals: AgentSignal[] = [];
  for (const line of output.split(/\r?\n/)) {
    const match = SIGNAL_LINE.exec(line);
    if (match) signals.push({ kind: match[1] as AgentSignal["kind"], text: match[2]!.trim() });
  }
  return signals;
}

/** Records every signal; a TASK_ERROR refuses the result whatever the metadata says. */
export const checkAgentSignals: Gate = (ctx) => {
  ctx.signals = parseAgentSignals(ctx.agentOutput);
  const error = ctx.signals.find((s) => s.kind === "TASK_ERROR");
  if (!error) return { ok: true };
  const context = ctx.signals.filter((s) => s.kind === "ERROR_CONTEXT").map((s) => s.text);
  return refuse(
    ctx,
    "AGENT_REPORTED_ERROR",
    `the agent reported TASK_ERROR: ${error.text}${context.length > 0 ? ` (context: ${context.join("; ")})` : ""}`,
  );
};
