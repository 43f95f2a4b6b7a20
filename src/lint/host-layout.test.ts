import { describe, expect, it } from "vitest";
import type { LintHost } from "./lint-host.js";
import { modelFromTexts } from "./model.js";
import { RULES } from "./rules/index.js";
import { runRules } from "./run-lint.js";

/**
 * Lint knows no host by name: every host's files, words and vocabulary come from the profile it is handed. A
 * host lint has never heard of, with a tree and words of its own, is read by its profile alone.
 */
const alpha: LintHost = {
  name: "codex",
  label: "Alpha",
  tree: ".alpha",
  settingsFiles: ["alpha.json"],
  settingsKind: "host-config",
  memoryFiles: ["ALPHA.md"],
  builtInAgents: ["helper"],
  pluginDirs: ["extensions"],
  frontmatter: {
    keys: { agent: ["description", "speed"], command: ["description"], skill: ["name", "description"] },
    requiredAgentKeys: ["description"],
    loadsEveryAgentFile: false,
    withoutRequiredAgentKey: "Alpha never offers it",
    withUnknownKey: "Alpha drops it",
    withNonstandardYaml: "Alpha rejects the block",
    knowsModel: (model) => model.startsWith("alpha-"),
    modelHint: "Use an alpha-… model.",
    knowsTool: null,
  },
};

const files = {
  ".alpha/agents/fast.md": "---\ndescription: d\nsped: 3\nmodel: beta-1\n---\nUse subagent_type: helper\n",
  ".alpha/agents/blank.md": "---\nspeed: 1\n---\nbody\n",
  ".alpha/extensions/x.js": "export default {}\n",
  ".alpha/docs/guide.md": "# guide\n",
  "alpha.json": "{ // comments allowed\n}\n",
  "ALPHA.md": "standing instructions\n",
  ".claude/agents/foreign.md": "not a tree of these hosts\n",
};

describe("lint, handed a host it has never heard of", () => {
  const model = modelFromTexts(files, { hosts: [alpha] });

  it("reads that host's tree, settings and memory files by its profile", () => {
    const kinds = Object.fromEntries(model.files.map((f) => [f.path, f.kind]));
    expect(kinds).toEqual({
      ".alpha/agents/blank.md": "agent",
      ".alpha/agents/fast.md": "agent",
      ".alpha/docs/guide.md": "doc",
      ".alpha/extensions/x.js": "plugin",
      "ALPHA.md": "memory",
      "alpha.json": "host-config",
      ".claude/agents/foreign.md": "other",
    });
    expect(model.trees).toEqual([".alpha"]);
    expect(model.hostOf(".alpha/agents/fast.md").label).toBe("Alpha");
  });

  it("says what that host does, in its words and with its keys, models and built-in agents", async () => {
    const findings = await runRules(model, RULES);
    const said = findings.map((f) => `${f.file}: ${f.rule}: ${f.message} | ${f.hint}`);
    expect(said).toContain(
      ".alpha/agents/fast.md: frontmatter/unknown-key: unknown agent frontmatter key `sped`; Alpha drops it | Did you mean `speed`?",
    );
    expect(said).toContain(
      ".alpha/agents/fast.md: frontmatter/unknown-model: agent `model: beta-1` is not a model Alpha knows | Use an alpha-… model.",
    );
    expect(said.filter((s) => s.includes("frontmatter/missing-required"))).toEqual([
      ".alpha/agents/blank.md: frontmatter/missing-required: agent frontmatter lacks `description`; Alpha never offers it | Add `description:` saying what it does and when to use it (the model chooses by it).",
    ]);
    expect(said.filter((s) => s.includes("references/unknown-agent"))).toEqual([]);
  });
});
