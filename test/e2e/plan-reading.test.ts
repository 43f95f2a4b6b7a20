import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { phaseScriptSteps } from "../../src/testing/generate-plan.js";
import { BATON_BIN } from "../support/cli.js";
import { git, ok, readJson, repo, runBaton } from "./helpers.js";

const FOLDER = "specs/1_draw_the_diagrams";
const PLAN = `${FOLDER}/plans/implementation-001.md`;

const phase = (id: number, name: string, body: string[] = []) => [
  `### Phase ${id}: ${name} [NOT STARTED]`,
  "",
  `- **Dependencies:** ${id === 1 ? "None" : `Phase ${id - 1}`}`,
  "",
  ...body,
  "",
  "**Tasks:**",
  `- [ ] ${name}`,
  "",
];

function plannedTask(text: string): string {
  const dir = repo();
  ok(dir, ["task", "add", "Draw the diagrams", "-l", "general"]);
  ok(dir, ["task", "status", "1", "planned", "--force"]);
  mkdirSync(join(dir, FOLDER, "plans"), { recursive: true });
  writeFileSync(join(dir, PLAN), text);
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-qm", "planned"]);
  return dir;
}

function script(dir: string, phases: Record<string, unknown> = {}): string {
  const path = join(dir, ".git", "agent.json");
  writeFileSync(path, JSON.stringify({ phases: { "*": { steps: phaseScriptSteps() }, ...phases } }));
  return path;
}

const header = [
  "# Implementation Plan: Task #1",
  "",
  "- **Status**: [NOT STARTED]",
  "",
  "## Implementation Phases",
  "",
];
const planText = (dir: string) => readFileSync(join(dir, PLAN), "utf8");
const markers = (dir: string) =>
  [...planText(dir).matchAll(/^### Phase (\S+): .*\[([A-Z ]+)\]$/gm)].map((m) => `${m[1]}:${m[2]}`);
const taskStatus = (dir: string) =>
  readJson<{ active_projects: { status: string }[] }>(dir, "state.json").active_projects[0]?.status;

describe("implement runs the plan CommonMark reads, and completes a task only when its plan is", () => {
  it("runs every phase after a line opening with a code span of four backticks (read as a fence before)", () => {
    const text = [
      ...header,
      ...phase(1, "Mermaid blocks", ["```` ```mermaid ```` blocks render as diagrams."]),
      ...phase(2, "Sequence diagrams"),
      ...phase(3, "Docs"),
    ].join("\n");
    const dir = plannedTask(text);
    const result = runBaton(dir, ["implement", "1", "--script", script(dir)]);
    expect(result.status, result.stderr).toBe(0);
    expect(markers(dir)).toEqual(["1:COMPLETED", "2:COMPLETED", "3:COMPLETED"]);
    expect(taskStatus(dir)).toBe("completed");
    expect(git(dir, ["log", "--format=%s"])).toContain("task 1 phase 3: Docs");
  });

  it("refuses a plan whose phase a code block swallowed, naming the line, and runs nothing", () => {
    const text = [
      ...header,
      ...phase(1, "Templates", [
        "```markdown",
        "# Template",
        "```bash",
        "make",
        "```",
        "",
        "## Step",
        "",
        "```",
      ]),
      ...phase(2, "Swallowed"),
      "```bash",
      "make test",
      "```",
      "",
      ...phase(3, "After"),
    ].join("\n");
    const dir = plannedTask(text);
    const head = git(dir, ["rev-parse", "HEAD"]);
    const result = runBaton(dir, ["implement", "1", "--script", script(dir)]);
    expect(result.status).not.toBe(0);
    expect(result.stderr, result.stderr).toContain("PLAN_UNREADABLE");
    expect(result.stderr).toMatch(new RegExp(`${PLAN}:24: this phase heading is inside the code block`));
    expect(git(dir, ["rev-parse", "HEAD"])).toBe(head);
    expect(taskStatus(dir)).toBe("planned");
  });

  it("leaves the task partial, naming the phase, when the plan gains a phase during the run", () => {
    const text = [...header, ...phase(1, "First"), ...phase(2, "Second")].join("\n");
    const dir = plannedTask(text);
    const added = `${text}\n${phase(3, "Added during the run").join("\n")}`;
    // Phase 2's agent writes the plan as it was with a third phase at the end (its own marker included).
    const steps = [
      { write: PLAN, content: added.replace("Phase 1: First [NOT STARTED]", "Phase 1: First [COMPLETED]") },
    ];
    const result = runBaton(dir, [
      "implement",
      "1",
      "--script",
      script(dir, { "2": { steps: [...steps, ...phaseScriptSteps()] } }),
    ]);
    expect(result.stdout + result.stderr).toContain("Phase 3: Added during the run");
    expect(taskStatus(dir)).not.toBe("completed");
    expect(planText(dir)).not.toContain("- **Status**: [COMPLETED]");
  });
});

describe("Ctrl-C during implement", () => {
  it("exits 130, says the wave stopped (never done), and leaves the plan as it was when nothing completed", async () => {
    const text = [...header, ...phase(1, "Slow"), ...phase(2, "Next")].join("\n");
    const dir = plannedTask(text);
    const steps = [
      { write: "{task_folder}/notes/started-{phase_id}.md", content: "started\n" },
      { sleepMs: 20_000 },
    ];
    const agent = script(dir, { "1": { steps } });
    const child = spawn(process.execPath, [BATON_BIN, "implement", "1", "--script", agent], {
      cwd: dir,
      env: { ...process.env, CI: "1" },
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    const started = join(dir, FOLDER, "notes", "started-1.md");
    for (let i = 0; i < 600 && !existsSync(started); i++) await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(started), out).toBe(true);
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(out).toContain("Wave 1/2 stopped");
    expect(out).not.toMatch(/Wave \d\/2 done/);
    expect(planText(dir)).toContain("- **Status**: [NOT STARTED]");
    expect(planText(dir)).not.toContain("[BLOCKED]");
    expect(taskStatus(dir)).not.toBe("completed");
  });
});
