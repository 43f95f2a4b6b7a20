import { execFileSync, spawn } from "node:child_process";
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "../../../test/support/cli.js";
import { loadConfig } from "../../config/index.js";
import { agentFileReaders } from "../../hosts/index.js";
import { groupAlive } from "../../shared/process-group.js";
import { addTask, loadErrors, mutateStore, readStore, runDoctorChecks } from "../../state/index.js";
import { tempStore } from "../../testing/store-fixture.js";
import { recoverOpenRuns } from "./recover-checkpoint.js";

let cleanup = () => {};
afterEach(() => cleanup());

const LIBRARY = resolve(import.meta.dirname, "../../../dist/index.js");
const REPORT = `# Research Report\n\n${"Evidence-backed finding. ".repeat(20)}\n`;
const WRITE_REPORT = { write: "{task_folder}/reports/research-001.md", content: REPORT };
const WRITE_META = {
  writeMetadata: {
    status: "researched",
    summary: "done",
    artifacts: [{ type: "research", path: "{task_folder}/reports/research-001.md" }],
    metadata: { session_id: "{session_id}", agent_type: "scripted" },
  },
};

async function repo() {
  const t = await tempStore({ active: 0 });
  cleanup = t.cleanup;
  execFileSync("git", ["config", "user.email", "t@example.com"], { cwd: t.dir });
  execFileSync("git", ["config", "user.name", "Baton Test"], { cwd: t.dir });
  await mutateStore(t.ctx, { command: "t" }, (tx) => addTask(tx, { title: "Crash me", language: "general" }));
  return t;
}

/**
 * Runs `baton research 1` as its own process (the library, as the CLI would) and kills it with SIGKILL:
 * `killAfter` ms after its checkpoint opened, once its agent started ("agent"), or once its agent has written
 * its result ("result"); a fixed wait misses those on a loaded machine.
 */
async function killDuringDelegate(
  dir: string,
  steps: unknown[],
  killAfter: number | "agent" | "result" | (() => boolean),
): Promise<void> {
  const program = `
    const b = await import(${JSON.stringify(LIBRARY)});
    const config = await b.loadConfig(${JSON.stringify(dir)});
    await b.runOperation({ config, agentFiles: b.agentFileReaders(), operation: "research", taskNumber: 1, runner: b.createRunner({ type: "scripted", script: { steps: ${JSON.stringify(steps)} } }) });`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", program], { stdio: "ignore" });
  const checkpoint = join(dir, "specs/.baton/checkpoints/1.json");
  await waitFor(() => existsSync(checkpoint), 30_000, 25);
  if (killAfter === "agent") {
    // The agent's pid is journaled once it started: before that there is no orphan to kill.
    const session = JSON.parse(readFileSync(checkpoint, "utf8")).sessionId;
    const journal = join(dir, `specs/.baton/sessions/${session}.jsonl`);
    const started = () => existsSync(journal) && readFileSync(journal, "utf8").includes('"agentPid"');
    for (let i = 0; i < 2000 && !started(); i++) await new Promise((r) => setTimeout(r, 10));
  } else if (killAfter === "result") {
    const metadata = join(dir, "specs/1_crash_me/.return-meta.json");
    const written = () => existsSync(metadata) && readFileSync(metadata, "utf8").endsWith("}\n");
    for (let i = 0; i < 2000 && !written(); i++) await new Promise((r) => setTimeout(r, 10));
  } else if (typeof killAfter === "function") {
    for (let i = 0; i < 2000 && !killAfter(); i++) await new Promise((r) => setTimeout(r, 10));
  } else await new Promise((r) => setTimeout(r, killAfter));
  child.kill("SIGKILL");
  await new Promise((r) => child.on("exit", r));
}

/** The crash point where GATE IN's journaled write had landed every file but the checkpoint, still a temp file. */
function checkpointInJournal(dir: string): { checkpoint: string; temp: string } {
  const checkpoint = join(dir, "specs/.baton/checkpoints/1.json");
  const temp = join(dir, "specs/.baton/checkpoints/.1.json.baton-4242-0123abcd.tmp");
  renameSync(checkpoint, temp);
  const journal = { version: 1, created: "x", writes: [{ path: checkpoint, temp }], moves: [] };
  writeFileSync(join(dir, "specs/.baton/journal.json"), JSON.stringify(journal));
  return { checkpoint, temp };
}

describe("kill -9 of baton during an operation", () => {
  it("rolls back when the agent had not produced a result, and stops the orphaned agent", async () => {
    const t = await repo();
    await killDuringDelegate(t.dir, [{ sleepMs: 60_000 }, WRITE_REPORT, WRITE_META], "agent");
    expect(readStore(t.ctx).state.tasks[0]!.status).toBe("researching");
    const orphan = readFileSync(join(t.dir, "specs/.baton/checkpoints/1.json"), "utf8");
    expect(JSON.parse(orphan).operation).toBe("research");
    const actions = await recoverOpenRuns(await loadConfig(t.dir));
    expect(actions).toEqual([
      expect.objectContaining({
        taskNumber: 1,
        action: "rolled_back",
        status: "not_started",
        detail: expect.stringContaining("DELEGATE"),
      }),
    ]);
    expect(readStore(t.ctx).state.tasks[0]).toMatchObject({ status: "not_started" });
    expect(readStore(t.ctx).state.tasks[0]).not.toHaveProperty("session_id");
    expect(loadErrors(t.ctx.paths).entries.at(-1)).toMatchObject({
      type: "delegation_interrupted",
      context: { task: 1 },
    });
    expect(runDoctorChecks(t.ctx).filter((f) => f.severity === "error")).toEqual([]);
    expect(existsSync(join(t.dir, "specs/1_crash_me/.baton-postflight-pending"))).toBe(false);
    // The orphaned agent (journaled at DELEGATE) was still alive after baton died, and recovery stopped it.
    const sessionId = actions[0]!.sessionId;
    const agentPid = readFileSync(join(t.dir, `specs/.baton/sessions/${sessionId}.jsonl`), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l).detail?.agentPid)
      .find((p) => typeof p === "number");
    expect(agentPid).toEqual(expect.any(Number));
    // A killed orphan can linger as a zombie until init reaps it, so "alive" means a non-zombie member.
    expect(groupAlive(agentPid!)).toBe(false);
  });

  it("records a finished delegation whose artifacts verify", async () => {
    const t = await repo();
    await killDuringDelegate(t.dir, [WRITE_REPORT, WRITE_META, { sleepMs: 60_000 }], "result");
    const actions = await recoverOpenRuns(await loadConfig(t.dir));
    expect(actions).toEqual([expect.objectContaining({ action: "recorded", committed: true })]);
    expect(readStore(t.ctx).state.tasks[0]).toMatchObject({
      status: "researched",
      artifacts: [{ path: "specs/1_crash_me/reports/research-001.md" }],
    });
    expect(execFileSync("git", ["log", "-1", "--format=%s"], { cwd: t.dir, encoding: "utf8" })).toBe(
      "task 1: complete research (recovered)\n",
    );
    expect(existsSync(join(t.dir, "specs/1_crash_me/.return-meta.json"))).toBe(false);
  });

  it.each([
    ["records a result that verifies", [WRITE_REPORT, WRITE_META], "recorded", "researched"],
    [
      "rolls back a stub",
      [{ ...WRITE_REPORT, content: "# stub\n" }, WRITE_META],
      "rolled_back",
      "not_started",
    ],
  ])("during GATE OUT: %s", async (_name, steps, action, status) => {
    const t = await repo();
    await killDuringDelegate(t.dir, [...steps, { sleepMs: 60_000 }], "result");
    // GATE OUT writes nothing before it records, so a kill inside it leaves these files and this journal.
    const checkpoint = JSON.parse(readFileSync(join(t.dir, "specs/.baton/checkpoints/1.json"), "utf8"));
    const journal = join(t.dir, `specs/.baton/sessions/${checkpoint.sessionId}.jsonl`);
    appendFileSync(
      journal,
      `${JSON.stringify({ at: new Date().toISOString(), step: "DELEGATE", phase: "end", ok: true })}\n`,
    );
    appendFileSync(
      journal,
      `${JSON.stringify({ at: new Date().toISOString(), step: "GATE_OUT", phase: "begin" })}\n`,
    );
    const actions = await recoverOpenRuns(await loadConfig(t.dir));
    expect(actions).toEqual([
      expect.objectContaining({ action, detail: expect.stringContaining("died at GATE_OUT began") }),
    ]);
    expect(readStore(t.ctx).state.tasks[0]!.status).toBe(status);
    expect(runDoctorChecks(t.ctx).filter((f) => f.severity === "error")).toEqual([]);
  });

  it("resolves a checkpoint whose own write was still in the store's journal when baton died", async () => {
    const t = await repo();
    await killDuringDelegate(t.dir, [{ sleepMs: 60_000 }], 200);
    const { checkpoint, temp } = checkpointInJournal(t.dir);
    const actions = await recoverOpenRuns(await loadConfig(t.dir));
    expect(actions).toEqual([expect.objectContaining({ taskNumber: 1, action: "rolled_back" })]);
    expect(existsSync(checkpoint)).toBe(false);
    expect(existsSync(temp)).toBe(false);
    expect(existsSync(join(t.dir, "specs/.baton/journal.json"))).toBe(false);
    expect(readStore(t.ctx).state.tasks[0]!.status).toBe("not_started");
  });

  it.each([
    ["", false],
    [", its checkpoint still a file of the store's journal", true],
  ])("is resolved by the next run on the same task, which then proceeds%s", async (_, journaled) => {
    const t = await repo();
    await killDuringDelegate(t.dir, [{ sleepMs: 60_000 }], 200);
    if (journaled) checkpointInJournal(t.dir);
    const { runOperation } = await import("../run-modes/headless-run.js");
    const { ScriptedRunner } = await import("../../runners/index.js");
    const report = await runOperation({
      agentFiles: agentFileReaders(),
      config: await loadConfig(t.dir),
      operation: "research",
      taskNumber: 1,
      runner: new ScriptedRunner({ script: { steps: [WRITE_REPORT, WRITE_META] as never } }),
    });
    expect(report.recovered).toMatchObject({ action: "rolled_back", status: "not_started" });
    expect(report.result).toMatchObject({ ok: true, outcome: "done" });
    expect(readFileSync(t.ctx.paths.todo, "utf8")).toContain("[RESEARCHED]");
  });

  it("keeps what a dead operation's agent left (its draft is the re-run's); only a plan run's is put aside", async () => {
    const t = await repo();
    const git = (...args: string[]) => execFileSync("git", args, { cwd: t.dir, encoding: "utf8" });
    writeFileSync(join(t.dir, "tracked.txt"), "committed\n");
    git("add", "tracked.txt");
    git("commit", "-qm", "files");
    const steps = [
      { write: "tracked.txt", content: "changed by the agent\n" },
      { write: "{task_folder}/reports/draft.md", content: "half a report\n" },
      { sleepMs: 60_000 },
    ];
    const written = () => existsSync(join(t.dir, "specs/1_crash_me/reports/draft.md"));
    await killDuringDelegate(t.dir, steps, written);
    const actions = await recoverOpenRuns(await loadConfig(t.dir));
    expect(actions).toEqual([expect.objectContaining({ action: "rolled_back" })]);
    expect(readFileSync(join(t.dir, "tracked.txt"), "utf8")).toBe("changed by the agent\n");
    expect(existsSync(join(t.dir, "specs/1_crash_me/reports/draft.md"))).toBe(true);
    expect(git("branch", "--list", "baton/*")).toBe("");
  });
});
