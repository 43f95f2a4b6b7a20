import type { FileKind } from "../rule-types.js";

/** The config tree folders Baton lints; opencode uses the same layout under `.opencode/`. */
export const TREES = [".claude", ".opencode"] as const;

// opencode historically used singular folder names (`agent/`, `command/`); both load, so both count.
const AGENT_DIRS = new Set(["agents", "agent"]);
const COMMAND_DIRS = new Set(["commands", "command"]);
const SKILL_DIRS = new Set(["skills", "skill"]);
const HOOK_SCRIPT = /\.(sh|bash|zsh|js|mjs|cjs|ts|mts|py|rb|pl|lua)$/;

/** Splits `.claude/agents/x.md` into its tree (`.claude`) and the path inside it; null outside a tree. */
export function splitTree(path: string): { tree: string; inner: string[] } | null {
  const parts = path.split("/");
  const tree = parts[0];
  if (tree === undefined || !(TREES as readonly string[]).includes(tree) || parts.length < 2) return null;
  return { tree, inner: parts.slice(1) };
}

/** The memory files a host loads into every session, at the repository's root and at its tree's top. */
export const MEMORY_FILES = ["CLAUDE.md", "CLAUDE.local.md", "AGENTS.md"] as const;
const isMemory = (name: string) => (MEMORY_FILES as readonly string[]).includes(name);

/** What Claude Code (or opencode) makes of a file, from its place in the tree alone. */
export function classify(path: string): FileKind {
  if (path === "opencode.json" || path === "opencode.jsonc") return "opencode-config";
  if (isMemory(path)) return "memory";
  const split = splitTree(path);
  if (!split) return "other";
  const { inner } = split;
  const top = inner[0] ?? "";
  const name = inner[inner.length - 1] ?? "";
  if (inner.length === 1) {
    if (name === "settings.json" || name === "settings.local.json") return "settings";
    if (isMemory(name)) return "memory";
    return name.endsWith(".md") ? "doc" : "other";
  }
  // Claude Code loads every `.md` under agents/ and commands/, subfolders included (they namespace commands).
  if (AGENT_DIRS.has(top)) return name.endsWith(".md") ? "agent" : "other";
  if (COMMAND_DIRS.has(top)) return name.endsWith(".md") || name.endsWith(".sh") ? "command" : "other";
  // Only `skills/<name>/SKILL.md` defines a skill; the rest of the folder is its supporting material.
  if (SKILL_DIRS.has(top)) return inner.length === 3 && name === "SKILL.md" ? "skill" : "other";
  // opencode imports every script of plugin/ (contract 5.1).
  if (split.tree === ".opencode" && (top === "plugin" || top === "plugins") && inner.length === 2) {
    return /\.(js|mjs|ts|mts)$/.test(name) ? "plugin" : "other";
  }
  if (top === "hooks") return HOOK_SCRIPT.test(name) ? "hook-script" : name.endsWith(".md") ? "doc" : "other";
  if (top === "context") return "context";
  if (top === "rules") return "rule";
  if (top === "scripts") return "script";
  if (top === "docs") return "doc";
  return "other";
}

/** The name a definition is known by when its frontmatter gives none: file stem, or the skill's folder. */
export function fileName(path: string, kind: FileKind): string {
  const parts = path.split("/");
  if (kind === "skill") return parts[parts.length - 2] ?? "";
  const base = parts[parts.length - 1] ?? "";
  return base.replace(/\.(md|sh)$/, "");
}
