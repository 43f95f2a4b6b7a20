import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildModel, modelFromTexts } from "../../test/support/lint-model.js";

const AGENT = "---\nname: researcher\ndescription: Researches.\ntools: Read, Bash\n---\nBody\n";
const SETTINGS = JSON.stringify(
  {
    hooks: {
      Stop: [
        {
          matcher: "*",
          hooks: [
            { type: "command", command: "bash .claude/hooks/stop.sh 2>/dev/null || echo '{}'" },
            { type: "command", command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/quoted.sh' },
            { type: "command", command: "bash ~/.config/x/ready.sh" },
          ],
        },
      ],
      PreToolUse: [{ hooks: [{ type: "http", url: "http://127.0.0.1:4891/hooks/pre" }] }],
    },
  },
  null,
  2,
);

describe("modelFromTexts", () => {
  it("classifies files and names definitions", () => {
    const model = modelFromTexts({
      ".claude/agents/researcher.md": AGENT,
      ".claude/commands/research.md": "---\ndescription: x\n---\n",
      ".claude/commands/research.sh": "#!/bin/sh\n",
      ".claude/skills/numfacts/SKILL.md": "---\nname: numfacts\ndescription: d\n---\n",
      ".claude/skills/numfacts/helper.md": "",
      ".claude/hooks/stop.sh": "",
      ".claude/settings.json": "{}",
      ".claude/context/core/a.md": "",
      ".claude/rules/r.md": "",
      ".claude/scripts/s.sh": "",
      ".claude/docs/d.md": "",
      ".claude/CLAUDE.md": "",
      ".opencode/agent/helper.md": "---\ndescription: d\n---\n",
    });
    const kinds = Object.fromEntries(model.files.map((f) => [f.path, f.kind]));
    expect(kinds).toMatchObject({
      ".claude/agents/researcher.md": "agent",
      ".claude/commands/research.md": "command",
      ".claude/commands/research.sh": "command",
      ".claude/skills/numfacts/SKILL.md": "skill",
      ".claude/skills/numfacts/helper.md": "other",
      ".claude/hooks/stop.sh": "hook-script",
      ".claude/settings.json": "settings",
      ".claude/context/core/a.md": "context",
      ".claude/rules/r.md": "rule",
      ".claude/scripts/s.sh": "script",
      ".claude/docs/d.md": "doc",
      ".claude/CLAUDE.md": "memory",
      ".opencode/agent/helper.md": "agent",
    });
    expect(model.trees).toEqual([".claude", ".opencode"]);
    expect(model.agents.map((a) => a.name)).toEqual(["researcher", "helper"]);
    // A twin pair shares a name.
    expect(model.commands.map((c) => c.name)).toEqual(["research", "research"]);
    expect(model.skills.map((s) => [s.name, s.fileName])).toEqual([["numfacts", "numfacts"]]);
  });

  it("parses frontmatter with file line numbers", () => {
    const model = modelFromTexts({
      ".claude/agents/a.md": AGENT,
      ".claude/agents/bad.md": "---\nname: bad\ndescription: x\n  - y: [\n---\n",
      ".claude/agents/open.md": "---\nname: open\n",
      ".claude/commands/hint.md": "---\ndescription: d\nargument-hint: [N] [--dry-run]\n---\n",
    });
    const fm = model.byPath.get(".claude/agents/a.md")!.frontmatter!;
    expect(fm.data).toEqual({ name: "researcher", description: "Researches.", tools: "Read, Bash" });
    expect(fm.keyLines).toEqual({ name: 2, description: 3, tools: 4 });
    expect([fm.startLine, fm.endLine]).toEqual([1, 5]);
    expect(model.byPath.get(".claude/agents/a.md")!.bodyStartLine).toBe(6);

    const bad = model.byPath.get(".claude/agents/bad.md")!.frontmatter!;
    expect(bad.data).toBeNull();
    expect(bad.errors[0]!.line).toBeGreaterThanOrEqual(3);
    expect(model.byPath.get(".claude/agents/open.md")!.frontmatter!.errors[0]!.message).toContain("closing");

    // Not YAML, but Claude Code's quoting fallback reads it.
    const hint = model.byPath.get(".claude/commands/hint.md")!.frontmatter!;
    expect(hint.recovered).toBe(true);
    expect(hint.errors.length).toBeGreaterThan(0);
    expect(hint.data).toEqual({ description: "d", "argument-hint": "[N] [--dry-run]" });
  });

  it("collects hook handlers with positions and the scripts they run", () => {
    const model = modelFromTexts({ ".claude/settings.json": SETTINGS });
    const [stop, quoted, home, http] = [
      ...model.hooks.filter((h) => h.event === "Stop"),
      ...model.hooks.filter((h) => h.event === "PreToolUse"),
    ];
    expect(stop).toMatchObject({ matcher: "*", type: "command", scripts: [".claude/hooks/stop.sh"] });
    expect(stop!.line).toBe(SETTINGS.split("\n").findIndex((l) => l.includes("stop.sh")) + 1);
    expect(stop!.column).toBe(SETTINGS.split("\n")[stop!.line - 1]!.indexOf('"bash') + 1);
    expect(quoted!.scripts).toEqual([".claude/hooks/quoted.sh"]);
    expect(home).toMatchObject({ scripts: [], externalScripts: ["~/.config/x/ready.sh"] });
    expect(http).toMatchObject({ type: "http", url: "http://127.0.0.1:4891/hooks/pre", matcher: undefined });
    expect(model.byPath.get(".claude/settings.json")!.json!.errors).toEqual([]);
  });

  it("reports settings that are not strict JSON", () => {
    const model = modelFromTexts({ ".claude/settings.json": '{\n  // comment\n  "a": 1,\n}\n' });
    const errors = model.byPath.get(".claude/settings.json")!.json!.errors;
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]!.line).toBe(2);
  });

  it("answers exists() for files, folders and declared paths", () => {
    const model = modelFromTexts({ ".claude/context/a.md": "" }, { existing: ["specs/state.json"] });
    expect(model.exists(".claude/context/a.md")).toBe(true);
    expect(model.exists("./.claude/context/")).toBe(true);
    expect(model.exists("specs")).toBe(true);
    expect(model.exists("specs/state.json")).toBe(true);
    expect(model.exists("specs/TODO.md")).toBe(false);
    expect(model.tracked).toBeNull();
  });
});

describe("buildModel", () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function tree(files: Record<string, string>) {
    dir = mkdtempSync(join(tmpdir(), "baton-lint-model-"));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return files;
  }

  it("reads the same model from disk as from texts", async () => {
    const files = tree({
      ".claude/agents/researcher.md": AGENT,
      ".claude/settings.json": SETTINGS,
      ".claude/hooks/stop.sh": "#!/bin/sh\n",
      "specs/state.json": "{}",
    });
    chmodSync(join(dir, ".claude/hooks/stop.sh"), 0o755);
    const disk = await buildModel(dir);
    const { "specs/state.json": _, ...config } = files;
    const memory = modelFromTexts(config, { executable: [".claude/hooks/stop.sh"], root: dir });
    const shape = (m: typeof disk) =>
      m.files.map((f) => ({ path: f.path, kind: f.kind, executable: f.executable, fm: f.frontmatter }));
    expect(shape(disk)).toEqual(shape(memory));
    expect(disk.hooks.map((h) => h.scripts)).toEqual(memory.hooks.map((h) => h.scripts));
    // Outside the config tree, exists() asks the disk.
    expect(disk.exists("specs/state.json")).toBe(true);
    expect(disk.exists("specs/nope.json")).toBe(false);
    expect(disk.tracked).toBeNull();
  });

  it("knows the tracked set and the index's executable bits in a git work tree", async () => {
    tree({ ".claude/hooks/a.sh": "", ".claude/hooks/b.sh": "" });
    execFileSync("git", ["init", "-q"], { cwd: dir });
    execFileSync("git", ["add", ".claude/hooks/a.sh"], { cwd: dir });
    execFileSync("git", ["update-index", "--chmod=+x", ".claude/hooks/a.sh"], { cwd: dir });
    const model = await buildModel(dir);
    expect([...(model.tracked ?? [])]).toEqual([".claude/hooks/a.sh"]);
    expect([...(model.trackedExecutable ?? [])]).toEqual([".claude/hooks/a.sh"]);
    expect(model.byPath.get(".claude/hooks/a.sh")!.executable).toBe(false);
  });
});
