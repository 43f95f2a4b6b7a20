import type { HostName } from "../shared/host-names.js";

/**
 * A host as lint reads it: where it keeps its files, the frontmatter it reads in them, and what it does with
 * what it cannot read, so every finding says what *that* host does. Each host's lives in `hosts/<name>/`; lint
 * is handed them (`LintOptions.hosts`, `buildModel`) and knows no host by name.
 */
export interface LintHost {
  readonly name: HostName;
  /** As people call it, in findings: "Claude Code". */
  readonly label: string;
  /** Its config tree at the repository's root: `.claude`. */
  readonly tree: string;
  /** Its settings files, root-relative, and how lint parses them: hook settings, or a JSONC config tree. */
  readonly settingsFiles: readonly string[];
  readonly settingsKind: "settings" | "host-config";
  /** What it loads into every session as standing instructions, at the root and at its tree's top. */
  readonly memoryFiles: readonly string[];
  /** The agents it has without any file: a call may name them anywhere. */
  readonly builtInAgents: readonly string[];
  /** Folders under its tree whose every script it imports as a plugin. */
  readonly pluginDirs: readonly string[];
  readonly frontmatter: HostFrontmatter;
}

/** The frontmatter a host reads in its agents, commands and skills, and what it does with the rest. */
export interface HostFrontmatter {
  readonly keys: {
    readonly agent: readonly string[];
    readonly command: readonly string[];
    readonly skill: readonly string[];
  };
  /** Keys without which it does not load an agent, or lists it blank. */
  readonly requiredAgentKeys: readonly string[];
  /** Whether it loads every `.md` of its agent folder as an agent, a README included. */
  readonly loadsEveryAgentFile: boolean;
  /** What it does with an agent that lacks a required key: "Claude Code skips this agent". */
  readonly withoutRequiredAgentKey: string;
  /** What it does with a key it does not read: "Claude Code ignores it". */
  readonly withUnknownKey: string;
  /** What it does with frontmatter that is not YAML but has values a quoting fallback can rescue. */
  readonly withNonstandardYaml: string;
  /** Whether a `model:` value names a model it can run, and how to name one. */
  knowsModel(model: string): boolean;
  readonly modelHint: string;
  /** Whether a `tools:` entry names one of its tools; null when its `tools` is another shape (a map of flags). */
  readonly knowsTool: ((entry: string) => boolean) | null;
}
