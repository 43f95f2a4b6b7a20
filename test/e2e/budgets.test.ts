import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readAllEvents } from "../../src/shared/event-stream.js";
import { layeredPlanPhases, phaseScriptSteps } from "../../src/testing/generate-plan.js";
import {
  GOOD_RESEARCH,
  git,
  oneTaskRepo,
  plannedTaskRepo,
  readJson,
  runBaton,
  scriptFile,
} from "./helpers.js";

const FOLDER = "specs/1_build_the_parser";
const PLAN = `${FOLDER}/plans/implementation-001.md`;

/** A planned task whose plan has `n` phases in a chain (one per wave). */
const chainPlan = (n: number) => plannedTaskRepo(layeredPlanPhases(n, 1));

/** Each phase spends $0.02, reported as a model call would while it works. */
function spendingScript(dir: string, perPhase = 0.02): string {
  const path = join(dir, ".git", "spend.json");
  const steps = phaseScriptSteps();
  writeFileSync(
    path,
    JSON.stringify({
      phases: {
        "*": { steps: [{ spend: { costUsd: perPhase, inputTokens: 1000, outputTokens: 200 } }, ...steps] },
      },
    }),
  );
  return path;
}

const markers = (dir: string) =>
  [...readFileSync(join(dir, PLAN), "utf8").matchAll(/^### Phase (\S+): .*\[([A-Z ]+)\]$/gm)].map(
    (m) => `${m[1]}:${m[2]}`,
  );

describe("budgets hold", () => {
  it("a plan of three $0.02 phases under --max-cost 0.05 runs two, stops with BUDGET_EXCEEDED, and resumes", () => {
    const dir = chainPlan(3);
    const script = spendingScript(dir);
    const first = runBaton(dir, ["implement", "1", "--script", script, "--max-cost", "0.05"]);
    expect(first.status, first.stdout + first.stderr).toBe(1);
    expect(first.stdout).toContain(
      "BUDGET_EXCEEDED: this operation's budget is $0.0500 and $0.0400 is spent",
    );
    expect(markers(dir)).toEqual(["1:COMPLETED", "2:COMPLETED", "3:NOT STARTED"]);
    // With more budget the run goes on from phase 3.
    const second = runBaton(dir, ["implement", "1", "--script", script, "--max-cost", "0.05"]);
    expect(second.status, second.stdout + second.stderr).toBe(0);
    expect(markers(dir)).toEqual(["1:COMPLETED", "2:COMPLETED", "3:COMPLETED"]);
    expect(readJson(dir, "state.json").active_projects[0].status).toBe("completed");
    const events = readAllEvents(dir);
    const spent = events.filter((e) => e.kind === "agent").map((e) => e.costUsd);
    expect(spent).toEqual([0.02, 0.02, 0.02]);
    expect(events.filter((e) => e.kind === "budget").map((e) => e.outcome)).toEqual(["exceeded"]);
  });

  it("stops a running agent whose streamed cost crosses the budget; the same command runs it again", () => {
    const dir = oneTaskRepo();
    const script = scriptFile(dir, "costly.json", [
      { spend: { costUsd: 0.3 } },
      { sleepMs: 100 },
      { spend: { costUsd: 0.3 } },
      { sleepMs: 20_000 },
      ...GOOD_RESEARCH,
    ]);
    const result = runBaton(dir, ["research", "1", "--script", script, "--max-cost", "0.5"]);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain("[BUDGET_EXCEEDED]");
    expect(result.stdout).toContain("a running agent crossed it and was stopped");
    // Stopped while it slept, not after: its run ended aborted, before its report was written.
    const agent = readAllEvents(dir).find((e) => e.kind === "agent");
    expect(agent).toMatchObject({ costUsd: 0.6, outcome: "aborted" });
    expect(existsSync(join(dir, "specs/1_study_the_lexer/reports/research-001.md"))).toBe(false);
    // The same command with more budget runs it again.
    const cheap = scriptFile(dir, "cheap.json", [{ spend: { costUsd: 0.1 } }, ...GOOD_RESEARCH]);
    const again = runBaton(dir, ["research", "1", "--script", cheap, "--max-cost", "0.5"]);
    expect(again.status, again.stdout + again.stderr).toBe(0);
    expect(readJson(dir, "state.json").active_projects[0].status).toBe("researched");
  });

  it("holds a per-task budget across runs, from the configuration", () => {
    const dir = oneTaskRepo();
    writeFileSync(join(dir, "baton.config.json"), JSON.stringify({ budgets: { task: 0.1 } }));
    git(dir, ["add", "-A"]);
    git(dir, ["commit", "-qm", "budget"]);
    const script = scriptFile(dir, "spend.json", [{ spend: { costUsd: 0.1 } }, ...GOOD_RESEARCH]);
    expect(runBaton(dir, ["research", "1", "--script", script]).status).toBe(0);
    const again = runBaton(dir, ["research", "1", "--script", script, "--force"]);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain("the task's budget is $0.1000 and $0.1000 is spent");
    expect(again.stderr).toContain("--max-cost");
    const bad = runBaton(dir, ["research", "1", "--max-cost", "lots"]);
    expect(bad.stderr).toContain('--max-cost must be an amount in US dollars (e.g. 0.50), got "lots"');
  });

  it("holds budgets.planRun on plan runs only: a research run spends past it, a plan run stops at it", () => {
    const research = oneTaskRepo();
    writeFileSync(join(research, "baton.config.json"), JSON.stringify({ budgets: { planRun: 0.05 } }));
    git(research, ["add", "-A"]);
    git(research, ["commit", "-qm", "budget"]);
    const script = scriptFile(research, "spend.json", [{ spend: { costUsd: 0.2 } }, ...GOOD_RESEARCH]);
    const researched = runBaton(research, ["research", "1", "--script", script]);
    expect(researched.status, researched.stdout + researched.stderr).toBe(0);
    expect(researched.stdout).not.toContain("BUDGET_EXCEEDED");
    expect(readJson(research, "state.json").active_projects[0].status).toBe("researched");

    const planned = chainPlan(3);
    writeFileSync(join(planned, "baton.config.json"), JSON.stringify({ budgets: { planRun: 0.05 } }));
    git(planned, ["add", "-A"]);
    git(planned, ["commit", "-qm", "budget"]);
    const implemented = runBaton(planned, ["implement", "1", "--script", spendingScript(planned)]);
    expect(implemented.status).toBe(1);
    expect(implemented.stdout).toContain("BUDGET_EXCEEDED: the plan run's budget is $0.0500");
    expect(markers(planned)).toEqual(["1:COMPLETED", "2:COMPLETED", "3:NOT STARTED"]);
  });
});
