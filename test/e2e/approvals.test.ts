import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  generatePlan,
  layeredPlanPhases,
  phaseScriptSteps,
  wholeWayScript,
} from "../../src/testing/generate-plan.js";
import {
  activeTasks,
  commitAll,
  git,
  ok,
  repo,
  runBaton,
  runBatonAsync,
  tasksWithScript,
} from "./helpers.js";

const FOLDER = "specs/1_build_the_parser";
const PLAN = `${FOLDER}/plans/implementation-001.md`;

/** Task 1 planned, with a plan; the configuration asks for approval of plans before `implement`. */
function plannedTask(): { dir: string; script: string } {
  const dir = repo();
  ok(dir, ["task", "add", "Build the parser", "-l", "general"]);
  ok(dir, ["task", "status", "1", "planned", "--force"]);
  mkdirSync(join(dir, FOLDER, "plans"), { recursive: true });
  const plan = generatePlan({
    style: "task",
    taskNumber: 1,
    title: "Build the parser",
    phases: layeredPlanPhases(2, 1),
  });
  writeFileSync(join(dir, PLAN), plan);
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-qm", "planned"]);
  // Baton is adopted after: the hand-made `planned` above is history from before it.
  writeFileSync(join(dir, "baton.config.yaml"), "approvals:\n  implement: plan\n");
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-qm", "approvals"]);
  const script = join(dir, ".git", "agent.json");
  writeFileSync(script, JSON.stringify({ phases: { "*": { steps: phaseScriptSteps() } } }));
  return { dir, script };
}

// biome-ignore lint/suspicious/noExplicitAny: the test reads JSON files and asserts on them directly
const readJson = (path: string): any => JSON.parse(readFileSync(path, "utf8"));
const taskEntry = (dir: string) => readJson(join(dir, "specs/state.json")).active_projects[0]!;
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const shown = (r: { stdout: string; stderr: string }) => `${r.stdout}\n${r.stderr}`;

describe("approvals: implement waits for a person's yes to the plan's very content", () => {
  it("refuses before approval, records who approved which bytes, goes stale on an edit, runs once approved", () => {
    const { dir, script } = plannedTask();
    const refused = runBaton(dir, ["implement", "1", "--script", script]);
    expect(refused.status, shown(refused)).toBe(1);
    expect(shown(refused)).toContain("APPROVAL_REQUIRED");
    expect(git(dir, ["status", "--porcelain"])).toBe("");
    expect(taskEntry(dir)["status"]).toBe("planned");
    expect(ok(dir, ["approvals"]).stdout).toContain(`Task 1: ${PLAN}`);
    // A live session's gate-in is the same GATE IN.
    const gateIn = runBaton(dir, ["gate-in", "implement", "1"]);
    expect(gateIn.status).toBe(1);
    expect(shown(gateIn)).toContain("waits for a person's approval");
    expect(shown(gateIn)).toContain("/approve 1");

    const approved = ok(dir, ["approve", "1"]);
    expect(approved.stdout).toContain("Approved task 1's plan");
    expect(git(dir, ["log", "-1", "--format=%s"]).trim()).toBe("task 1: approve plan");
    const record = taskEntry(dir)["plan_approval"] as Record<string, unknown>;
    expect(record).toMatchObject({
      verdict: "approved",
      plan: PLAN,
      sha256: sha256(readFileSync(join(dir, PLAN), "utf8")),
      by: { git: "Baton Test <test@example.com>" },
    });
    const evidence = readdirSync(join(dir, FOLDER, "evidence")).find((f) => f.endsWith("-approve.json"))!;
    expect(readJson(join(dir, FOLDER, "evidence", evidence))).toMatchObject({
      operation: "approve",
      approval: { verdict: "approved", contentSha256: record["content_sha256"] },
      signature: { key: expect.any(String) },
    });
    expect(ok(dir, ["approvals"]).stdout).toContain("No plan waits for approval.");

    // A phase's words changed after approval: stale, naming the line.
    const plan = readFileSync(join(dir, PLAN), "utf8");
    writeFileSync(join(dir, PLAN), plan.replace("Step 1.1", "Step 1.1, and delete the failing tests"));
    const stale = runBaton(dir, ["implement", "1", "--script", script]);
    expect(stale.status, shown(stale)).toBe(1);
    expect(shown(stale)).toMatch(/APPROVAL_STALE[\s\S]*line \d+ changed: now "[^"]*delete the failing tests/);
    expect(taskEntry(dir)["status"]).toBe("planned");

    ok(dir, ["approve", "1"]);
    const ran = runBaton(dir, ["implement", "1", "--script", script]);
    expect(ran.status, shown(ran)).toBe(0);
    expect(taskEntry(dir)["status"]).toBe("completed");
    const approval = taskEntry(dir)["plan_approval"] as Record<string, string>;
    const phase = readdirSync(join(dir, FOLDER, "evidence")).find((f) =>
      f.endsWith("-implement-phase-1.json"),
    )!;
    expect(readJson(join(dir, FOLDER, "evidence", phase))).toMatchObject({
      approvedPlan: { plan: PLAN, contentSha256: approval["content_sha256"], session: approval["session"] },
    });
    // verify holds the completion to its approval, and names the person who approved their own plan.
    const verified = runBaton(dir, ["verify"]);
    expect(verified.status, shown(verified)).toBe(0);
    expect(verified.stdout).toContain(
      `SELF    task 1: ${PLAN} was approved by Baton Test <test@example.com>`,
    );
  });

  it("an approval written into state.json by hand is refused at GATE IN, and caught by verify when it went around", () => {
    const { dir, script } = plannedTask();
    ok(dir, ["approve", "1"]);
    const state = join(dir, "specs/state.json");
    const forged = readJson(state);
    forged.active_projects[0].plan_approval.session = "sess_1795000000_abcdef";
    writeFileSync(state, `${JSON.stringify(forged, null, 2)}\n`);
    ok(dir, ["adopt"]);
    const refused = runBaton(dir, ["implement", "1", "--script", script]);
    expect(refused.status, shown(refused)).toBe(1);
    expect(shown(refused)).toMatch(/APPROVAL_REQUIRED[\s\S]*has no evidence/);
    // Around GATE IN: a run while nothing asked for approval, then history rewritten so that its commit does.
    writeFileSync(join(dir, "baton.config.yaml"), "");
    commitAll(dir, "no approvals");
    ok(dir, ["implement", "1", "--script", script]);
    writeFileSync(join(dir, "baton.config.yaml"), "approvals:\n  implement: plan\n");
    git(dir, ["add", "baton.config.yaml"]);
    git(dir, ["commit", "-q", "--amend", "--no-edit"]);
    const verify = runBaton(dir, ["verify"]);
    expect(verify.status, shown(verify)).toBe(1);
    expect(verify.stdout).toContain(
      "the approval it names (session sess_1795000000_abcdef) has no approve evidence",
    );
  });

  it("a plan edited while it runs stops the phases that have not started", () => {
    const { dir } = plannedTask();
    ok(dir, ["approve", "1"]);
    const edited = readFileSync(join(dir, PLAN), "utf8").replace("Step 2.1", "Step 2.1, and drop the tests");
    const script = join(dir, ".git", "editing-agent.json");
    const editing = [{ write: PLAN, content: edited }, ...phaseScriptSteps()];
    writeFileSync(
      script,
      JSON.stringify({ phases: { "*": { steps: phaseScriptSteps() }, "1": { steps: editing } } }),
    );
    const ran = runBaton(dir, ["implement", "1", "--script", script]);
    expect(shown(ran)).toMatch(/APPROVAL_STALE: the plan changed after its approval, while it ran/);
    const subjects = git(dir, ["log", "--format=%s"]);
    expect(subjects).toContain("task 1 phase 1:");
    expect(subjects).not.toContain("task 1 phase 2:");
    expect(taskEntry(dir)["status"]).not.toBe("completed");
  });

  it("a rejection holds until the plan is revised; an answer to bytes the person did not read is refused", () => {
    const { dir, script } = plannedTask();
    const unseen = runBaton(dir, ["approve", "1", "--sha256", "0".repeat(64)]);
    expect(unseen.status, shown(unseen)).toBe(1);
    expect(shown(unseen)).toContain("PLAN_CHANGED");
    expect(taskEntry(dir)).not.toHaveProperty("plan_approval");
    expect(runBaton(dir, ["reject", "1"]).status).toBe(2);
    ok(dir, ["reject", "1", "--reason", "phase 2 has no tests"]);
    const refused = runBaton(dir, ["implement", "1", "--script", script]);
    expect(refused.status, shown(refused)).toBe(1);
    expect(shown(refused)).toMatch(/APPROVAL_REJECTED[\s\S]*phase 2 has no tests[\s\S]*baton revise 1/);
    // `baton revise` writes the next plan: pending again, the rejection was of the old one.
    const next = `${FOLDER}/plans/implementation-002.md`;
    const revised = readFileSync(join(dir, PLAN), "utf8").replace("Step 2.1", "Step 2.1 with tests");
    const reviser = join(dir, ".git", "reviser.json");
    const meta = { status: "planned", summary: "revised", artifacts: [{ type: "plan", path: next }] };
    writeFileSync(
      reviser,
      JSON.stringify({
        steps: [
          { write: next, content: revised },
          { writeMetadata: { ...meta, metadata: { session_id: "{session_id}", agent_type: "scripted" } } },
        ],
      }),
    );
    const revise = runBaton(dir, ["revise", "1", "--script", reviser]);
    expect(revise.status, shown(revise)).toBe(0);
    const pending = runBaton(dir, ["implement", "1", "--script", script]);
    expect(shown(pending)).toContain("APPROVAL_REQUIRED");
    expect(ok(dir, ["approvals", "--json"]).stdout).toContain('"standing": "pending"');
  });
});

describe("approvals in baton run", () => {
  it("pauses the task whose plan waits, finishes the others, and tells the person once", async () => {
    const { dir, script } = tasksWithScript(3, wholeWayScript());
    const planned = await runBatonAsync(dir, [
      "run",
      "--all-ready",
      "--until",
      "planned",
      "--script",
      script,
    ]);
    expect(planned.status, shown(planned)).toBe(0);
    const posts: string[] = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        posts.push(body);
        res.end("ok");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const port = (server.address() as { port: number }).port;
      writeFileSync(
        join(dir, "baton.config.yaml"),
        `approvals:\n  implement: plan\n  webhook: http://127.0.0.1:${port}/baton\n`,
      );
      commitAll(dir, "approvals");
      ok(dir, ["approve", "1"]);
      ok(dir, ["approve", "3"]);
      const told = join(dir, ".git", "told");
      const env = {
        BATON_APPROVAL_COMMAND: `echo "$BATON_TASK $BATON_PLAN_SHA256" >> '${told}'; cat > /dev/null`,
      };
      const args = ["run", "--tasks", "1-3", "--concurrency", "2", "--script", script];
      const ran = await runBatonAsync(dir, args, env);
      expect(ran.status, shown(ran)).not.toBe(2);
      const statuses = Object.fromEntries(activeTasks(dir).map((t) => [t.project_number, t.status]));
      expect(statuses).toEqual({ 1: "completed", 2: "planned", 3: "completed" });
      expect(shown(ran)).toContain("approve its plan: `baton approve 2`");
      // Told once, by both means, with what the person needs to answer for exactly those bytes.
      const again = await runBatonAsync(dir, args, env);
      expect(shown(again)).toContain("`baton approve 2`");
      expect(readFileSync(told, "utf8").trim().split("\n")).toHaveLength(1);
      expect(posts).toHaveLength(1);
      const task2 = activeTasks(dir).find((t) => t.project_number === 2)!;
      const plan = (task2.artifacts as { type: string; path: string }[]).find((a) => a.type === "plan")!;
      expect(JSON.parse(posts[0]!)).toMatchObject({
        event: "approval_pending",
        task: 2,
        plan: plan.path,
        sha256: sha256(readFileSync(join(dir, plan.path), "utf8")),
      });
      expect(existsSync(told)).toBe(true);
      const status = ok(dir, ["status"]).stdout;
      expect(status).toContain("Waiting for a person (1):");
      expect(status).toMatch(/task 2 plan pending: baton approve 2 {2}specs\/2_/);
    } finally {
      server.close();
    }
  }, 180_000);
});
