import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HOSTS } from "../../src/hosts/index.js";
import { HOST_SESSIONS } from "../../src/hosts/session-registry.js";
import { HOST_NAMES } from "../../src/shared/host-names.js";
import { BATON_BIN } from "../support/cli.js";
import { fails, generatedRepo, ok, okJson, repo, runBaton, write } from "./helpers.js";

const VERSION = JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8")).version;

/** Every command path the help lists, found by walking `--help` output. */
function commandPaths(dir: string): string[] {
  const commandsOf = (help: string) =>
    [...help.matchAll(/^ {2}([a-z][\w-]*)(?: \[options\])?(?: [<[][^\n]*)?\s{2,}\S/gm)].map((m) => m[1]!);
  const top = commandsOf(ok(dir, ["--help"]).stdout).filter((c) => c !== "help");
  const task = commandsOf(ok(dir, ["task", "--help"]).stdout).map((c) => `task ${c}`);
  return [...top, ...task, "plan show"];
}

describe("the CLI a newcomer expects", () => {
  it("prints its version", () => {
    const dir = repo();
    expect(ok(dir, ["--version"]).stdout).toBe(`${VERSION}\n`);
    expect(ok(dir, ["-V"]).stdout).toBe(`${VERSION}\n`);
  });

  it("groups the help, hides the hook entry and uses no insider words", () => {
    const help = ok(repo(), ["--help"]).stdout;
    const headings = [...help.matchAll(/^(\S[^\n]*):$/gm)].map((m) => m[1]);
    expect(headings).toEqual([
      "Options",
      "Tasks (specs/state.json and specs/TODO.md)",
      "Operations (GATE IN → an agent works → GATE OUT verifies → commit)",
      "Plans",
      "Claude Code sessions",
      "Maintenance",
    ]);
    expect(help).not.toMatch(/^ {2}hook\b/m);
    expect(help).not.toMatch(/^Commands:$/m);
  });

  it("gives every command an example, every argument a description, and no insider words", () => {
    const dir = repo();
    const paths = commandPaths(dir);
    expect(paths).toEqual(
      expect.arrayContaining(["task add", "research", "implement", "plan show", "lint", "init"]),
    );
    for (const path of paths) {
      const help = ok(dir, [...path.split(" "), "--help"]).stdout;
      expect(help, path).toMatch(/\nExamples?:\n {2}\$ baton /);
      expect(help, path).not.toMatch(/\boriginal\b/i);
      const args = /\nArguments:\n([\s\S]*?)\n\n/.exec(help)?.[1] ?? "";
      for (const line of args.split("\n").filter((l) => /^ {2}\S/.test(l))) {
        expect(line.trim(), `${path}: argument without a description`).toMatch(/^\S+\s{2,}\S/);
      }
    }
  });

  it("names in its help every host init can add, as the host says it, and every host gate-in speaks to", () => {
    const dir = repo();
    const oneLine = (text: string) => text.replace(/\s+/g, " ");
    const init = oneLine(ok(dir, ["init", "--help"]).stdout);
    for (const host of HOSTS.filter((h) => !h.primary)) {
      expect(init, host.name).toContain(`${host.name} (${host.installs})`);
    }
    expect(init).toContain("resident (default:");
    const gateIn = oneLine(ok(dir, ["gate-in", "--help"]).stdout);
    for (const name of HOST_NAMES.filter((name) => HOST_SESSIONS[name] !== null))
      expect(gateIn).toContain(name);
  });

  it("offers implement-only options on implement only", () => {
    const dir = repo();
    expect(ok(dir, ["implement", "--help"]).stdout).toContain("--concurrency <n>");
    for (const op of ["research", "plan", "revise"]) {
      const help = ok(dir, [op, "--help"]).stdout;
      expect(help, op).not.toMatch(/--concurrency|--max-iterations|--isolate/);
    }
    ok(dir, ["task", "add", "Study the lexer", "-l", "general"]);
    expect(fails(dir, ["research", "1", "--concurrency", "2", "--dry-run"], 2).stderr).toContain(
      "unknown option '--concurrency'",
    );
  });

  it("plan show: its own help, a task number or a plan file, and the way back for an archived task", () => {
    const dir = repo();
    expect(ok(dir, ["plan", "show", "--help"]).stdout).toMatch(
      /^Usage: baton plan show \[options\] <task-or-file>/,
    );
    ok(dir, ["task", "add", "Add parser", "-l", "general"]);
    const plan = "# Plan\n\n### Phase 1: Parse [NOT STARTED]\n\n- **Dependencies:** None\n- [ ] parser\n";
    write(dir, "1_add_parser/plans/implementation-001.md", plan);
    const byNumber = okJson(dir, ["plan", "show", "1"]);
    const byPath = okJson(dir, ["plan", "show", "specs/1_add_parser/plans/implementation-001.md"]);
    expect(byPath).toEqual(byNumber);
    mkdirSync(join(dir, "drafts"));
    writeFileSync(join(dir, "drafts", "idea.md"), plan);
    expect(ok(dir, ["plan", "show", "drafts/idea.md"]).stdout).toMatch(/^Plan drafts\/idea\.md\n/);
    ok(dir, ["task", "abandon", "1"]);
    const archived = fails(dir, ["plan", "show", "1"], 3);
    expect(archived.stderr).toContain("task 1 is archived");
    expect(archived.stderr).toContain("baton task recover 1");
    expect(fails(dir, ["plan", "show", "drafts/none.md"], 2).stderr).toContain("cannot read the plan");
  });

  it("lint accepts the repository root or the .claude folder itself", () => {
    const dir = repo();
    mkdirSync(join(dir, ".claude", "agents"), { recursive: true });
    writeFileSync(join(dir, ".claude", "agents", "broken.md"), "# An agent without frontmatter\n");
    const fromRoot = runBaton(dir, ["lint", "--json"]);
    const fromTree = runBaton(dir, ["lint", ".claude", "--json"]);
    const fromInside = runBaton(join(dir, ".claude"), ["lint", ".", "--json"]);
    const findings = (r: { stdout: string }) =>
      JSON.parse(r.stdout).findings.map((f: { file: string }) => f.file);
    expect(findings(fromRoot)).toContain(".claude/agents/broken.md");
    expect(findings(fromTree)).toEqual(findings(fromRoot));
    expect(findings(fromInside)).toEqual(findings(fromRoot));
    expect(fromTree.status).toBe(1);
  });

  it("exits quietly when the reader of its output goes away (| head -1)", () => {
    const { dir } = generatedRepo({ active: 1500, archived: 0 });
    const err = join(dir, "stderr.txt");
    const out = execFileSync(
      "sh",
      [
        "-c",
        `"${process.execPath}" "${BATON_BIN}" task list 2>"${err}" | head -1; echo "status \${PIPESTATUS:-done}"`,
      ],
      { cwd: dir, encoding: "utf8" },
    );
    expect(out.split("\n")[0]).toMatch(/^#\s+STATUS/);
    expect(readFileSync(err, "utf8")).toBe("");
  });
});
