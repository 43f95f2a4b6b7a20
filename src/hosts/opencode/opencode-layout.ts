import { readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import type { InitManifest } from "../../init/index.js";
import { present } from "../../shared/present.js";

/**
 * Where a repository keeps its opencode commands and agents: opencode reads `.opencode/command/` and
 * `.opencode/commands/` alike (likewise `agent/` and `agents/`), and real repositories use both spellings
 * (ProofChecker and ModelChecker: `.opencode/commands/`, `.opencode/agent/subagents/`). Baton installs into
 * the spelling already there, never beside it.
 */
export interface OpencodeLayout {
  commandsDir: string;
  agentsDir: string;
  /** Command names the repository already has, in either spelling, and the folder each is in. */
  commands: Map<string, string>;
  /** Agent base names the repository already has (its own, not files Baton installed). */
  agents: Set<string>;
}

export function opencodeLayout(root: string, previous: InitManifest | undefined): OpencodeLayout {
  const ours = new Set((previous?.files ?? []).map((f) => f.path));
  const spelled = (one: string, many: string) =>
    present(join(root, many)) && !present(join(root, one)) ? many : one;
  const commandsDir = spelled(".opencode/command", ".opencode/commands");
  const agentsDir = spelled(".opencode/agent", ".opencode/agents");
  const commands = new Map<string, string>();
  for (const dir of [".opencode/command", ".opencode/commands"]) {
    for (const name of markdownFiles(root, dir, false)) {
      if (!ours.has(`${dir}/${name}`)) commands.set(basename(name, ".md"), dir);
    }
  }
  const agents = new Set<string>();
  for (const dir of [".opencode/agent", ".opencode/agents"]) {
    for (const name of markdownFiles(root, dir, true)) {
      if (!ours.has(`${dir}/${name}`)) agents.add(basename(name, ".md"));
    }
  }
  return { commandsDir, agentsDir, commands, agents };
}

/** Markdown files under `dir` (relative paths), nested folders too when `deep`. */
function markdownFiles(root: string, dir: string, deep: boolean): string[] {
  const out: string[] = [];
  const walk = (relative: string) => {
    let names: string[];
    try {
      names = readdirSync(join(root, dir, relative));
    } catch {
      return;
    }
    for (const name of names) {
      const path = relative ? `${relative}/${name}` : name;
      if (name.endsWith(".md")) out.push(path);
      else if (deep && statSync(join(root, dir, path), { throwIfNoEntry: false })?.isDirectory()) walk(path);
    }
  };
  walk("");
  return out;
}
