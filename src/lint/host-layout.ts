import { ConfigError } from "../shared/index.js";
import type { LintHost } from "./lint-host.js";
import type { FileKind } from "./rule-types.js";

// A tree's folders load under the plural and the historical singular name (`agents/`, `agent/`).
const AGENT_DIRS = new Set(["agents", "agent"]);
const COMMAND_DIRS = new Set(["commands", "command"]);
const SKILL_DIRS = new Set(["skills", "skill"]);
const HOOK_SCRIPT = /\.(sh|bash|zsh|js|mjs|cjs|ts|mts|py|rb|pl|lua)$/;

/** Where the hosts lint was handed keep their files, and what each file is to the host that reads it. */
export class HostLayout {
  readonly trees: readonly string[];
  /** The files lint reads at the root beside the trees: settings and memory files. */
  readonly rootFiles: readonly string[];
  private readonly memory: ReadonlySet<string>;

  constructor(readonly hosts: readonly LintHost[]) {
    if (hosts.length === 0) throw new ConfigError("lint needs at least one host to read the files of");
    this.trees = hosts.map((h) => h.tree);
    this.memory = new Set(hosts.flatMap((h) => h.memoryFiles));
    const atRoot = hosts.flatMap((h) => h.settingsFiles.filter((path) => !path.includes("/")));
    this.rootFiles = [...new Set([...atRoot, ...this.memory])];
  }

  /** The host that reads a file: the one whose tree or settings hold it, else the primary (first) one. */
  hostOf(path: string): LintHost {
    const owner = this.hosts.find((h) => path.startsWith(`${h.tree}/`) || h.settingsFiles.includes(path));
    return owner ?? (this.hosts[0] as LintHost);
  }

  /** Splits `.claude/agents/x.md` into its tree (`.claude`) and the path inside it; null outside a tree. */
  splitTree(path: string): { tree: string; inner: string[] } | null {
    const parts = path.split("/");
    const tree = parts[0];
    if (tree === undefined || !this.trees.includes(tree) || parts.length < 2) return null;
    return { tree, inner: parts.slice(1) };
  }

  /** What the host makes of a file, from its place in the tree alone. */
  classify(path: string): FileKind {
    const settings = this.hosts.find((h) => h.settingsFiles.includes(path));
    if (settings) return settings.settingsKind;
    if (this.memory.has(path)) return "memory";
    const split = this.splitTree(path);
    if (!split) return "other";
    const { inner } = split;
    const top = inner[0] ?? "";
    const name = inner[inner.length - 1] ?? "";
    if (inner.length === 1) {
      if (this.memory.has(name)) return "memory";
      return name.endsWith(".md") ? "doc" : "other";
    }
    // Every `.md` under agents/ and commands/ loads, subfolders included (they namespace commands).
    if (AGENT_DIRS.has(top)) return name.endsWith(".md") ? "agent" : "other";
    if (COMMAND_DIRS.has(top)) return name.endsWith(".md") || name.endsWith(".sh") ? "command" : "other";
    // Only `skills/<name>/SKILL.md` defines a skill; the rest of the folder is its supporting material.
    if (SKILL_DIRS.has(top)) return inner.length === 3 && name === "SKILL.md" ? "skill" : "other";
    if (this.hostOf(path).pluginDirs.includes(top) && inner.length === 2) {
      return /\.(js|mjs|ts|mts)$/.test(name) ? "plugin" : "other";
    }
    if (top === "hooks")
      return HOOK_SCRIPT.test(name) ? "hook-script" : name.endsWith(".md") ? "doc" : "other";
    if (top === "context") return "context";
    if (top === "rules") return "rule";
    if (top === "scripts") return "script";
    if (top === "docs") return "doc";
    return "other";
  }
}
