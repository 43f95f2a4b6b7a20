import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ReadOnlyRunner } from "../support/read-only.js";
import {
  commitAll,
  fails,
  GOOD_RESEARCH,
  git,
  ok,
  okJson,
  repo,
  runBaton,
  scriptFile,
  snapshot,
} from "./helpers.js";

/**
 * A repository of the original system as people really keep it, in one piece: a curated "Task Order"
 * section with numbered headings above `## Tasks`, numbering restarted after a vault (8 … 81 beside
 * 619 … 998, next_project_number 81 while 81 is taken), a TODO.md with a BOM and CRLF line ends kept
 * behind a symlink, a hand-formatted CRLF state.json, agent descriptions with colons beside a broken
 * agent file, and a specs/ folder that is sometimes read-only. Baton must work on it without a hand
 * edit and change no byte it did not mean to.
 */
const CRLF = "\r\n";
const CURATED = [
  "# TODO",
  "",
  "## Task Order",
  "",
  "### 0. Strict Temporal Extensions Research (new track, parallel)",
  "",
  "- 8, 12",
  "",
  "### 1. Phase B — Core Wiring",
  "",
  "```",
  "12 → 81 → 619",
  "```",
  "",
];

function entry(n: number, title: string, status: string, language: string, extra: string[] = []): string[] {
  return [
    `### ${n}. ${title}`,
    "- **Effort**: 2 hours",
    `- **Status**: [${status}]`,
    `- **Language**: ${language}`,
    ...extra,
    "",
    `**Description**: ${title}.`,
    "",
    "---",
    "",
  ];
}

const TASKS = [
  {
    n: 8,
    slug: "survey_extensions",
    title: "Survey temporal extensions",
    status: "NOT STARTED",
    s: "not_started",
    lang: "general",
  },
  { n: 12, slug: "core_wiring", title: "Wire the core", status: "PLANNED", s: "planned", lang: "general" },
  {
    n: 81,
    slug: "fix_lexer",
    title: "Fix the lexer",
    status: "RESEARCHED",
    s: "researched",
    lang: "general",
  },
  {
    n: 619,
    slug: "agent_architecture",
    title: "Agent architecture",
    status: "BLOCKED",
    s: "blocked",
    lang: "meta",
  },
  { n: 998, slug: "old_proof", title: "Old proof", status: "NOT STARTED", s: "not_started", lang: "lean" },
];

const PLAN = [
  "# Implementation Plan: Task #12",
  "",
  "### Phase 1: Wire [NOT STARTED]",
  "",
  "- **Dependencies:** None",
  "- [ ] wire it",
  "",
].join(CRLF);

function buildRepository(): string {
  const dir = repo();
  const todo = [
    "---",
    "next_project_number: 81",
    "task_counts:",
    "  active: 5",
    "---",
    "",
    ...CURATED,
    "## Tasks",
    "",
    ...TASKS.flatMap((t) =>
      entry(t.n, t.title, t.status, t.lang, t.n === 619 ? ["- **Blocked on**: upstream"] : []),
    ),
    "## Notes",
    "",
    "### 5. A numbered note, never a task",
    "",
  ].join(CRLF);
  mkdirSync(join(dir, "docs"), { recursive: true });
  writeFileSync(join(dir, "docs", "TODO.md"), `\uFEFF${todo}`);
  mkdirSync(join(dir, "specs", "archive"), { recursive: true });
  symlinkSync("../docs/TODO.md", join(dir, "specs", "TODO.md"));
  // Hand-formatted (one entry per line), CRLF: Baton must edit it in place, not re-serialise it.
  const state = [
    "{",
    '  "next_project_number": 81,',
    '  "active_projects": [',
    TASKS.map(
      (t) =>
        `    {"project_number": ${t.n}, "project_name": "${t.slug}", "status": "${t.s}", "language": "${t.lang}"${t.n === 619 ? ', "blocked_reason": "upstream"' : ""}${t.n === 12 ? ', "artifacts": [{"type": "plan", "path": "specs/12_core_wiring/plans/implementation-001.md"}]' : ""}}`,
    ).join(`,${CRLF}`),
    "  ],",
    '  "repository_health": {"status": "manageable"}',
    "}",
    "",
  ].join(CRLF);
  writeFileSync(join(dir, "specs", "state.json"), state);
  writeFileSync(
    join(dir, "specs", "archive", "state.json"),
    `${JSON.stringify({ completed_projects: [{ project_number: 82, project_name: "vaulted", status: "completed" }] }, null, 2)}\n`,
  );
  mkdirSync(join(dir, "specs", "12_core_wiring", "plans"), { recursive: true });
  writeFileSync(join(dir, "specs", "12_core_wiring", "plans", "implementation-001.md"), PLAN);
  mkdirSync(join(dir, ".claude", "agents"), { recursive: true });
  writeFileSync(
    join(dir, ".claude", "agents", "general-research-agent.md"),
    "---\nname: general-research-agent\ndescription: Use this agent when: the user asks for research\ntools: Read, Write\n---\n\nResearch the task and write the report Baton names.\n",
  );
  writeFileSync(
    join(dir, ".claude", "agents", "broken.md"),
    "---\nname: broken-agent\ndescription: [unclosed\n  - : :\n---\nbody\n",
  );
  scriptFile(dir, "research", GOOD_RESEARCH);
  commitAll(dir, "a repository of the original system");
  return dir;
}

const todoText = (dir: string) => readFileSync(join(dir, "docs", "TODO.md"), "utf8");
const stateText = (dir: string) => readFileSync(join(dir, "specs", "state.json"), "utf8");

function expectFileForm(text: string, bom: boolean): void {
  expect(text.startsWith("\uFEFF")).toBe(bom);
  expect(text.replace(/\r\n/g, ""), "a line without CRLF").not.toContain("\n");
}

let readOnly: ReadOnlyRunner | undefined;
afterEach(() => readOnly?.cleanup());

describe("a real repository of the original system, without a hand edit", () => {
  it("reads, adds, moves, researches, archives (dry), checks, shows and lints, keeping every other byte", () => {
    const dir = buildRepository();
    const before = todoText(dir);
    const curated = before.slice(0, before.indexOf("## Tasks"));

    // Reading: the curated headings are not tasks, the note after the tasks section is not a task.
    const list = okJson(dir, ["task", "list"]);
    expect(list.map((t: { number: number }) => t.number).sort((a: number, b: number) => a - b)).toEqual([
      8, 12, 81, 619, 998,
    ]);
    expect(okJson(dir, ["task", "show", "81"])).toMatchObject({
      number: 81,
      title: "Fix the lexer",
      status: "researched",
    });

    // Doctor knows the restarted numbering: 81 is taken, 82 archived, so 83 is next; nothing else is wrong.
    const doctor = JSON.parse(fails(dir, ["doctor", "--json"]).stdout);
    expect(doctor.findings.map((f: { code: string }) => f.code)).toEqual(["NEXT_NUMBER_TAKEN"]);
    expect(doctor.findings[0].message).toBe("next_project_number 81 is already held by active task 81");
    expect(doctor.findings[0].fix).toContain("set next_project_number to 83");

    // task add: never a live or archived number; the BOM, CRLF, the link and the curated section stay.
    expect(okJson(dir, ["task", "add", "Prove the lemma", "-l", "general"]).number).toBe(83);
    const afterAdd = todoText(dir);
    expectFileForm(afterAdd, true);
    expectFileForm(stateText(dir), false);
    expect(afterAdd.startsWith(`\uFEFF---${CRLF}next_project_number: 84${CRLF}task_counts:`)).toBe(true);
    expect(afterAdd.slice(0, afterAdd.indexOf("## Tasks"))).toBe(
      curated.replace("next_project_number: 81", "next_project_number: 84"),
    );
    expect(lstatSync(join(dir, "specs", "TODO.md")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, "specs", "TODO.md"))).toBe("../docs/TODO.md");
    expect(stateText(dir)).toContain(
      `    {"project_number": 998, "project_name": "old_proof", "status": "not_started", "language": "lean"}${CRLF}`,
    );
    expect(JSON.parse(stateText(dir)).next_project_number).toBe(84);
    expect(okJson(dir, ["doctor"]).healthy).toBe(true);

    // A status move changes the entry's status line and nothing else.
    const beforeMove = todoText(dir);
    ok(dir, ["task", "status", "8", "blocked", "--reason", "waiting"]);
    expect(
      todoText(dir)
        .replace("[BLOCKED]", "[NOT STARTED]")
        .replace(/- \*\*Blocked on\*\*: waiting\r\n/, ""),
    ).toBe(beforeMove);
    expectFileForm(todoText(dir), true);

    // A scripted research through the repository's own agent (its description has a colon).
    const research = okJson(dir, ["research", "81", "--force", "--script", "research.json"]);
    expect(research.result).toMatchObject({ ok: true, committed: true });
    expect(research.agent).toBe("general-research-agent");
    expectFileForm(todoText(dir), true);
    expectFileForm(stateText(dir), false);
    expect(git(dir, ["log", "-1", "--format=%s%n%b"])).toMatch(/^task 81: complete research\nSession: sess_/);

    // archive --dry-run, plan show, lint: no byte changes.
    ok(dir, ["task", "status", "998", "completed", "--summary", "Proved.", "--force"]);
    const untouched = snapshot(dir);
    expect(ok(dir, ["archive", "--dry-run"]).stdout).toContain("Would archive 1 task(s): 998 (completed)");
    expect(okJson(dir, ["plan", "show", "12"]).phases.map((p: { name: string }) => p.name)).toEqual(["Wire"]);
    const lint = JSON.parse(runBaton(dir, ["lint", "--json"]).stdout);
    expect(lint.findings.some((f: { file: string }) => f.file === ".claude/agents/broken.md")).toBe(true);
    // The colon description is a warning (other parsers reject it), never an error: Claude Code reads it.
    const agentFindings = lint.findings.filter((f: { file: string }) =>
      f.file.endsWith("general-research-agent.md"),
    );
    expect(agentFindings.map((f: { rule: string; severity: string }) => `${f.rule} ${f.severity}`)).toEqual([
      "frontmatter/nonstandard-yaml warning",
    ]);
    ok(dir, ["doctor"]);
    expect(changed(untouched, snapshot(dir))).toEqual([]);
  });

  it("works read-only: every read command and dry run succeeds, a write says IO_FAILURE and loses nothing", () => {
    const dir = buildRepository();
    ok(dir, ["task", "add", "Prove the lemma", "-l", "general"]);
    commitAll(dir, "added");
    readOnly = new ReadOnlyRunner(dir);
    const before = snapshot(dir);
    for (const args of [
      ["task", "list"],
      ["task", "show", "12"],
      ["archive", "--dry-run"],
      ["research", "8", "--dry-run"],
      ["implement", "12", "--dry-run"],
      ["plan", "show", "12"],
      ["doctor"],
      ["errors"],
    ]) {
      const result = readOnly.run(args);
      expect(result.status, `baton ${args.join(" ")}: ${result.stderr}`).toBe(0);
      expect(result.stderr, args.join(" ")).toBe("");
    }
    const add = readOnly.run(["task", "add", "Refused", "-l", "general"]);
    expect(add.status).toBe(1);
    expect(add.stderr).toMatch(
      /^baton: IO_FAILURE: cannot \w+ \S+specs\/\S+: permission denied \(EACCES\)\n {2}Make it writable/,
    );
    expect(add.stderr).not.toContain("unexpected failure");
    expect(add.stderr).not.toContain("    at ");
    expect(changed(before, snapshot(dir))).toEqual([]);
  });

  it("refuses to replace a dangling symlink with a regular file, and writes nothing", () => {
    const dir = buildRepository();
    const todo = join(dir, "specs", "TODO.md");
    const copy = todoText(dir);
    rmSync(join(dir, "docs", "TODO.md"));
    const result = runBaton(dir, ["task", "add", "Lost", "-l", "general"]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("is a symbolic link to ../docs/TODO.md, which does not exist");
    expect(lstatSync(todo).isSymbolicLink()).toBe(true);
    expect(existsSync(join(dir, "docs", "TODO.md"))).toBe(false);
    expect(copy.length).toBeGreaterThan(0);
  });
});

function changed(before: Map<string, Buffer>, after: Map<string, Buffer>): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter(
    (p) => !p.startsWith(".git/") && !(before.get(p)?.equals(after.get(p) ?? Buffer.alloc(0)) ?? false),
  );
}
