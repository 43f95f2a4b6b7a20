import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { phaseScriptSteps } from "../../src/testing/generate-plan.js";
import { git, ok, repo, runBaton } from "./helpers.js";

/**
 * Plans of the original system number their phases in order and declare no dependencies. Read as "nothing
 * depends on anything", four agents once started on the same files at once; Baton runs such a plan in its
 * order, and says which reading it used.
 */
const FOLDER = "specs/1_prove_the_lemma";
const PLAN = `${FOLDER}/plans/implementation-001.md`;
const phase = (n: number, name: string) =>
  `### Phase ${n}: ${name} [NOT STARTED]\n\n**Goal**: ${name}.\n\n**Tasks**:\n- [ ] ${name}\n`;

function undeclaredPlan(): string {
  const dir = repo();
  ok(dir, ["task", "add", "Prove the lemma", "-l", "general"]);
  ok(dir, ["task", "status", "1", "planned", "--force"]);
  mkdirSync(join(dir, FOLDER, "plans"), { recursive: true });
  const phases = ["Set up the definitions", "Prove the base case", "Prove the step", "Clean up"];
  writeFileSync(
    join(dir, PLAN),
    `# Implementation Plan: Task #1\n\n## Implementation Phases\n\n${phases.map((p, i) => phase(i + 1, p)).join("\n")}`,
  );
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-qm", "planned"]);
  return dir;
}

const markers = (dir: string) =>
  [...readFileSync(join(dir, PLAN), "utf8").matchAll(/^### Phase (\S+): .*\[([A-Z ]+)\]$/gm)].map(
    (m) => `${m[1]}:${m[2]}`,
  );

describe("a plan that declares no dependencies", () => {
  it("is shown, dry-run and run in its order, one phase after another", () => {
    const dir = undeclaredPlan();
    const shown = runBaton(dir, ["plan", "show", "1"]);
    expect(shown.stdout).toContain("Waves (in the plan's order: no phase declares its dependencies");
    expect(shown.stdout).toMatch(/Wave 1: 1\n\s+Wave 2: 2\n\s+Wave 3: 3\n\s+Wave 4: 4/);
    const dry = runBaton(dir, ["implement", "1", "--dry-run", "--script", "/dev/null"]);
    expect(dry.stdout).toContain("in its order (no phase declares dependencies)");
  });

  it("stops at a failed phase: the phases after it are blocked, never started beside it", () => {
    const dir = undeclaredPlan();
    const agent = join(dir, ".git", "agent.json");
    const failing = { steps: [{ output: "TASK_ERROR: the base case does not hold" }, { exit: 1 }] };
    writeFileSync(agent, JSON.stringify({ phases: { "*": { steps: phaseScriptSteps() }, "2": failing } }));
    const run = runBaton(dir, ["implement", "1", "--script", agent]);
    expect(run.stdout, run.stderr).toContain("partly done → partial");
    expect(run.stdout).toContain(
      "Phase 3 (wave 3) Prove the step: [BLOCKED] via baton-implementer — Phase 2 did not complete",
    );
    expect(markers(dir)).toEqual(["1:COMPLETED", "2:BLOCKED", "3:BLOCKED", "4:BLOCKED"]);
  });
});
