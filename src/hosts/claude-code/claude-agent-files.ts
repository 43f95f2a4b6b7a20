import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type AgentFileReader, type AgentFiles, declaredName } from "../../agents/index.js";
import { present } from "../../shared/present.js";

/**
 * Claude Code's agents: `.claude/agents/*.md`, each named by the `name:` it declares; and the skills of
 * `.claude/skills/*\/SKILL.md` that delegate to an agent (`subagent_type: "x"` in the body, as the
 * original's thin wrapper skills do), so a route may name either.
 */
export const claudeAgentFiles: AgentFileReader = {
  host: "Claude Code",
  read(root: string, into: AgentFiles): void {
    const dir = join(root, ".claude", "agents");
    if (present(dir)) {
      for (const file of readdirSync(dir)
        .filter((f) => f.endsWith(".md"))
        .sort()) {
        const path = join(dir, file);
        into.agents.add(path, readFileSync(path, "utf8"));
      }
    }
    for (const [skill, agent] of skillDelegations(root)) into.skills.set(skill, agent);
  },
};

function skillDelegations(root: string): Map<string, string> {
  const dir = join(root, ".claude", "skills");
  const delegations = new Map<string, string>();
  if (!present(dir)) return delegations;
  for (const skill of readdirSync(dir).sort()) {
    const path = join(dir, skill, "SKILL.md");
    if (!present(path)) continue;
    const text = readFileSync(path, "utf8");
    const name = declaredName(path, text) === "SKILL" ? skill : declaredName(path, text);
    const agent = /subagent_type:\s*"?([\w.-]+)"?/.exec(text)?.[1];
    if (agent) delegations.set(name, agent);
  }
  return delegations;
}
