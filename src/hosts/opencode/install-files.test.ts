import { execFileSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { readManifest } from "../../init/manifest.js";
import { readText, TEST_BIN, tempRepo, tree } from "../../init/test-repo.js";
import { FileFormatError } from "../../shared/index.js";
import { runInit } from "../index.js";
import { opencode } from "./index.js";

const install = (root: string, specsDir?: string) =>
  runInit({ root, bin: TEST_BIN, hosts: [opencode], ...(specsDir ? { specsDir } : {}) });
const uninstall = (root: string) => runInit({ root, uninstall: true });
const config = (root: string, name = "opencode.json") => JSON.parse(readText(root, name));

describe("baton init --host opencode", () => {
  it("installs 1-based commands, sub-agents and one plugin beside the Claude Code files", async () => {
    const root = tempRepo();
    await install(root);
    expect(readdirSync(join(root, ".opencode/command")).sort()).toEqual(
      ["errors", "implement", "plan", "research", "revise", "task", "todo"].map((c) => `${c}.md`),
    );
    const research = readText(root, ".opencode/command/research.md");
    expect(research).toContain(`!\`${TEST_BIN} gate-in research --host opencode $ARGUMENTS\``);
    expect(research).toContain("GATE IN for research of task $1:");
    // opencode numbers arguments from 1: `$0` would be empty there.
    for (const name of readdirSync(join(root, ".opencode/command")))
      expect(readText(root, `.opencode/command/${name}`)).not.toMatch(/\$0\b/);
    expect(research).toContain("task tool");
    expect(research).not.toContain("Agent tool");

    const agent = readText(root, ".opencode/agent/baton-researcher.md");
    const front = parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(agent)![1]!);
    expect(front).toEqual({ description: expect.stringContaining("Researches one task"), mode: "subagent" });
    expect(agent).toContain("# Baton researcher");

    const plugin = readText(root, ".opencode/plugin/baton.js");
    expect(plugin).toContain(`const BATON = ${JSON.stringify(TEST_BIN)};`);
    // opencode calls every export as a plugin: exactly one, a function.
    expect(plugin.match(/^export /gm)).toEqual(["export "]);
    execFileSync(process.execPath, ["--check", join(root, ".opencode/plugin/baton.js")]);

    expect(config(root)).toEqual({
      permission: {
        edit: {
          "specs/state.json": "deny",
          "specs/TODO.md": "deny",
          "specs/archive/state.json": "deny",
          "specs/errors.json": "deny",
          "specs/.baton/*": "deny",
          ".baton/*": "deny",
          "*.baton-postflight-pending": "deny",
          "*.baton-postflight-loop-guard": "deny",
        },
      },
    });
    expect(readManifest(root)!.manifest.opencode).toMatchObject({ path: "opencode.json", created: true });
    // Remembered: a plain re-run changes nothing.
    expect((await runInit({ root })).upToDate).toBe(true);
  });

  it("names the configured store folder in the deny rules", async () => {
    const root = tempRepo();
    await install(root, "work/specs");
    expect(Object.keys(config(root).permission.edit)).toContain("work/specs/state.json");
  });

  it("keeps the user's config, comments and rules, and uninstall gives back exactly the file it found", async () => {
    const root = tempRepo();
    const original = [
      "{",
      "  // the team's model",
      '  "model": "anthropic/claude-sonnet-4-5",',
      '  "permission": {',
      '    "bash": "ask",',
      '    "edit": { "*": "allow", "specs/TODO.md": "deny", "specs/errors.json": "ask" },',
      "  },",
      "}",
      "",
    ].join("\n");
    writeFileSync(join(root, "opencode.jsonc"), original);
    await install(root);
    const text = readText(root, "opencode.jsonc");
    expect(text).toContain("// the team's model");
    const value = parseYaml(text.replace(/\/\/.*$/gm, "").replace(/,(\s*[}\]])/g, "$1"));
    expect(value.model).toBe("anthropic/claude-sonnet-4-5");
    expect(value.permission.bash).toBe("ask");
    expect(value.permission.edit["*"]).toBe("allow");
    expect(value.permission.edit["specs/errors.json"]).toBe("deny");
    expect(value.permission.edit["specs/state.json"]).toBe("deny");
    const { opencode } = readManifest(root)!.manifest;
    // The user's own deny is theirs; the action Baton overrode is recorded to give back.
    expect(opencode?.rules.find((r) => r.pattern === "specs/TODO.md")).toBeUndefined();
    expect(opencode?.rules.find((r) => r.pattern === "specs/errors.json")).toEqual({
      pattern: "specs/errors.json",
      was: "ask",
    });
    expect((await runInit({ root })).upToDate).toBe(true);
    await uninstall(root);
    expect(readText(root, "opencode.jsonc")).toBe(original);
  });

  it("after the user edits the config, uninstall takes out only Baton's rules", async () => {
    const root = tempRepo();
    writeFileSync(
      join(root, "opencode.json"),
      '{ "permission": { "edit": { "specs/errors.json": "ask" } } }\n',
    );
    await install(root);
    const edited = config(root);
    edited.share = "disabled";
    edited.permission.edit["docs/*"] = "ask";
    writeFileSync(join(root, "opencode.json"), `${JSON.stringify(edited, null, 2)}\n`);
    await uninstall(root);
    expect(config(root)).toEqual({
      permission: { edit: { "specs/errors.json": "ask", "docs/*": "ask" } },
      share: "disabled",
    });
  });

  it("turns a global action into the `*` rule, and back on uninstall", async () => {
    for (const original of [
      '{ "permission": "ask" }\n',
      '{\n  "permission": {\n    "edit": "allow"\n  }\n}\n',
    ]) {
      const root = tempRepo();
      writeFileSync(join(root, "opencode.json"), original);
      await install(root);
      const value = config(root);
      const edit = value.permission.edit;
      expect(Object.keys(edit)[0]).toBe(original.includes('"ask"') ? "specs/state.json" : "*");
      expect(edit["specs/state.json"]).toBe("deny");
      if (original.includes('"ask"')) expect(value.permission["*"]).toBe("ask");
      await uninstall(root);
      expect(JSON.parse(readText(root, "opencode.json"))).toEqual(JSON.parse(original));
    }
  });

  it("removes the config it created, and the .opencode folders, on uninstall", async () => {
    const root = tempRepo();
    await install(root);
    await uninstall(root);
    expect(tree(root)).toEqual({});
    expect(readdirSync(root)).toEqual([".git"]);
  });

  it("refuses an opencode.json it cannot read, naming the line, and writes nothing", async () => {
    const root = tempRepo();
    writeFileSync(join(root, "opencode.json"), '{\n  "model": "x",\n  "permission": {\n}}}\n');
    const before = tree(root);
    const error = await install(root).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileFormatError);
    expect((error as Error).message).toMatch(/opencode\.json: .*line 4/);
    expect(tree(root)).toEqual(before);

    writeFileSync(join(root, "opencode.json"), '{ "permission": { "edit": ["specs"] } }\n');
    const shape = await install(root).catch((e: unknown) => e);
    expect((shape as Error).message).toContain('"permission.edit" must be an object of path patterns');
  });
});
