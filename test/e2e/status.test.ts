import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { layeredPlanPhases, phaseScriptSteps } from "../../src/testing/generate-plan.js";
import { BATON_BIN } from "../support/cli.js";
import { GOOD_RESEARCH, ok, okJson, oneTaskRepo, plannedTaskRepo, runBaton, scriptFile } from "./helpers.js";

const _FOLDER = "specs/1_build_the_parser";

const plannedTask = () => plannedTaskRepo(layeredPlanPhases(2, 1));

async function until<T>(read: () => T, ok: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("baton status", () => {
  it("shows a running plan run with its phase and spend, flags it dead after kill -9 with the recover command", async () => {
    const dir = plannedTask();
    const script = join(dir, ".git", "slow.json");
    writeFileSync(
      script,
      JSON.stringify({
        phases: {
          "1": { steps: [{ spend: { costUsd: 0.01 } }, ...phaseScriptSteps()] },
          "2": { steps: [{ spend: { costUsd: 0.02 } }, ...phaseScriptSteps({ sleepMs: 60_000 })] },
        },
      }),
    );
    const child = spawn(process.execPath, [BATON_BIN, "implement", "1", "--script", script], {
      cwd: dir,
      stdio: "ignore",
    });
    const status = () => okJson(dir, ["status", "--json"]);
    const live = await until(status, (s) => s.running[0]?.phase === "2", "phase 2 to run");
    expect(live.running[0]).toMatchObject({
      task: 1,
      operation: "implement",
      mode: "headless",
      alive: true,
      pid: child.pid,
      wave: 2,
    });
    expect(live.running[0].doing).toMatch(/phase 2/);
    expect(live.running[0].spentUsd).toBe(0.01);
    expect(ok(dir, ["status"]).stdout).toMatch(/task 1 implement .* pid \d+ {2}phase 2 started/);
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    const dead = status();
    expect(dead.running[0]).toMatchObject({ alive: false, next: "baton recover 1" });
    expect(ok(dir, ["status"]).stdout).toContain("its process is gone; run: baton recover 1");
    ok(dir, ["recover", "1"]);
    const after = status();
    expect(after.running).toEqual([]);
    expect(after.results[0]).toMatchObject({ task: 1, operation: "implement", outcome: "rolled_back" });
    expect(after.costs.byTask).toEqual([{ key: "1", costUsd: 0.01, tokensIn: 0, tokensOut: 0, runs: 1 }]);
  });

  it("lists results and refusals, newest first, with cost per task, operation and day", () => {
    const dir = oneTaskRepo();
    ok(dir, ["task", "add", "Second task"]);
    const stub = scriptFile(dir, "stub.json", [
      { spend: { costUsd: 0.05, inputTokens: 1200, outputTokens: 300 } },
      { write: "{task_folder}/reports/research-001.md", content: "# stub\n" },
      {
        writeMetadata: {
          status: "researched",
          summary: "stub",
          artifacts: [{ type: "research", path: "{task_folder}/reports/research-001.md" }],
          metadata: { session_id: "{session_id}", agent_type: "scripted" },
        },
      },
    ]);
    expect(runBaton(dir, ["research", "1", "--script", stub]).status).toBe(1);
    const good = scriptFile(dir, "good.json", [{ spend: { costUsd: 0.1 } }, ...GOOD_RESEARCH]);
    ok(dir, ["research", "2", "--script", good]);
    const view = okJson(dir, ["status", "--json"]);
    expect(view.results.map((e: { task: number; outcome: string }) => [e.task, e.outcome])).toEqual([
      [2, "done"],
      [1, "failed"],
    ]);
    expect(view.results[1].code).toBe("ARTIFACT_TOO_SMALL");
    expect(view.refusals[0]).toMatchObject({ kind: "gate", task: 1, code: "GATE_OUT", outcome: "refused" });
    expect(view.costs.total).toEqual({ costUsd: 0.15, tokensIn: 1200, tokensOut: 300, runs: 2 });
    expect(view.costs.byTask.map((r: { key: string }) => r.key)).toEqual(["2", "1"]);
    expect(view.costs.byOperation).toEqual([
      { key: "research", costUsd: 0.15, tokensIn: 1200, tokensOut: 300, runs: 2 },
    ]);
    const text = ok(dir, ["status"]).stdout;
    expect(text).toContain("Cost: today $0.1500 (2 agent runs, 1200 in / 300 out tokens)");
    expect(text).toContain("by task: #2 $0.1000 · #1 $0.0500");
  });

  it("--watch prints plain snapshots into a pipe, a new one only when something changed", async () => {
    const dir = oneTaskRepo();
    const watch = spawn(process.execPath, [BATON_BIN, "status", "--watch", "--interval", "0.2"], {
      cwd: dir,
    });
    let out = "";
    watch.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    await until(
      () => out,
      (o) => o.includes("Running: nothing"),
      "the first snapshot",
    );
    await new Promise((r) => setTimeout(r, 700));
    expect(out.match(/^--- /gm)).toHaveLength(1);
    const good = scriptFile(dir, "good.json", [{ spend: { costUsd: 0.1 } }, ...GOOD_RESEARCH]);
    ok(dir, ["research", "1", "--script", good]);
    await until(
      () => out,
      (o) => o.includes("task 1 research done"),
      "a snapshot with the result",
    );
    watch.kill("SIGINT");
    const code = await new Promise((r) => watch.once("exit", r));
    expect(code).toBe(0);
    expect(out).not.toContain("\u001b[");
  });
});
