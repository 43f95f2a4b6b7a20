import type { BatonConfig } from "../config/index.js";

/**
 * `baton lint`: parse → normalize → rules. Parsing reads every file of a `.claude/` (or `.opencode/`) tree
 * once; normalizing builds the model below (agents, commands, skills, hooks, git facts); each rule is one
 * file that reads the model and returns findings. Rules never read the file system themselves, so the
 * whole tree is read once and a rule is a pure function of the model (fast, and testable from text).
 */

export type Severity = "error" | "warning" | "info";

export interface Finding {
  rule: string;
  severity: Severity;
  /** Relative to the linted root (the directory holding `.claude/`), with `/` separators. */
  file: string;
  /** 1-based; 1 when the finding is about the file as a whole. */
  line: number;
  /** 1-based. */
  column: number;
  message: string;
  /** What to do about it. */
  hint: string;
}

import type { Frontmatter } from "../shared/frontmatter.js";
import type { LintHost } from "./lint-host.js";

export type { Frontmatter };

export type FileKind =
  | "agent"
  | "command"
  | "skill"
  | "hook-script"
  | "settings"
  | "context"
  | "rule"
  | "script"
  | "doc"
  /** What the host loads into every session as standing instructions: CLAUDE.md, AGENTS.md. */
  | "memory"
  | "plugin"
  /** A host's own JSONC configuration (opencode.json), read as a tree for that host's rules. */
  | "host-config"
  | "other";

export interface LintFile {
  /** Relative to the linted root, `/` separators, e.g. `.claude/agents/researcher.md`. */
  path: string;
  kind: FileKind;
  text: string;
  lines: string[];
  /** Markdown files that start with `---`. */
  frontmatter: Frontmatter | null;
  /** Markdown body lines (after the frontmatter), with their 1-based line numbers. */
  bodyStartLine: number;
  /** Whether the file has the executable bit (scripts, hooks). */
  executable: boolean;
  /** Settings files only: the parsed JSON and its syntax errors (Claude Code ignores a file that fails to parse). */
  json?: {
    data: unknown;
    errors: { message: string; line: number; column: number }[];
  };
}

/** A named unit Claude Code (or opencode) loads: an agent, a command or a skill. */
export interface NamedDefinition {
  name: string;
  file: LintFile;
  /** The name the path gives (file stem; a skill's folder); differs from `name` when frontmatter renames it. */
  fileName?: string;
}

/** One hook handler from a settings file. */
export interface HookEntry {
  /** The settings file it comes from. */
  file: LintFile;
  event: string;
  matcher: string | undefined;
  type: string;
  command: string | undefined;
  url: string | undefined;
  /** Line of the handler's `command`/`url` in the settings file. */
  line: number;
  column: number;
  /** Script paths the command runs (`bash .claude/hooks/x.sh`, `"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh`), resolved relative to the root. */
  scripts: string[];
  /** Scripts outside the repository (`~/…`, `$HOME/…` written as `~/…`, absolute paths), as written; never in `scripts`. */
  externalScripts?: string[];
}

export interface LintModel {
  /** Absolute path of the linted root. */
  root: string;
  /** The hosts whose files lint reads (the first is the primary one), and the one that reads a path. */
  hosts: readonly LintHost[];
  hostOf(path: string): LintHost;
  /** The hosts' config trees found under the root: `.claude` and/or `.opencode`. */
  trees: string[];
  files: LintFile[];
  byPath: Map<string, LintFile>;
  agents: NamedDefinition[];
  /** `.md` and `.sh` commands alike (a twin pair shares a name). */
  commands: NamedDefinition[];
  skills: NamedDefinition[];
  hooks: HookEntry[];
  /** Paths tracked by git (relative to the root), or null when the root is not in a git work tree. */
  tracked: Set<string> | null;
  /** Tracked paths whose git index mode is 100755 (null outside git), to compare with the disk bit. */
  trackedExecutable?: Set<string> | null;
  /** Whether a path (relative to the root) exists on disk, for references outside the config tree. */
  exists(path: string): boolean;
  /** The repository's Baton config, set by the runner (absent in models built from texts unless given). */
  config?: BatonConfig;
}

export interface Rule {
  /** Stable, kebab-case, grouped by prefix: `frontmatter/…`, `references/…`, `delegation/…`, `hooks/…`, `git/…`, `state/…`. */
  id: string;
  severity: Severity;
  /** One line, shown in `baton lint --list-rules` and the docs. */
  description: string;
  check(model: LintModel): Finding[] | Promise<Finding[]>;
}

/** Builds a finding for a rule, filling rule id and severity. */
export function finding(
  rule: Pick<Rule, "id" | "severity">,
  file: string,
  line: number,
  column: number,
  message: string,
  hint: string,
): Finding {
  return { rule: rule.id, severity: rule.severity, file, line, column, message, hint };
}
