import type { HostName } from "../shared/host-names.js";

/**
 * Which agent CLI reads a file: opencode for `.opencode/` and `opencode.json(c)`, Claude Code otherwise.
 * Every finding says what *that* host does with the problem, never what the other one would.
 */
export type FileHost = Extract<HostName, "claude" | "opencode">;

export function hostOf(path: string): FileHost {
  return path.startsWith(".opencode/") || /^opencode\.jsonc?$/.test(path) ? "opencode" : "claude";
}

export function hostName(path: string): string {
  return hostOf(path) === "opencode" ? "opencode" : "Claude Code";
}
