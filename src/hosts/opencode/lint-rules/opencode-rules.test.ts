import { describe, expect, it } from "vitest";
import { modelFromTexts } from "../../../../test/support/lint-model.js";
import { RULES } from "../../../lint/rules/index.js";
import { hostLintRules } from "../../index.js";
import { opencodeConfig, opencodeConfigKey } from "./config-rules.js";
import { opencodeDefinitions } from "./definition-rules.js";
import { pluginExports } from "./plugin-exports.js";

/** A small opencode tree with one problem of each kind opencode itself would trip on. */
const TREE: Record<string, string> = {
  ".opencode/agent/subagents/researcher.md":
    "---\ndescription: Researches\nmode: subagent\nmodel: anthropic/claude-haiku-4-5\ntools:\n  webfetch: false\npermission:\n  edit: allow\n---\nResearch.\n",
  ".opencode/agent/bad.md": "---\ndescription: bad\nmode: sideways\ntools: [bash]\n---\nBody.\n",
  ".opencode/agent/nameless.md": "---\nmode: subagent\nname: nameless\n---\nNo description.\n",
  ".opencode/agent/odd-yaml.md":
    "---\ndescription: Use this agent when: things happen\nmode: subagent\n---\nBody.\n",
  ".opencode/agent/broken.md": "---\ndescription: [unclosed\n  - oops: {\n---\nBody.\n",
  ".opencode/command/research.md":
    "---\ndescription: Research\nagent: build\nsubtask: true\n---\nResearch $1 ($ARGUMENTS); wrong: $0.\n",
  ".opencode/plugin/baton.js":
    'export const Baton = async ({ client }) => ({});\nexport async function Other() { return {}; }\nexport const VERSION = "1.0";\nexport class Helper {}\n',
  "opencode.json":
    '{\n  // comments are fine\n  "permission": { "edit": { "specs/state.json": "deny", "x": "maybe" } },\n  "plugn": [],\n}\n',
};

describe("opencode rules", () => {
  it("judge opencode's files by opencode's rules", async () => {
    const model = modelFromTexts(TREE);
    const found = async (rule: { check: (m: typeof model) => unknown }) =>
      ((await rule.check(model)) as Array<{ file: string; line: number; message: string }>).map(
        (f) => `${f.file}:${f.line} ${f.message.split(";")[0]}`,
      );
    expect(await found(opencodeDefinitions)).toEqual([
      ".opencode/agent/bad.md:3 `mode: sideways` is not an opencode agent mode",
      ".opencode/agent/bad.md:4 opencode's `tools` is a map of tool name to true/false, not a list",
      ".opencode/command/research.md:6 `$0` in an opencode command is never filled: opencode counts arguments from `$1`",
    ]);
    expect(await found(pluginExports)).toEqual([
      ".opencode/plugin/baton.js:3 export `VERSION` is not a function",
      ".opencode/plugin/baton.js:4 export `Helper` is not a function",
    ]);
    expect(await found(opencodeConfig)).toEqual([
      'opencode.json:3 permission.edit.x = "maybe": opencode applies only "allow", "ask" or "deny"',
    ]);
    expect(await found(opencodeConfigKey)).toEqual(["opencode.json:4 unknown opencode config key `plugn`"]);
  });

  it("never cite Claude Code about an opencode file, and accept opencode's own keys and nameless agents", async () => {
    const model = modelFromTexts(TREE);
    const all = (await Promise.all([...RULES, ...hostLintRules()].map((rule) => rule.check(model)))).flat();
    const onOpencode = all.filter((f) => f.file.startsWith(".opencode/") || f.file.startsWith("opencode."));
    const rules = new Set(onOpencode.map((f) => f.rule));
    for (const rule of ["frontmatter/unknown-key", "frontmatter/missing-required", "opencode/definitions"]) {
      expect(rules, [...rules].join(", ")).toContain(rule);
    }
    expect(
      [...rules].some((r) => r === "frontmatter/invalid-yaml" || r === "frontmatter/nonstandard-yaml"),
    ).toBe(true);
    for (const f of onOpencode)
      expect(`${f.message} ${f.hint}`, `${f.rule} on ${f.file}`).not.toMatch(/Claude/);
    expect(all.filter((f) => f.file === ".opencode/agent/subagents/researcher.md")).toEqual([]);
    expect(all.find((f) => f.file === ".opencode/agent/nameless.md")?.message).toContain(
      "lacks `description`",
    );
  });
});
