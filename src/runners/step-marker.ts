/**
 * A line an agent prints to say what it is doing, turned into a `step` event instead of an output line:
 * `BATON_STEP: Running tests` or `BATON_STEP: {"label": "npm test", "tool": "Bash"}`. Any command agent
 * (a wrapper script, the scripted agent) can use it; the line stays in the captured output.
 */
export const STEP_MARKER = "BATON_STEP:";

export function parseStepMarker(line: string): { label: string; tool?: string; agent?: string } | null {
  if (!line.startsWith(STEP_MARKER)) return null;
  const payload = line.slice(STEP_MARKER.length).trim();
  if (payload.startsWith("{")) {
    try {
      const value = JSON.parse(payload) as Record<string, unknown>;
      if (typeof value.label === "string") {
        return {
          label: value.label,
          ...(typeof value.tool === "string" ? { tool: value.tool } : {}),
          ...(typeof value.agent === "string" ? { agent: value.agent } : {}),
        };
      }
    } catch {
      // Not JSON after all: the text itself is the label.
    }
  }
  return payload === "" ? null : { label: payload };
}

/**
 * A line an agent prints to report what a step cost, added to the run's usage as it streams:
 * `BATON_USAGE: {"costUsd": 0.02, "inputTokens": 1200, "outputTokens": 300}`. Each line is an increment.
 */
export const USAGE_MARKER = "BATON_USAGE:";

const USAGE_KEYS = ["inputTokens", "outputTokens", "costUsd", "turns"] as const;

export function parseUsageMarker(line: string): Partial<Record<(typeof USAGE_KEYS)[number], number>> | null {
  if (!line.startsWith(USAGE_MARKER)) return null;
  try {
    const value = JSON.parse(line.slice(USAGE_MARKER.length)) as Record<string, unknown>;
    const out: Partial<Record<(typeof USAGE_KEYS)[number], number>> = {};
    for (const key of USAGE_KEYS) {
      const n = value[key];
      if (typeof n === "number" && Number.isFinite(n) && n >= 0) out[key] = n;
    }
    return Object.keys(out).length > 0 ? out : null;
  } catch {
    return null;
  }
}
