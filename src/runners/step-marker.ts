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
